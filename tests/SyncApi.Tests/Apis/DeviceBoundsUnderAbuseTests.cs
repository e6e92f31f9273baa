using System.Net;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// One user's tokens revoking made-up devices and enrolling new ones as fast as they can, over REST
/// and gRPC: the user's device rows and every instance's revocation list stay within the device limit,
/// and once a token's lifetime has passed the revocations are gone from the store and from memory.
/// </summary>
public sealed class DeviceBoundsUnderAbuseTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private const int MaxDevices = 5;
    private readonly SyncServiceDatabase _db;
    private readonly ShiftedClock _clock = new();
    private readonly SyncGrpcTestHost _host;
    private readonly HttpClient _rest;

    public DeviceBoundsUnderAbuseTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(
            db.ConnectionString,
            services => services.AddSingleton<TimeProvider>(_clock),
            new Dictionary<string, string?>
            {
                ["Sync:MaxDevicesPerUser"] = MaxDevices.ToString(System.Globalization.CultureInfo.InvariantCulture),
                ["Sync:RevocationRefreshSeconds"] = "1",
                ["Sync:PurgeIntervalSeconds"] = "1",
                ["Auth:MaxTokenLifetimeHours"] = "1",
            });
        _rest = new HttpClient { BaseAddress = _host.RestAddress };
    }

    public void Dispose()
    {
        _rest.Dispose();
        _host.Dispose();
    }

    private DeviceRevocationList Revocations => _host.Services.GetRequiredService<DeviceRevocationList>();

    [Fact]
    public async Task MadeUpRevocationsAndEndlessNewDevicesLeaveRowsAndMemoryBoundedAndLapsedRevocationsArePurged()
    {
        var user = _db.NewUser();
        var owner = TestTokens.For(user, "owner");
        await PullAsync(user, owner, grpc: false);

        // Thousands of revocations of device ids the service has never seen: refused, nothing kept.
        for (var i = 0; i < 2_000; i++)
        {
            Assert.Equal(HttpStatusCode.NotFound, await RevokeAsync(user, owner, $"made-up-{i}", grpc: i % 4 == 3));
        }

        Assert.Equal(["owner"], await _db.DeviceIdsAsync(user));
        Assert.Equal(0, Revocations.Count);

        // New devices, each enrolled with its own token, pulling and then revoking itself.
        var revoked = 0;
        for (var i = 0; i < 200; i++)
        {
            var device = $"device-{i:D3}";
            var token = TestTokens.For(user, device);
            await PullAsync(user, token, grpc: i % 2 == 1);
            var status = await RevokeAsync(user, token, device, grpc: i % 2 == 0);
            Assert.True(status is HttpStatusCode.NoContent or HttpStatusCode.Conflict, $"{device}: {status}");
            revoked += status == HttpStatusCode.NoContent ? 1 : 0;
            if (i % 20 == 19)
            {
                Assert.InRange((await _db.DeviceIdsAsync(user)).Count, 1, MaxDevices);
                Assert.InRange(Revocations.Count, 0, MaxDevices - 1);
            }
        }

        // And new devices ten at a time, over both protocols: they cannot race past the limit.
        for (var wave = 0; wave < 4; wave++)
        {
            await Task.WhenAll(Enumerable.Range(wave * 10, 10).Select(i => PullAsync(user, TestTokens.For(user, $"burst-{i:D2}"), grpc: i % 2 == 0)));
            Assert.InRange((await _db.DeviceIdsAsync(user)).Count, 1, MaxDevices);
        }

        await PullAsync(user, TestTokens.For(user, "last"), grpc: false);

        Assert.Equal(MaxDevices - 1, revoked);
        Assert.Equal(MaxDevices, (await _db.DeviceIdsAsync(user)).Count);
        Assert.Equal(MaxDevices - 1, await RevokedRowsAsync(user));
        Assert.Equal(MaxDevices - 1, Revocations.Count);

        // A token lives at most an hour (plus the 30 s skew): after that the revocations have lapsed.
        _clock.Advance(TimeSpan.FromHours(1) + TimeSpan.FromMinutes(1));

        var deadline = DateTime.UtcNow.AddSeconds(20);
        while ((await RevokedRowsAsync(user) > 0 || Revocations.Count > 0) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(200, TestTimeout.Token);
        }

        Assert.Equal(0, await RevokedRowsAsync(user));
        Assert.Equal(0, Revocations.Count);
        // The revoked devices never came back, so they are forgotten; the last device stays.
        Assert.Equal(["last"], await _db.DeviceIdsAsync(user));
    }

    private async Task PullAsync(long user, string token, bool grpc)
    {
        if (grpc)
        {
            await _host.Client.UnaryAsync(
                Service, "PullChanges", new PullChangesRequest { UserNo = user }, PullChangesResponse.Parser,
                metadata: [new("authorization", $"Bearer {token}")], cancellationToken: TestTimeout.Token);
            return;
        }

        using var request = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{user}/changes");
        request.Headers.Authorization = new("Bearer", token);
        using var response = await _rest.SendAsync(request, TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"{(int)response.StatusCode} {await response.Content.ReadAsStringAsync(TestTimeout.Token)}");
    }

    /// <summary>The REST status of a revocation; a gRPC one is translated to the REST status it stands for.</summary>
    private async Task<HttpStatusCode> RevokeAsync(long user, string token, string device, bool grpc)
    {
        if (!grpc)
        {
            using var request = new HttpRequestMessage(HttpMethod.Delete, $"/v1/users/{user}/devices/{device}");
            request.Headers.Authorization = new("Bearer", token);
            using var response = await _rest.SendAsync(request, TestTimeout.Token);
            return response.StatusCode;
        }

        try
        {
            await _host.Client.UnaryAsync(
                Service, "RevokeDevice", new RevokeDeviceRequest { UserNo = user, DeviceId = device }, RevokeDeviceResponse.Parser,
                metadata: [new("authorization", $"Bearer {token}")], cancellationToken: TestTimeout.Token);
            return HttpStatusCode.NoContent;
        }
        catch (RpcException error) when (error.StatusCode is StatusCode.NotFound or StatusCode.FailedPrecondition)
        {
            return error.StatusCode == StatusCode.NotFound ? HttpStatusCode.NotFound : HttpStatusCode.Conflict;
        }
    }

    private async Task<long> RevokedRowsAsync(long user)
    {
        await using var command = _db.DataSource.CreateCommand("SELECT count(*) FROM devices WHERE user_no = $1 AND revoked_at IS NOT NULL");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
