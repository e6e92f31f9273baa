using Kobo.Sync.SyncApi.Tests.Support.Faults;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Connections to the database cut while a read is on the wire: the read is retried on a new
/// connection within the request's budget and the device gets its answer, not an error.
/// </summary>
public sealed class ConnectionDropTests(ConnectionDropTests.RoomyBudget service) : IClassFixture<ConnectionDropTests.RoomyBudget>
{
    public sealed class RoomyBudget : ServiceBehindFaultProxy
    {
        protected override IReadOnlyDictionary<string, string?> ExtraSettings => new Dictionary<string, string?>
        {
            ["Resilience:RequestBudgetMs"] = "8000",
        };
    }

    [Fact]
    public async Task AReadWhoseConnectionIsDroppedMidRequestIsRetriedAndAnswered()
    {
        Assert.Equal(404, (await RestGetUserAsync(service.Rest, ServiceBehindFaultProxy.UnknownUser)).Status);
        service.Proxy.Latency = TimeSpan.FromMilliseconds(200);
        try
        {
            var read = RestGetUserAsync(service.Rest, ServiceBehindFaultProxy.UnknownUser);
            await Task.Delay(80);
            Assert.True(service.Proxy.OpenConnections > 0);
            service.Proxy.DropAll();

            var answer = await read;

            Assert.Equal(404, answer.Status);
            Assert.Contains(service.Factory.Logs.Events, e => e.MessageTemplate.Text.StartsWith("Storage call {Pipeline} retrying", StringComparison.Ordinal));
        }
        finally
        {
            await service.HealAsync();
        }
    }
}
