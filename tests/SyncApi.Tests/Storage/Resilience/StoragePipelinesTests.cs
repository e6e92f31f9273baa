using Kobo.Sync.Storage.Resilience;
using Microsoft.Extensions.Options;
using Npgsql;
using Polly.CircuitBreaker;

namespace Kobo.Sync.SyncApi.Tests.Storage.Resilience;

/// <summary>What each storage pipeline retries, when it gives up, and when the circuit cuts calls off.</summary>
[Trait("Category", "Fast")]
public sealed class StoragePipelinesTests
{
    private static readonly NpgsqlException ConnectionLost = new("Exception while reading from stream", new IOException("connection reset"));
    private static readonly PostgresException UniqueViolation = new("duplicate key", "ERROR", "ERROR", "23505");
    private static readonly PostgresException StatementsOutOfStep = new("prepared statement \"_auto3\" does not exist", "ERROR", "ERROR", "26000");

    private readonly RecordedEvents _events = new();

    [Theory]
    [InlineData(StoragePipelines.PointRead)]
    [InlineData(StoragePipelines.RangeRead)]
    [InlineData(StoragePipelines.IdempotentWrite)]
    public async Task ReadsAndReplaySafeWritesAreRetriedAfterATransientFailure(string pipeline)
    {
        var attempts = 0;
        // A budget no busy machine runs out of: what is checked is the retry, not the time it takes.
        var result = await Pipelines(new ResilienceOptions { RequestBudgetMs = 30_000 }).RunAsync(pipeline, 0, (_, _) =>
            ++attempts == 1 ? Task.FromException<int>(ConnectionLost) : Task.FromResult(42), CancellationToken.None);

        Assert.Equal(42, result);
        Assert.Equal(2, attempts);
        Assert.Single(_events.Retries, r => r == pipeline);
    }

    [Fact]
    public async Task AWriteIsNeverRetriedAndAConnectionFailureBecomesStorageUnavailable()
    {
        var attempts = 0;
        var error = await Assert.ThrowsAsync<StorageUnavailableException>(() => Pipelines().RunAsync(StoragePipelines.Write, 0, (_, _) =>
        {
            attempts++;
            return Task.FromException<int>(ConnectionLost);
        }, CancellationToken.None));

        Assert.Equal(1, attempts);
        Assert.True(error.RetryAfter > TimeSpan.Zero);
        Assert.Empty(_events.Retries);
    }

    [Fact]
    public async Task AnErrorInTheStatementIsNeitherRetriedNorTurnedInto503()
    {
        var attempts = 0;
        await Assert.ThrowsAsync<PostgresException>(() => Pipelines().RunAsync(StoragePipelines.PointRead, 0, (_, _) =>
        {
            attempts++;
            return Task.FromException<int>(UniqueViolation);
        }, CancellationToken.None));

        Assert.Equal(1, attempts);
    }

