using Grpc.Core;
using Kobo.Sync.SyncApi.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A pull cut off by its budget while its rows are still arriving leaves its connection as usable as
/// it found it: the next calls on that pooled connection, of any user, over REST and gRPC, are served.
/// (A cancelled statement in the middle of a batch once left the batch's later statements recorded as
/// prepared on the connection when the server had never prepared them, and every later pull on that
/// connection failed with <c>26000: prepared statement "_autoN" does not exist</c>.)
/// </summary>
public sealed class CancelledReadTests(StalledReadsDatabase db, ITestOutputHelper output) : IClassFixture<StalledReadsDatabase>
{
    private const string Service = "kobo.sync.v1.SyncService";

    [Fact]
    public async Task APullCutOffMidRowsLeavesItsPooledConnectionServingOtherUsersPulls()
    {
        using var host = new SyncGrpcTestHost(
            db.SinglePooledConnection,
            settings: new Dictionary<string, string?> { ["Resilience:RequestBudgetMs"] = "1000" });
        using var rest = new HttpClient { BaseAddress = host.RestAddress };

        // The statements' first run on the connection, then the run that is cut off: whatever the
        // driver prepares on the way is prepared by one of these two.
        Assert.Equal(200, await RestPullAsync(rest, StalledReadsDatabase.FirstLightUser));
        Assert.Equal(503, await RestPullAsync(rest, StalledReadsDatabase.StalledUser, pageSize: 1000));

        var answers = new List<string>();
        for (var i = 0; i < 6; i++)
        {
            var user = StalledReadsDatabase.FirstLightUser + 1 + i;
            answers.Add($"REST {await RestPullAsync(rest, user)}");
            answers.Add($"gRPC {await GrpcPullAsync(host, user)}");
        }

        output.WriteLine(string.Join(", ", answers));
        Assert.All(answers, a => Assert.True(a is "REST 200" or "gRPC OK", string.Join(", ", answers)));
        Assert.DoesNotContain(host.Logs.Events, e => e.RenderMessage(System.Globalization.CultureInfo.InvariantCulture).Contains("does not exist", StringComparison.Ordinal)
            || e.Exception?.Message.Contains("26000", StringComparison.Ordinal) == true);
    }

    private static async Task<int> RestPullAsync(HttpClient rest, long user, int? pageSize = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{user}/changes" + (pageSize is { } size ? $"?pageSize={size}" : string.Empty));
        request.Headers.Authorization = new("Bearer", TestTokens.For(user, $"device-{user}"));
        using var response = await rest.SendAsync(request, TestTimeout.Token);
        return (int)response.StatusCode;
    }

    private static async Task<StatusCode> GrpcPullAsync(SyncGrpcTestHost host, long user)
    {
        try
        {
            await host.Client.UnaryAsync(
                Service, "PullChanges", new PullChangesRequest { UserNo = user }, PullChangesResponse.Parser,
                metadata: SyncGrpcTestHost.As(user), cancellationToken: TestTimeout.Token);
            return StatusCode.OK;
        }
        catch (RpcException e)
        {
            return e.StatusCode;
        }
    }
}
