using Kobo.Sync.DeviceSimulator.Engine;

namespace Kobo.Sync.DeviceSimulator.Tests.Support;

/// <summary>A run clock that moves only when the test moves it, waking whatever waits on the instants passed.</summary>
public sealed class ManualRunClock : IRunClock
{
    private readonly Lock _lock = new();
    private readonly List<(TimeSpan At, TaskCompletionSource Done)> _waiters = [];
    private TimeSpan _now;

    public TimeSpan Elapsed
    {
        get
        {
            lock (_lock)
            {
                return _now;
            }
        }
    }

    public ValueTask WaitUntilAsync(TimeSpan at, CancellationToken cancellationToken)
    {
        lock (_lock)
        {
            if (at <= _now)
            {
                return ValueTask.CompletedTask;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((at, done));
            return new ValueTask(done.Task);
        }
    }

    /// <summary>Moves time forward in small steps, letting woken work run (on the thread pool) after each.</summary>
    public async Task AdvanceAsync(TimeSpan by, TimeSpan step)
    {
        var end = Elapsed + by;
        while (Elapsed < end)
        {
            List<TaskCompletionSource> due;
            lock (_lock)
            {
                _now += step;
                due = _waiters.Where(w => w.At <= _now).Select(w => w.Done).ToList();
                _waiters.RemoveAll(w => w.At <= _now);
            }

            foreach (var waiter in due)
            {
                waiter.SetResult();
            }

            await Task.Delay(3);
        }
    }
}
