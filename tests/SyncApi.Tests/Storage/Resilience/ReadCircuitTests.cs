using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Npgsql;
using Polly.CircuitBreaker;

namespace Kobo.Sync.SyncApi.Tests.Storage.Resilience;

/// <summary>
/// With a read source of its own (the standbys), a primary that is gone (a failover) opens the
/// primary's circuit only: the lag-tolerant reads keep going to the standbys. With one source, one circuit.
/// </summary>
[Trait("Category", "Fast")]
public sealed class ReadCircuitTests
{
    [Fact]
    public async Task WritesFailingWithoutAPrimaryDoNotCutOffReadsFromTheStandbys()
    {
        var pipelines = Pipelines(separateReadSource: true);
        await FailWritesUntilTheCircuitOpensAsync(pipelines);

        Assert.Equal(CircuitState.Open, pipelines.Breaker.CircuitState);
        Assert.Equal(CircuitState.Closed, pipelines.ReadBreaker.CircuitState);
        Assert.Equal(12, await pipelines.RunAsync(StoragePipelines.PointRead, 12, static (n, _) => Task.FromResult(n), CancellationToken.None));
        await Assert.ThrowsAsync<StorageUnavailableException>(() =>
            pipelines.RunAsync(StoragePipelines.PrimaryRead, 0, static (n, _) => Task.FromResult(n), CancellationToken.None));
    }

    [Fact]
    public async Task WithOneSourceReadsAndWritesShareTheCircuit()
    {
        var pipelines = Pipelines(separateReadSource: false);
        await FailWritesUntilTheCircuitOpensAsync(pipelines);

        Assert.Same(pipelines.Breaker, pipelines.ReadBreaker);
        await Assert.ThrowsAsync<StorageUnavailableException>(() =>
            pipelines.RunAsync(StoragePipelines.PointRead, 12, static (n, _) => Task.FromResult(n), CancellationToken.None));
    }

    private static StoragePipelines Pipelines(bool separateReadSource) => new(
        Options.Create(new ResilienceOptions { BreakerMinimumThroughput = 2, BreakerBreakMs = 60_000, RetryAttempts = 0 }),
        new LoggingResilienceEvents(NullLogger<LoggingResilienceEvents>.Instance),
        TimeProvider.System,
        separateReadSource);

    private static async Task FailWritesUntilTheCircuitOpensAsync(StoragePipelines pipelines)
    {
        for (var i = 0; i < 4; i++)
        {
            await Assert.ThrowsAsync<StorageUnavailableException>(() => pipelines.RunAsync<int, int>(
                StoragePipelines.Write, 0, static (_, _) => throw new NpgsqlException("No suitable host was found."), CancellationToken.None));
        }
    }
}
