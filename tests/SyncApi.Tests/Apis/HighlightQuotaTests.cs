using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using GrpcChange = Kobo.Sync.Contracts.Grpc.V1.PushedChange;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// The per-user highlight quota (Sync:MaxHighlightsPerUser, Sync:MaxHighlightBytesPerUser), set at its
/// lowest here: a push that would add past it is refused whole, over REST (409 problem+json) and gRPC
/// (FAILED_PRECONDITION), and stores nothing; a push that frees room always passes.
/// </summary>
public sealed class HighlightQuotaTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const int MaxCount = 1_000;
    private const int MaxBytes = 1_048_576;
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);
    private static readonly Dictionary<string, string?> Quota = new()
    {
        ["Sync:MaxHighlightsPerUser"] = MaxCount.ToString(System.Globalization.CultureInfo.InvariantCulture),
        ["Sync:MaxHighlightBytesPerUser"] = MaxBytes.ToString(System.Globalization.CultureInfo.InvariantCulture),
    };

    private readonly SyncServiceDatabase _db;
    private readonly SyncApiFactory _service;

    public HighlightQuotaTests(SyncServiceDatabase db)
    {
        _db = db;
        _service = db.ServiceWith(Quota);
    }

    public void Dispose() => _service.Dispose();

    private static object[] Upserts(string prefix, int count, string text = "t", string? note = null) =>
        Enumerable.Range(0, count).Select(i => Upsert($"{prefix}{i:D4}", text, T0, note: note)).ToArray();

    [Fact]
    public async Task APushPastTheHighlightCountIsRefusedWholeAndStoresNothingWhileDeletionsStillPass()
    {
        var user = _db.NewUser();
        using var device = _service.CreateClient().WithToken(TestTokens.For(user));
        await device.PushAsync(user, Upserts("a", 500));
        await device.PushAsync(user, Upserts("b", 500));

        // An edit of a stored highlight beside two new ones: the two would pass the quota, so none of it lands.
        using var refused = await device.PushRawAsync(user, [Upsert("a0000", "edited", T0.AddMinutes(1)), .. Upserts("c", 2)]);
        var body = await refused.Content.ReadAsStringAsync(TestTimeout.Token);

        Assert.Equal(409, (int)refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        Assert.Contains("at most 1000 highlights", body, StringComparison.Ordinal);
        var stored = await _db.StoredAsync(user);
        Assert.Equal(1_000, stored.Count);
        Assert.StartsWith("t|", stored[$"highlights/users{user}-ebooks/7/a0000"], StringComparison.Ordinal);
        Assert.Equal((1_000L, 1_000L), await HoldingsAsync(user));

        await device.PushAsync(user, Delete("a0000", T0.AddMinutes(2)));
        await device.PushAsync(user, Upserts("c", 1));
        Assert.Equal((1_000L, 1_000L), await HoldingsAsync(user));
        Assert.Equal(1_000, (await _db.StoredAsync(user)).Count(r => r.Value.EndsWith("|f", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task APushPastTheHighlightBytesIsRefusedWholeAndAnEditThatShrinksPasses()
    {
        var user = _db.NewUser();
        using var device = _service.CreateClient().WithToken(TestTokens.For(user));
        var large = new string('x', 10_000);

        using var tooMuch = await device.PushRawAsync(user, Upserts("big", 60, large, large));
        Assert.Equal(409, (int)tooMuch.StatusCode);
        Assert.Contains($"{MaxBytes} bytes per user", await tooMuch.Content.ReadAsStringAsync(TestTimeout.Token), StringComparison.Ordinal);
        Assert.Empty(await _db.StoredAsync(user));

        await device.PushAsync(user, Upserts("big", 50, large, large));
        Assert.Equal((50L, 1_000_000L), await HoldingsAsync(user));
        using var oneMore = await device.PushRawAsync(user, Upserts("more", 3, large, large));
        Assert.Equal(409, (int)oneMore.StatusCode);

        await device.PushAsync(user, Upsert("big0000", "short now", T0.AddMinutes(1), note: null));
        Assert.Equal((50L, 980_009L), await HoldingsAsync(user));
    }

    [Fact]
    public async Task OverGrpcAPushPastTheQuotaIsFailedPreconditionAndStoresNothing()
    {
        var user = _db.NewUser();
        using var host = new SyncGrpcTestHost(_db.ConnectionString, settings: Quota);
        static GrpcChange Change(string key) => new()
        {
            Op = "upsert", BookNo = 7, Key = key, Text = "t", Start = 1, Length = 1, Color = "yellow", ModifiedAt = Timestamp.FromDateTimeOffset(T0),
        };

        await host.Client.PushAsync(user, Enumerable.Range(0, 500).Select(i => Change($"a{i:D4}")).ToArray());
        await host.Client.PushAsync(user, Enumerable.Range(0, 499).Select(i => Change($"b{i:D4}")).ToArray());
        var error = await Assert.ThrowsAsync<RpcException>(() => host.Client.PushAsync(user, Change("c1"), Change("c2")));

        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);
        Assert.Contains("at most 1000 highlights", error.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(999, (await _db.StoredAsync(user)).Count);
        await host.Client.PushAsync(user, Change("c1"));
        Assert.Equal((1_000L, 1_000L), await HoldingsAsync(user));
    }

    private async Task<(long Count, long Bytes)> HoldingsAsync(long user)
    {
        await using var command = _db.DataSource.CreateCommand("SELECT highlight_count, highlight_bytes FROM users WHERE user_no = $1");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        Assert.True(await reader.ReadAsync(TestTimeout.Token));
        return (reader.GetInt64(0), reader.GetInt64(1));
    }
}
