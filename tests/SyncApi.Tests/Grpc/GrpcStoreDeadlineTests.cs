using System.Diagnostics;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Interop;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// A call's deadline reaches the database: with the users table locked by another transaction the
/// service's SELECT waits, the deadline passes, the caller gets DEADLINE_EXCEEDED promptly and the
/// SELECT is cancelled on the server rather than left waiting for the lock. For Grpc.Net.Client
/// and both independent clients, on a database of this class's own.
/// </summary>
public sealed class GrpcStoreDeadlineTests(ServiceOnOwnDatabase database) : IClassFixture<ServiceOnOwnDatabase>
{
    private const string GetUser = "kobo.sync.v1.SyncService/GetUser";
    private const long User = 12;

    [Fact]
    public Task TheGrpcNetClientsDeadlineCancelsTheBlockedDatabaseCommand() => AssertTheDeadlineCancelsTheCommandAsync(
        TimeSpan.FromSeconds(2),
        async () =>
        {
            var error = await Assert.ThrowsAsync<RpcException>(() => GetUserAsync(DateTime.UtcNow.AddMilliseconds(300)));
            return ((int)error.StatusCode, error.Status.ToString());
        });

    private async Task<User> GetUserAsync(DateTime? deadline = null) =>
        await database.Host.Client.Sync.GetUserAsync(
            new GetUserRequest { UserNo = User }, GrpcTestClient.ToMetadata(As(User)), deadline, TestTimeout.Token);

    [NodeInteropFact]
    public Task TheNodeClientsDeadlineCancelsTheBlockedDatabaseCommand() => InteropDeadlineAsync(InteropClient.Node);

    [PythonInteropFact]
    public Task ThePythonClientsDeadlineCancelsTheBlockedDatabaseCommand() => InteropDeadlineAsync(InteropClient.Python);

    // The client process starts inside the measured time, hence the looser bound. Its deadline also
    // covers its connection set-up, so it gets a second: on a loaded machine 300 ms could be spent
    // before the SELECT reaches the lock, and the test would not see it wait.
    private Task InteropDeadlineAsync(InteropClient client) => AssertTheDeadlineCancelsTheCommandAsync(
        TimeSpan.FromSeconds(5),
        async () =>
        {
            var result = await client.CallAsync(database.Host.Target, GetUser, $$"""{"user_no":{{User}}}""", As(User), deadlineMs: 1000);
            return (result.Code, result.ToString());
        });

    private async Task AssertTheDeadlineCancelsTheCommandAsync(TimeSpan within, Func<Task<(int Code, string Status)>> call)
    {
        // The service migrates this class's fresh database after it starts, and says UNAVAILABLE until
        // then. Once it is ready, one call before the lock (no users here: NOT_FOUND) opens the first
        // connection and compiles the path, so the deadline below is spent waiting on the lock.
        using (var rest = new HttpClient { BaseAddress = database.Host.RestAddress })
        {
            Assert.True(await Readiness.BecomesReadyAsync(rest, TimeSpan.FromSeconds(30)), "the service was not ready within 30 s");
        }

        var warm = await Assert.ThrowsAsync<RpcException>(() => GetUserAsync());
        Assert.Equal(StatusCode.NotFound, warm.StatusCode);

        await using var locked = await TableLock.TakeAsync(database, "users");
        Assert.Empty(await locked.WaitingStatementsAsync());
        var status = TimedAsync(call);

        var sawTheSelectWait = await locked.SawAStatementWaitingWhileAsync(status, within);

        Assert.True(status.IsCompleted, $"no answer within {within} while the lock is held");
        var (answer, elapsed) = await status;
        Assert.True(answer.Code == (int)StatusCode.DeadlineExceeded, $"after {elapsed}: {answer.Status}");
        Assert.True(elapsed < within, $"DEADLINE_EXCEEDED took {elapsed}");
        Assert.True(sawTheSelectWait, "the service's SELECT reached the database and waited on the lock");
        var stillWaiting = await locked.StillWaitingAfterAsync(TimeSpan.FromSeconds(5));
        Assert.True(stillWaiting.Count == 0, $"cancelled, not left waiting on the lock: {string.Join(" | ", stillWaiting)}");
    }

    private static async Task<((int Code, string Status) Answer, TimeSpan Elapsed)> TimedAsync(Func<Task<(int Code, string Status)>> call)
    {
        var clock = Stopwatch.StartNew();
        var answer = await call();
        return (answer, clock.Elapsed);
    }
}
