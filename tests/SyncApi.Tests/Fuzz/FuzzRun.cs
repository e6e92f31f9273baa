using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using CsCheck;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Runs generated inputs against the service, a few at a time, and keeps, for each way of failing, the
/// smallest input that failed that way (CsCheck's size: fewer, shorter, simpler values are smaller), so
/// one frequent failure does not hide another and each is shown at its simplest.
/// Seeded: <c>FUZZ_SEED</c> sets the run's seed (printed with every run), <c>FUZZ_SEED=random</c> draws a
/// new one; without it the test command runs the same fixed seed every time, so a red build is the
/// change's and not a newly drawn input's. Input <c>n</c> of a run is always generated from the same
/// random stream, so a reported input can be generated again.
/// <c>FUZZ_SCALE</c> multiplies every input count, for longer runs by hand.
/// </summary>
internal static class FuzzRun
{
    public const string SeedVariable = "FUZZ_SEED";

    /// <summary>The seed of the test command's runs.</summary>
    public const ulong FixedSeed = 20261123;
    public const string ScaleVariable = "FUZZ_SCALE";

    /// <summary>A call that gets no answer in this time counts as a hang.</summary>
    public static readonly TimeSpan CallLimit = TimeSpan.FromSeconds(15);

    public static ulong Seed { get; } = ReadSeed();

    public static int Scaled(int count) =>
        double.TryParse(Environment.GetEnvironmentVariable(ScaleVariable), NumberStyles.Float, CultureInfo.InvariantCulture, out var scale) && scale > 0
            ? Math.Max(1, (int)(count * scale))
            : count;

    /// <summary>
    /// Generates <paramref name="count"/> inputs and runs <paramref name="check"/> on each, at most
    /// <paramref name="concurrency"/> at once. <paramref name="check"/> returns null when the answer was
    /// right, else what was wrong; the failure's kind (the text before the first " | ") groups failures.
    /// </summary>
    public static async Task<FuzzReport> RunAsync<T>(
        string name, Gen<T> gen, Range inputs, Func<T, string> describe, Func<T, CancellationToken, Task<string?>> check, int concurrency = 8)
    {
        var (first, count) = (inputs.Start.Value, inputs.End.Value);
        var salt = Salt(name);
        var failures = new ConcurrentDictionary<string, FuzzFailure>(StringComparer.Ordinal);
        var next = first - 1;
        var clock = Stopwatch.StartNew();
        var workers = Enumerable.Range(0, concurrency).Select(_ => Task.Run(async () =>
        {
            int index;
            while ((index = Interlocked.Increment(ref next)) < count)
            {
                var value = gen.Generate(new PCG((uint)index, Seed ^ salt), null!, out var size);
                string? wrong;
                using var limit = new CancellationTokenSource(CallLimit);
                try
                {
                    wrong = await check(value, limit.Token);
                }
                catch (OperationCanceledException) when (limit.IsCancellationRequested)
                {
                    wrong = $"no answer within {CallLimit.TotalSeconds:F0} s";
                }
                catch (Exception exception)
                {
                    wrong = $"the call failed on the client: {exception.GetType().Name} | {exception.Message}";
                }

                if (wrong is not null)
                {
                    var failure = new FuzzFailure(index, size, describe(value), wrong);
                    failures.AddOrUpdate(Kind(wrong), failure, (_, kept) => kept.Add(failure));
                }
            }
        })).ToArray();
        await Task.WhenAll(workers);
        return new FuzzReport(name, count - first, clock.Elapsed, failures.Values.OrderByDescending(f => f.Count).ToList());
    }

    private static string Kind(string wrong)
    {
        var bar = wrong.IndexOf(" | ", StringComparison.Ordinal);
        return bar < 0 ? wrong : wrong[..bar];
    }

    private static ulong ReadSeed()
    {
        var text = Environment.GetEnvironmentVariable(SeedVariable);
        return ulong.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var seed) ? seed
            : string.Equals(text, "random", StringComparison.OrdinalIgnoreCase) ? (ulong)Random.Shared.NextInt64(1, long.MaxValue)
            : FixedSeed;
    }

    // FNV-1a: each fuzz test draws its own inputs from the one run seed.
    private static ulong Salt(string name)
    {
        var hash = 14695981039346656037UL;
        foreach (var b in Encoding.UTF8.GetBytes(name))
        {
            hash = (hash ^ b) * 1099511628211UL;
        }

        return hash;
    }
}

/// <summary>Every input that failed one way: how many, and the smallest of them.</summary>
internal sealed record FuzzFailure(int Index, Size Size, string Input, string Wrong, int Count = 1)
{
    public FuzzFailure Add(FuzzFailure other) =>
        Size.IsLessThan(other.Size, Size) ? other with { Count = Count + 1 } : this with { Count = Count + 1 };
}

/// <summary>What one fuzz run did and what failed, printable.</summary>
internal sealed record FuzzReport(string Name, int Count, TimeSpan Elapsed, IReadOnlyList<FuzzFailure> Failures)
{
    /// <summary>Both runs as one, a failure kind of both counted once, with the smaller of its inputs.</summary>
    public FuzzReport Then(FuzzReport later) => new(
        Name,
        Count + later.Count,
        Elapsed + later.Elapsed,
        Failures.Concat(later.Failures).GroupBy(f => f.Wrong.Split(" | ")[0])
            .Select(g => g.Aggregate((a, b) => (Size.IsLessThan(b.Size, a.Size) ? b : a) with { Count = a.Count + b.Count }))
            .OrderByDescending(f => f.Count).ToList());

    public List<string> Problems { get; } = [];

    /// <summary>How much the managed heap grew over the run, after full collections.</summary>
    public long HeapGrowth { get; set; }

    public bool Clean => Failures.Count == 0 && Problems.Count == 0;

    public override string ToString()
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{Name}: {Count} inputs in {Elapsed.TotalSeconds:F1} s, heap {HeapGrowth / 1024.0 / 1024.0:+0.0;-0.0} MiB, {Failures.Count} kind(s) of failure, seed {FuzzRun.Seed} (set {FuzzRun.SeedVariable}={FuzzRun.Seed} to run the same inputs again)");
        foreach (var failure in Failures)
        {
            text.AppendLine().AppendLine()
                .Append(CultureInfo.InvariantCulture, $"{failure.Count} input(s) failed: {failure.Wrong}").AppendLine()
                .Append(CultureInfo.InvariantCulture, $"  smallest, input #{failure.Index}: {failure.Input}");
        }

        foreach (var problem in Problems)
        {
            text.AppendLine().AppendLine().Append(problem);
        }

        return text.ToString();
    }
}
