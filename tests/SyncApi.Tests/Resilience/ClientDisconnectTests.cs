using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A device that hangs up stops its database work: with the users table locked the service's SELECT
/// waits; the client disconnects; the SELECT is cancelled on the server instead of waiting for the
/// lock (the request budget here is far longer than the test, so only the disconnect can end it).
/// </summary>
public sealed class ClientDisconnectTests(ClientDisconnectTests.LongBudget service) : IClassFixture<ClientDisconnectTests.LongBudget>
{
    public sealed class LongBudget : ServiceBehindFaultProxy
    {
        protected override IReadOnlyDictionary<string, string?> ExtraSettings => new Dictionary<string, string?>
        {
            ["Resilience:RequestBudgetMs"] = "60000",
        };
    }

    [Fact]
    public async Task AnHttpClientDisconnectCancelsTheBlockedDatabaseCommand()
    {
        await using var locked = await TableLock.TakeAsync(service, "users");
        using var hangUp = new CancellationTokenSource();
        var call = service.Rest.SendAsync(DeviceRequests.GetUser(12), hangUp.Token);

        var sawTheSelectWait = await SeenWaitingAsync(locked, TimeSpan.FromSeconds(10));
        Assert.True(sawTheSelectWait, "the service's SELECT reached the database and waited on the lock");
        Assert.False(call.IsCompleted, "the request was still waiting when the client hung up");

        await hangUp.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => call);

        var stillWaiting = await locked.StillWaitingAfterAsync(TimeSpan.FromSeconds(5));
        Assert.True(stillWaiting.Count == 0, $"cancelled, not left waiting on the lock: {string.Join(" | ", stillWaiting)}");
    }

    /// <summary>True as soon as a statement is seen waiting on the lock; false after <paramref name="within"/>.</summary>
    private static async Task<bool> SeenWaitingAsync(TableLock locked, TimeSpan within)
    {
        var until = DateTime.UtcNow + within;
        while (DateTime.UtcNow < until)
        {
            if ((await locked.WaitingStatementsAsync()).Count > 0)
            {
                return true;
            }

            await Task.Delay(20);
        }

        return false;
    }
}
