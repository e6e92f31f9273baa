using System.Net.Sockets;
using Kobo.Sync.Storage.Resilience;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage.Resilience;

/// <summary>What a multi-host connection string throws while a cluster has no primary counts as transient: the service answers 503, not 500.</summary>
[Trait("Category", "Fast")]
public sealed class StorageFaultsTests
{
    [Fact]
    public void NoPrimaryInTheHostListIsTransient() =>
        Assert.True(StorageFaults.IsTransient(new NpgsqlException("No suitable host was found.")));

    [Fact]
    public void EveryHostFailingTransientlyIsTransient() =>
        Assert.True(StorageFaults.IsTransient(new NpgsqlException(
            "Unable to connect to a suitable host. Check inner exception for more details.",
            new AggregateException(new NpgsqlException("Failed to connect", new SocketException(111)), new TimeoutException()))));

    [Fact]
    public void AHostFailingForAnotherReasonIsNotTransient() =>
        Assert.False(StorageFaults.IsTransient(new NpgsqlException(
            "Unable to connect to a suitable host. Check inner exception for more details.",
            new AggregateException(new NpgsqlException("Failed to connect", new SocketException(111)), new InvalidOperationException("bad")))));

    [Fact]
    public void AConnectionWhosePreparedStatementsAreOutOfStepWithTheServerIsTransient() =>
        Assert.True(StorageFaults.IsTransient(new PostgresException("prepared statement \"_auto3\" does not exist", "ERROR", "ERROR", "26000")));

    [Fact]
    public void AnotherClientSideErrorIsNotTransient() =>
        Assert.False(StorageFaults.IsTransient(new NpgsqlException("Received unexpected backend message.")));
}
