using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace Kobo.Sync.TraceReport;

/// <summary>What one trace held: samples and the bytes the allocation samples stand for.</summary>
internal sealed record TraceSummary(long CpuSamples, long AllocationSamples, long AllocatedBytes, IReadOnlyDictionary<string, long> Events)
{
    public override string ToString() =>
        $"{CpuSamples} CPU samples, {AllocationSamples} allocation samples ({AllocatedBytes / (1024.0 * 1024):F1} MiB); events: "
        + string.Join(", ", Events.OrderByDescending(e => e.Value).Take(8).Select(e => $"{e.Key} {e.Value}"));
}

/// <summary>Turns a trace's stacks into collapsed stacks, merged by identical stack.</summary>
internal static class TraceStacks
{
    public static TraceSummary Write(string tracePath, string outDir, int? pid)
    {
        var etlxPath = Path.Combine(outDir, Path.GetFileNameWithoutExtension(tracePath) + ".etlx");
        TraceLog.CreateFromEventPipeDataFile(tracePath, etlxPath);
        var cpu = new Dictionary<string, long>(StringComparer.Ordinal);
        var allocations = new Dictionary<string, long>(StringComparer.Ordinal);
        var types = new Dictionary<string, (long Bytes, long Samples)>(StringComparer.Ordinal);
        var events = new Dictionary<string, long>(StringComparer.Ordinal);
        long cpuSamples = 0, allocationSamples = 0, allocatedBytes = 0;
        using (var log = new TraceLog(etlxPath))
        {
            foreach (var e in log.Events)
            {
                if (pid is { } wanted && e.ProcessID != wanted)
                {
                    continue;
                }

                var name = $"{e.ProviderName}/{e.EventName}";
                events[name] = events.GetValueOrDefault(name) + 1;
                if (e is GCAllocationTickTraceData tick)
                {
                    var stack = Collapse(e.CallStack());
                    if (stack.Length == 0)
                    {
                        continue;
                    }

                    allocationSamples++;
                    allocatedBytes += tick.AllocationAmount64;
                    var type = tick.TypeName ?? "?";
                    var key = stack + ";" + Clean("new " + type);
                    allocations[key] = allocations.GetValueOrDefault(key) + tick.AllocationAmount64;
                    var (bytes, samples) = types.GetValueOrDefault(type);
                    types[type] = (bytes + tick.AllocationAmount64, samples + 1);
                }
                else if (IsCpuSample(e))
                {
                    var stack = Collapse(e.CallStack());
                    if (stack.Length == 0)
                    {
                        continue;
                    }

                    cpuSamples++;
                    cpu[stack] = cpu.GetValueOrDefault(stack) + 1;
                }
            }
        }

        File.Delete(etlxPath);
        WriteFolded(Path.Combine(outDir, "cpu.folded"), cpu);
        WriteFolded(Path.Combine(outDir, "alloc.folded"), allocations);
        File.WriteAllLines(
            Path.Combine(outDir, "alloc-types.tsv"),
            types.OrderByDescending(t => t.Value.Bytes).Select(t => string.Create(CultureInfo.InvariantCulture, $"{t.Value.Bytes}\t{t.Value.Samples}\t{t.Key}")));
        return new TraceSummary(cpuSamples, allocationSamples, allocatedBytes, events);
    }

    // collect-linux's CPU samples arrive as the universal provider's "cpu" events.
    private static bool IsCpuSample(TraceEvent e) =>
        e.EventName.EndsWith("cpu", StringComparison.OrdinalIgnoreCase) && e.ProviderName.Contains("Universal", StringComparison.OrdinalIgnoreCase);

    private static string Collapse(TraceCallStack? stack)
    {
        var frames = new List<string>();
        for (; stack is not null; stack = stack.Caller)
        {
            frames.Add(Frame(stack.CodeAddress));
        }

        frames.Reverse();
        return string.Join(';', frames);
    }

    // "[module] Namespace.Type.Method(args)", or as the runtime's perf map names JIT-compiled code
    // ("instance void [Assembly] Namespace.Type::Method(args)"), so one set of patterns
    // (profile_stacks.py) sorts both perf's samples and these.
    private static string Frame(TraceCodeAddress address)
    {
        var method = address.FullMethodName is { Length: > 0 } f ? f : $"0x{address.Address:x}";
        return Clean(address.ModuleName is { Length: > 0 } module ? $"[{module}] {method}" : method);
    }

    // ';' separates frames in the collapsed format, and a stack is one line.
    private static string Clean(string frame) => frame.Replace(';', ',').Replace('\n', ',').Replace('\r', ',');

    private static void WriteFolded(string path, Dictionary<string, long> stacks) =>
        File.WriteAllLines(path, stacks.OrderByDescending(s => s.Value).Select(s => string.Create(CultureInfo.InvariantCulture, $"{s.Key} {s.Value}")));
}
