using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Http;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Wire;

/// <summary>Which requests admission control and telemetry treat as live pulls, and the <c>wait</c> parameter's rules.</summary>
[Trait("Category", "Fast")]
public sealed class LiveRequestsTests
{
    private static HttpContext Request(string method, string path, string query = "")
    {
        var context = new DefaultHttpContext();
        context.Request.Method = method;
        context.Request.Path = path;
        context.Request.QueryString = new QueryString(query);
        return context;
    }

    [Theory]
    [InlineData("GET", "/v1/users/12/changes", "?wait=30", true)]
    [InlineData("GET", "/V1/Users/12/Changes", "?since=abc&wait=1", true)]
    [InlineData("GET", "/v1/users/12/changes", "?wait=0", false)]
    [InlineData("GET", "/v1/users/12/changes", "", false)]
    [InlineData("GET", "/v1/users/12/changes", "?wait=61", false)]
    [InlineData("GET", "/v1/users/12/changes", "?wait=abc", false)]
    [InlineData("POST", "/v1/users/12/changes", "?wait=30", false)]
    [InlineData("GET", "/v1/users/12/devices", "?wait=30", false)]
    [InlineData("GET", "/v1/users/12/x/changes", "?wait=30", false)]
    [InlineData("POST", "/kobo.sync.v1.SyncService/WatchChanges", "", true)]
    [InlineData("POST", "/kobo.sync.v1.SyncService/PullChanges", "", false)]
    public void OnlyAValidWaitOrAWatchIsALivePull(string method, string path, string query, bool live) =>
        Assert.Equal(live, LiveRequests.IsLive(Request(method, path, query)));

    [Theory]
    [InlineData(null, 0)]
    [InlineData("", 0)]
    [InlineData("0", 0)]
    [InlineData("60", 60)]
    public void AWaitFrom0To60IsTaken(string? text, int seconds) => Assert.Equal(seconds, LiveRequests.WaitSeconds(text));

    [Theory]
    [InlineData("61")]
    [InlineData("-1")]
    [InlineData("+5")]
    [InlineData(" 5")]
    [InlineData("1.5")]
    [InlineData("abc")]
    [InlineData("99999999999")]
    public void AnyOtherWaitIsRefusedOnTheFieldWait(string text)
    {
        var error = Assert.Throws<InvalidRequestException>(() => LiveRequests.WaitSeconds(text));
        Assert.Equal("wait", error.Field);
    }

    [Theory]
    [InlineData("a1b2c3 1732345678123 12:345", "12:345")]
    [InlineData("a1b2c3 1732345678123 12:345 7:1", "12:345 7:1")]
    [InlineData("a1b2c3 1732345678123", null)]
    [InlineData("12 345 1732345678123", null)]
    [InlineData("a1b2c3 x 12:345", null)]
    [InlineData("a1b2c3 1 12:-3", null)]
    [InlineData("a1b2c3 1 12;3", null)]
    [InlineData(" 1 12:3", null)]
    [InlineData("", null)]
    public void NotificationPayloadsOfAnotherShapeAreIgnored(string payload, string? changes)
    {
        var notification = ChangeNotification.Parse(payload);

        Assert.Equal(changes, notification is null ? null : string.Join(' ', notification.Changes.Select(c => $"{c.Key}:{c.Value}")));
    }

    [Fact]
    public void ManyUsersChangesAreSplitIntoPayloadsPostgresAcceptsAndReadBackWhole()
    {
        var changes = Enumerable.Range(1, 2_000).Select(n => new KeyValuePair<long, long>(1_000_000_000L + n, 9_000_000_000L + n)).ToArray();
        var stamp = DateTimeOffset.FromUnixTimeMilliseconds(1_732_345_678_123);

        var payloads = ChangeNotification.Format("a1b2c3d4e5f6", stamp, changes);

        Assert.True(payloads.Count > 1);
        Assert.All(payloads, p => Assert.InRange(System.Text.Encoding.UTF8.GetByteCount(p), 1, ChangeNotification.MaxPayloadBytes));
        var read = payloads.Select(p => ChangeNotification.Parse(p)!).ToArray();
        Assert.All(read, n => Assert.Equal(("a1b2c3d4e5f6", stamp), (n.Sender, n.StampedAt)));
        Assert.Equal(changes, read.SelectMany(n => n.Changes));
    }
}
