using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Tests.Resilience;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Storage.Resilience;

/// <summary>The cancellers are shared by the process: alone, so other classes' faults do not hold them.</summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class DatabaseCancellationTests
{
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(5);

    [Fact]
    public async Task TheCommandsTokenIsCancelledOnACancellerThreadNotOnTheThreadThatCancels()
    {
        using var request = new CancellationTokenSource();
        using var command = DatabaseCancellation.Detach(request.Token);
        var cancelledOn = new TaskCompletionSource<string?>(TaskCreationOptions.RunContinuationsAsynchronously);
        using var _ = command.Token.Register(() => cancelledOn.TrySetResult(Thread.CurrentThread.Name));

        await request.CancelAsync();

        var thread = await cancelledOn.Task.WaitAsync(Settle);
        Assert.StartsWith("db-cancel-", thread, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ACancellerHeldByAnUnreachableServerDoesNotStopTheOthers()
    {
        var held = new ManualResetEventSlim();
        using var stuck = new CancellationTokenSource();
        stuck.Token.Register(() => held.Wait(Settle));
        try
        {
            DatabaseCancellation.CancelSoon(stuck);
            using var request = new CancellationTokenSource();
            using var command = DatabaseCancellation.Detach(request.Token);

            await request.CancelAsync();

            await Task.Delay(Timeout.Infinite, command.Token).ContinueWith(_ => { }).WaitAsync(Settle);
            Assert.True(command.Token.IsCancellationRequested);
        }
        finally
        {
            held.Set();
        }
    }

    [Fact]
    public async Task AScopeDisposedRightAfterTheRequestsCancellationStillCancelsItsCommand()
    {
        // The request's wait can end on its cancellation and dispose the scope, on the cancelling
        // thread, before the scope's own link has run: the command must be cancelled all the same.
        using var request = new CancellationTokenSource();
        var command = DatabaseCancellation.Detach(request.Token);
        var token = command.Token;
        request.Token.Register(() => command.Dispose());

        await request.CancelAsync();

        await Task.Delay(Timeout.Infinite, token).ContinueWith(_ => { }).WaitAsync(Settle);
        Assert.True(token.IsCancellationRequested);
    }

    [Fact]
    public void AScopeDisposedBeforeAnyCancellationLeavesItsTokenUncancelled()
    {
        using var request = new CancellationTokenSource();
        var command = DatabaseCancellation.Detach(request.Token);
        var token = command.Token;

        command.Dispose();
        request.Cancel();

        Assert.False(token.IsCancellationRequested);
    }

    [Fact]
    public void ThePoolKeepsAThreadSpareForEveryCancellerACommandMayWaitOn()
    {
        using var scope = DatabaseCancellation.Detach(CancellationToken.None); // the first use starts the cancellers

        ThreadPool.GetMinThreads(out var workers, out _);

        Assert.True(workers >= Environment.ProcessorCount + DatabaseCancellation.Cancellers, $"minimum {workers} worker threads");
    }

    [Fact]
    public void AnUncancellableRequestGivesAnUncancellableCommand()
    {
        using var command = DatabaseCancellation.Detach(CancellationToken.None);

        Assert.False(command.Token.CanBeCanceled);
    }
}
