using System.Globalization;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A pull cut off by its budget while its rows are still arriving leaves its connection as usable as
/// it found it: the next calls on that pooled connection, of any user, are served: pulls over REST
/// and gRPC, and a Kobo e-reader's library sync, whose batch shares statements with the pull.
/// (A cancelled statement in the middle of a batch once left the batch's later statements recorded as
/// prepared on the connection when the server had never prepared them, and every later pull on that
/// connection failed with <c>26000: prepared statement "_autoN" does not exist</c>. The pipelines now
/// also drop such a connection and try again, but here no call may even meet one.)
/// </summary>
public sealed class CancelledReadTests(StalledReadsDatabase db, ITestOutputHelper output) : IClassFixture<StalledReadsDatabase>
{
    [Fact]
    public async Task APullCutOffMidRowsLeavesItsPooledConnectionServingOtherUsersPulls()
    {
        using var host = new SyncGrpcTestHost(
            db.SinglePooledConnection,
            settings: new Dictionary<string, string?> { ["Resilience:RequestBudgetMs"] = "2000" });
        using var rest = new HttpClient { BaseAddress = host.RestAddress };

        const long KoboUser = StalledReadsDatabase.FirstLightUser + 10;
        using var phone = new HttpClient { BaseAddress = host.RestAddress }.WithToken(TestTokens.For(KoboUser, "phone"));
        using var kobo = new KoboReader(new HttpClient { BaseAddress = host.RestAddress }, await phone.LinkAsync(KoboUser));

        // The statements' first run on the connection, then the run that is cut off: whatever the
        // driver prepares on the way is prepared by one of these two.
        Assert.Equal("REST 200", await DevicePulls.RestAsync(rest, StalledReadsDatabase.FirstLightUser, "light"));
        Assert.Equal("REST 503", await DevicePulls.RestAsync(rest, StalledReadsDatabase.StalledUser, "heavy", pageSize: 1000));

        var answers = new List<string>();
        for (var i = 0; i < 6; i++)
        {
            var user = StalledReadsDatabase.FirstLightUser + 1 + i;
            answers.Add(await DevicePulls.RestAsync(rest, user, "light"));
            answers.Add(await DevicePulls.GrpcAsync(host.Client, user, "light"));
            using var sync = await kobo.SendAsync(HttpMethod.Get, "/v1/library/sync");
            answers.Add($"Kobo {(int)sync.StatusCode}");
        }

        output.WriteLine(string.Join(", ", answers));
        Assert.All(answers, a => Assert.True(a is "REST 200" or "gRPC OK" or "Kobo 200", string.Join(", ", answers)));
        // Served, and not by dropping a connection whose statements went out of step and trying again:
        // no call met a statement the server did not have.
        Assert.DoesNotContain(host.Logs.Events, e =>
            e.RenderMessage(CultureInfo.InvariantCulture).Contains("26000", StringComparison.Ordinal)
            || e.Exception?.ToString().Contains("26000", StringComparison.Ordinal) == true);
    }
}
