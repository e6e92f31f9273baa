using System.Diagnostics;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// Device calls at a fixed rate, as an open model: each call leaves on its schedule whether or not
/// the earlier ones have been answered, so a slow service meets the same load a fast one does.
/// </summary>
public static class SteadyArrivals
{
    /// <summary>
    /// Sends call i at i x <paramref name="every"/> from now for as long as <paramref name="more"/>
    /// (given the call's number and the time so far) holds, then waits for every answer.
    /// <paramref name="send"/> gets the call's number and the time it left.
    /// </summary>
    public static async Task<T[]> SendAsync<T>(TimeSpan every, Func<int, TimeSpan, bool> more, Func<int, TimeSpan, Task<T>> send)
    {
        var clock = Stopwatch.StartNew();
        var calls = new List<Task<T>>();
        for (var i = 0; more(i, clock.Elapsed); i++)
        {
            var due = every * i;
            if (due > clock.Elapsed)
            {
                await Task.Delay(due - clock.Elapsed);
            }

            calls.Add(send(i, clock.Elapsed));
        }

        return await Task.WhenAll(calls);
    }
}