    [Fact]
    public async Task ACallThatOutlivesTheRequestBudgetIsAbandonedAsStorageUnavailable()
    {
        var pipelines = Pipelines(new ResilienceOptions { RequestBudgetMs = 100 });
        var ignoresCancellation = new TaskCompletionSource<int>();

        await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync(
            StoragePipelines.PointRead, 0, (_, _) => ignoresCancellation.Task, CancellationToken.None));
        ignoresCancellation.SetResult(0);
    }

    [Fact]
    public async Task TheCallersOwnCancellationStaysACancellation()
    {
        using var gone = new CancellationTokenSource();
        var call = Pipelines().RunAsync(StoragePipelines.PointRead, 0, async (_, token) =>
        {
            await Task.Delay(Timeout.Infinite, token);
            return 0;
        }, gone.Token);
        await gone.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => call);
    }

    [Fact]
    public async Task RepeatedFailuresOpenTheCircuitAndThenCallsFailWithoutReachingTheDatabase()
    {
        var pipelines = Pipelines(new ResilienceOptions { RetryAttempts = 0, BreakerMinimumThroughput = 4, BreakerBreakMs = 5000 });
        var attempts = 0;
        Task<int> Failing(int _, CancellationToken __)
        {
            attempts++;
            return Task.FromException<int>(ConnectionLost);
        }

        for (var i = 0; i < 4; i++)
        {
            await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync(StoragePipelines.Write, 0, Failing, CancellationToken.None));
        }

        Assert.Equal(CircuitState.Open, pipelines.Breaker.CircuitState);
        Assert.Equal(1, _events.Opened);
        var refused = await Assert.ThrowsAsync<StorageUnavailableException>(() =>
            pipelines.RunAsync(StoragePipelines.PointRead, 0, Failing, CancellationToken.None));
        Assert.Equal(4, attempts); // the fifth call never ran
        Assert.IsType<BrokenCircuitException>(refused.InnerException);
        Assert.True(refused.RetryAfter > TimeSpan.Zero && refused.RetryAfter <= TimeSpan.FromSeconds(5));
    }

    [Fact]
    public async Task BudgetOverrunsOfCallsSizedByTheCallerLeaveTheCircuitClosed()
    {
        var pipelines = Pipelines(new ResilienceOptions { RequestBudgetMs = 50, RetryAttempts = 0, BreakerMinimumThroughput = 2, BreakerBreakMs = 60_000 });

        for (var i = 0; i < 6; i++)
        {
            await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync(
                StoragePipelines.PrimaryRead, CallCost.CallerShaped, 0, NeverAnswering, CancellationToken.None));
        }

        Assert.Equal(CircuitState.Closed, pipelines.Breaker.CircuitState);
        Assert.Equal(0, _events.Opened);
        Assert.Equal(7, await pipelines.RunAsync(StoragePipelines.PrimaryRead, 7, static (n, _) => Task.FromResult(n), CancellationToken.None));
    }

    [Fact]
    public async Task BudgetOverrunsOfCallsTheServiceBoundsStillOpenTheCircuit()
    {
        var pipelines = Pipelines(new ResilienceOptions { RequestBudgetMs = 50, RetryAttempts = 0, BreakerMinimumThroughput = 2, BreakerBreakMs = 60_000 });

        for (var i = 0; i < 2; i++)
        {
            await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync(
                StoragePipelines.PrimaryRead, CallCost.Bounded, 0, NeverAnswering, CancellationToken.None));
        }

        Assert.Equal(CircuitState.Open, pipelines.Breaker.CircuitState);
    }

    [Fact]
    public async Task ACallSizedByTheCallerIsRefusedWithoutRunningWhileTheCircuitIsOpen()
    {
        var pipelines = Pipelines(new ResilienceOptions { RetryAttempts = 0, BreakerMinimumThroughput = 2, BreakerBreakMs = 60_000 });
        for (var i = 0; i < 2; i++)
        {
            await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync<int, int>(
                StoragePipelines.Write, 0, static (_, _) => Task.FromException<int>(ConnectionLost), CancellationToken.None));
        }

        var ran = false;
        var refused = await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync(
            StoragePipelines.Write, CallCost.CallerShaped, 0, (n, _) =>
            {
                ran = true;
                return Task.FromResult(n);
            },
            CancellationToken.None));

        Assert.False(ran);
        Assert.True(refused.RetryAfter > TimeSpan.Zero);
    }

    [Fact]
    public async Task AReadOnAConnectionWhoseStatementsAreOutOfStepDropsThePooledConnectionsAndIsTriedAgain()
    {
        var dropped = 0;
        var pipelines = Pipelines(dropConnections: () => dropped++);
        var attempts = 0;

        var result = await pipelines.RunAsync(StoragePipelines.PrimaryRead, 0, (_, _) =>
            ++attempts == 1 ? Task.FromException<int>(StatementsOutOfStep) : Task.FromResult(42), CancellationToken.None);

        Assert.Equal(42, result);
        Assert.Equal(1, dropped);
    }

    [Fact]
    public async Task AWriteOnAConnectionWhoseStatementsAreOutOfStepIsUnavailableNotAnErrorAndDropsThePooledConnections()
    {
        var dropped = 0;
        var pipelines = Pipelines(dropConnections: () => dropped++);

        var error = await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync(
            StoragePipelines.Write, 0, static (_, _) => Task.FromException<int>(StatementsOutOfStep), CancellationToken.None));

        Assert.True(error.RetryAfter > TimeSpan.Zero);
        Assert.Equal(1, dropped);
    }

    [Theory]
    [InlineData(1, CallCost.Bounded)]
    [InlineData(CallCosts.BoundedRows, CallCost.Bounded)]
    [InlineData(CallCosts.BoundedRows + 1, CallCost.CallerShaped)]
    [InlineData(1001, CallCost.CallerShaped)]
    public void APageOrPushLargerThanADefaultPageIsSizedByTheCaller(int rows, CallCost expected) =>
        Assert.Equal(expected, CallCosts.OfRows(rows));

    private static async Task<int> NeverAnswering(int state, CancellationToken cancellationToken)
    {
        await Task.Delay(Timeout.Infinite, cancellationToken);
        return state;
    }

    private StoragePipelines Pipelines(ResilienceOptions? options = null, Action? dropConnections = null) =>
        new(Options.Create(options ?? new ResilienceOptions()), _events, TimeProvider.System, dropConnections: dropConnections);

    private sealed class RecordedEvents : IResilienceEvents
    {
        public List<string> Retries { get; } = [];

        public int Opened { get; private set; }

        public void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure) => Retries.Add(pipeline);

        public void TimedOut(string pipeline)
        {
        }

        public void CircuitOpened(TimeSpan breakDuration, Exception? failure) => Opened++;

        public void CircuitHalfOpened()
        {
        }

        public void CircuitClosed()
        {
        }
    }
}
