using System.Globalization;
using System.Net.Sockets;
using System.Text;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Answers that wait on devices that do not read them are bounded in bytes: one account's devices hold no
/// more than its share (429 / RESOURCE_EXHAUSTED for the rest, before any of it is sent), and another account
/// is served until the instance's budget is held (then 503 / UNAVAILABLE).
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class HeldAnswersTests(PostgresDatabase db) : IClassFixture<PostgresDatabase>
{
    [Fact]
    public async Task OneAccountsUntakenAnswersHoldNoMoreThanItsShareAndAnotherAccountIsServed()
    {
        await SeedAsync(heavy: 1, light: 2);
        using var host = Start(new() { ["Admission:PerUserAnswerBytes"] = "65536" });
        var loads = host.Services.GetRequiredService<AnswerLoads>();

        using var unread = await AskWithoutReadingAsync(host, user: 1, "phone");
        Assert.True(await EventuallyAsync(() => loads.Bytes > 1_000_000), "the unread answer was never held");

        using var tablet = new HttpClient { BaseAddress = host.RestAddress }.WithToken(TestTokens.For(1, "tablet"));
        using var refused = await tablet.GetAsync(new Uri("/v1/users/1/highlights?pageSize=100", UriKind.Relative), TestTimeout.Token);
        using var other = new HttpClient { BaseAddress = host.RestAddress }.WithToken(TestTokens.For(2, "phone"));
        using var served = await other.GetAsync(new Uri("/v1/users/2/highlights?pageSize=100", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(429, (int)refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        Assert.NotNull(refused.Headers.RetryAfter);
        Assert.Equal(200, (int)served.StatusCode);
    }

    [Fact]
    public async Task OverGrpcAnAnswerPastTheUsersShareIsResourceExhaustedAndPastTheInstancesBudgetUnavailable()
    {
        await SeedAsync(heavy: 3, light: 4);
        using var host = Start(new() { ["Admission:PerUserAnswerBytes"] = "65536", ["Admission:AnswerBytes"] = "1048576" });
        var loads = host.Services.GetRequiredService<AnswerLoads>();
        using var unread = await AskWithoutReadingAsync(host, user: 3, "phone");
        Assert.True(await EventuallyAsync(() => loads.Bytes > 1_100_000), "the unread answer was never held");

        var sameUser = await Assert.ThrowsAsync<RpcException>(async () => await host.Client.Sync.ListUserHighlightsAsync(
            new ListUserHighlightsRequest { UserNo = 3, PageSize = 100 },
            GrpcTestClient.ToMetadata([new("authorization", $"Bearer {TestTokens.For(3, "tablet")}")]), cancellationToken: TestTimeout.Token));
        var otherUser = await Assert.ThrowsAsync<RpcException>(async () => await host.Client.Sync.ListUserHighlightsAsync(
            new ListUserHighlightsRequest { UserNo = 4, PageSize = 100 }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(4)), cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.ResourceExhausted, sameUser.StatusCode);
        Assert.Equal(StatusCode.Unavailable, otherUser.StatusCode);
        Assert.Contains(otherUser.Trailers, t => t.Key == "grpc-retry-pushback-ms");

        // Once the unread answer is gone, the same call is served.
        unread.Close();
        Assert.True(await EventuallyAsync(() => loads.Bytes == 0), "the unread answer was never released");
        var page = await host.Client.Sync.ListUserHighlightsAsync(
            new ListUserHighlightsRequest { UserNo = 4, PageSize = 100 }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(4)), cancellationToken: TestTimeout.Token);
        Assert.Equal(20, page.Items.Count);
    }

    /// <summary>The schema, users 1 to 4 and books 1 to 20 (once per class); a heavy user of 800 large highlights and a light one of 20.</summary>
    private async Task SeedAsync(long heavy, long light)
    {
        await new Kobo.Sync.Storage.Schema.SchemaMigrator(db.DataSource).MigrateAsync(TestTimeout.Token);
        await using (var users = db.DataSource.CreateCommand(
            "INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 4) n ON CONFLICT DO NOTHING; " +
            "INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n ON CONFLICT DO NOTHING"))
        {
            await users.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        // Pages of 16 MiB of large highlights: far more than the loopback socket takes from an answer that is not read.
        await LargeHighlights.SeedAsync(db.DataSource, heavy, 800);
        await LargeHighlights.SeedAsync(db.DataSource, light, 20);
    }

    private SyncGrpcTestHost Start(Dictionary<string, string?> settings)
    {
        settings["Paging:MaxPageBytes"] = (16 * 1024 * 1024).ToString(CultureInfo.InvariantCulture);
        settings["Admission:AnswerWriteGraceMs"] = "60000";
        return new SyncGrpcTestHost(db.ConnectionString, settings: settings);
    }

    private static async Task<bool> EventuallyAsync(Func<bool> condition)
    {
        for (var i = 0; i < 200 && !condition(); i++)
        {
            await Task.Delay(100, TestTimeout.Token);
        }

        return condition();
    }

    /// <summary>A page asked for over a socket that never reads its answer.</summary>
    private static async Task<Socket> AskWithoutReadingAsync(SyncGrpcTestHost host, long user, string device)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(host.RestAddress.Host, host.RestAddress.Port, TestTimeout.Token);
        var request = string.Create(CultureInfo.InvariantCulture,
            $"GET /v1/users/{user}/changes?pageSize=1000 HTTP/1.1\r\nHost: {host.RestAddress.Authority}\r\nAuthorization: Bearer {TestTokens.For(user, device)}\r\n\r\n");
        await socket.SendAsync(Encoding.ASCII.GetBytes(request), TestTimeout.Token);
        return socket;
    }
}
