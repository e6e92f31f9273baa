using System.Collections.Concurrent;
using System.Diagnostics;
using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage.Coalescing;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage.Coalescing;

public sealed class ReadCoalescerTests(DemoDatabase db) : IClassFixture<DemoDatabase>
{
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(5);

    [Fact]
    public async Task ConcurrentReadsEachGetTheirOwnResultInFewerRoundTripsThanReads()
    {
        var coalescer = new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 });
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(coalescer), TestPipelines.Default());
        var users = Enumerable.Range(1, 200).Select(n => new UserNo(n)).ToArray();

        var found = await Task.WhenAll(users.Select(u => store.FindUserAsync(u, TestTimeout.Token)));
        var pages = await Task.WhenAll(users.Select(u => store.ListHighlightsAsync(u, HighlightRange.ForUser(u), 3, TestTimeout.Token)));

        var direct = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchSize = 1 })), TestPipelines.Default());
        for (var i = 0; i < users.Length; i++)
        {
            Assert.Equal(users[i].Value, found[i]!.UserNo);
            Assert.Equal(await direct.FindUserAsync(users[i], TestTimeout.Token), found[i]);
            Assert.Equal(
                await direct.ListHighlightsAsync(users[i], HighlightRange.ForUser(users[i]), 3, TestTimeout.Token),
                pages[i]);
        }

        Assert.True(coalescer.BatchesSent < 2 * users.Length, $"{coalescer.BatchesSent} round trips for {2 * users.Length} reads");
    }

    [Fact]
    public async Task AnUnknownUserInABatchIsNullAndDoesNotDisturbItsNeighbours()
    {
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 })), TestPipelines.Default());
        var unknown = new UserNo(DemoData.UserCount + 5);

        var results = await Task.WhenAll(
            store.FindUserAsync(new UserNo(12), TestTimeout.Token),
            store.FindUserAsync(unknown, TestTimeout.Token),
            store.FindUserAsync(new UserNo(123), TestTimeout.Token));

        Assert.Equal(12, results[0]!.UserNo);
        Assert.Null(results[1]);
        Assert.Equal(123, results[2]!.UserNo);
    }

    [Fact]
    public async Task ACallerThatGivesUpReturnsAtOnceWhileTheOthersInItsBatchGetTheirResults()
    {
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 })), TestPipelines.Default());
        Task<UserView?> first, kept, abandoned;
        using var giveUp = new CancellationTokenSource();
        await using (var tableLock = await TableLock.TakeAsync(db, "users"))
        {
            first = store.FindUserAsync(new UserNo(1), TestTimeout.Token);
            Assert.True(await tableLock.SawAStatementWaitingWhileAsync(first, Settle), "the first read never reached the lock");
            kept = store.FindUserAsync(new UserNo(2), TestTimeout.Token);
            abandoned = store.FindUserAsync(new UserNo(3), giveUp.Token);

            await giveUp.CancelAsync();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => abandoned).WaitAsync(Settle);
            Assert.False(first.IsCompleted);
            Assert.False(kept.IsCompleted);
        }

        Assert.Equal(1, (await first.WaitAsync(Settle))!.UserNo);
        Assert.Equal(2, (await kept.WaitAsync(Settle))!.UserNo);
    }

    [Fact]
    public async Task ABatchWhoseCallersHaveAllGivenUpIsCancelledInTheServer()
    {
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 })), TestPipelines.Default());
        await using var tableLock = await TableLock.TakeAsync(db, "users");
        using var giveUp = new CancellationTokenSource();

        var read = store.FindUserAsync(new UserNo(1), giveUp.Token);
        Assert.True(await tableLock.SawAStatementWaitingWhileAsync(read, Settle), "the read never reached the lock");
        await giveUp.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => read).WaitAsync(Settle);
        Assert.Empty(await tableLock.StillWaitingAfterAsync(Settle));
    }

    [Fact]
    public async Task AReadAfterACancelledBatchIsServed()
    {
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 })), TestPipelines.Default());
        using (var giveUp = new CancellationTokenSource())
        await using (var tableLock = await TableLock.TakeAsync(db, "users"))
        {
            var read = store.FindUserAsync(new UserNo(1), giveUp.Token);
            Assert.True(await tableLock.SawAStatementWaitingWhileAsync(read, Settle), "the read never reached the lock");
            await giveUp.CancelAsync();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => read).WaitAsync(Settle);
        }

        Assert.Equal(7, (await store.FindUserAsync(new UserNo(7), TestTimeout.Token).WaitAsync(Settle))!.UserNo);
    }

    [Fact]
    public async Task ACallerIsAnsweredOnlyOnceItsBatchHasBeenReadToTheEndAndItsCommandSpanHasEnded()
    {
        using var test = new ActivitySource("Kobo.Sync.Tests.Coalescing");
        var ended = new ConcurrentQueue<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name is "Npgsql" || source == test,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = ended.Enqueue,
        };
        ActivitySource.AddActivityListener(listener);
        var coalescer = new ReadCoalescer(db.DataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 });

        using var request = test.StartActivity("request");
        // The first read holds the only batch slot, so the next two leave together once it is let go.
        var opener = new GatedRead();
        var openerTask = coalescer.ReadAsync(opener, TestTimeout.Token);
        await opener.Entered.Task.WaitAsync(Settle);
        var early = new GatedRead(gated: false);
        var late = new GatedRead();
        var earlyTask = coalescer.ReadAsync(early, TestTimeout.Token);
        var lateTask = coalescer.ReadAsync(late, TestTimeout.Token);
        opener.Gate.SetResult();
        await late.Entered.Task.WaitAsync(Settle);

        // The early read's row has been read, but its batch is still open: its caller must still be waiting.
        Assert.False(earlyTask.IsCompleted, "a caller was answered while its batch's command was still running");
        late.Gate.SetResult();

        Assert.Equal(1, await earlyTask.WaitAsync(Settle));
        var commands = ended.Where(a => a.Source.Name == "Npgsql" && a.TraceId == request!.TraceId).ToList();
        Assert.Equal(2, commands.Count);
        Assert.Equal(1, await lateTask.WaitAsync(Settle));
        Assert.Equal(1, await openerTask.WaitAsync(Settle));
    }

    [Fact]
    public async Task ADatabaseErrorFailsEveryReadOfTheBatchWithThatError()
    {
        var missing = new NpgsqlConnectionStringBuilder(db.ConnectionString) { Database = "no_such_database" };
        await using var dataSource = NpgsqlDataSource.Create(missing.ConnectionString);
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(dataSource, new ReadCoalescingOptions { MaxBatchesInFlight = 1 })), TestPipelines.Default());

        var reads = Enumerable.Range(1, 5).Select(n => store.FindUserAsync(new UserNo(n), TestTimeout.Token)).ToArray();

        foreach (var read in reads)
        {
            var error = await Assert.ThrowsAsync<PostgresException>(() => read).WaitAsync(Settle);
            Assert.Equal(PostgresErrorCodes.InvalidCatalogName, error.SqlState);
        }
    }

    /// <summary>A one-row read that, when gated, waits inside its result set until the test lets it go.</summary>
    private sealed class GatedRead(bool gated = true) : CoalescedRead<int>
    {
        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Gate { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public override string Operation => "gated";

        public override NpgsqlBatchCommand CreateCommand() => new("SELECT 1");

        protected override async Task<int> ReadResultAsync(NpgsqlDataReader reader, CancellationToken cancellationToken)
        {
            Assert.True(await reader.ReadAsync(cancellationToken));
            Entered.SetResult();
            if (gated)
            {
                await Gate.Task.WaitAsync(cancellationToken);
            }

            return reader.GetInt32(0);
        }
    }
}
