using System.Globalization;
using Kobo.Sync.TraceReport;

// Reads a dotnet-trace file of the service and writes, for CPU samples (collect-linux --profile
// cpu-sampling) and for sampled allocations (collect --profile gc-verbose), the stacks in the
// collapsed format (root first, ';' between frames, then the weight) and the allocated types.
//
//   Kobo.Sync.TraceReport TRACE.nettrace OUT_DIR [--pid N]
//
// OUT_DIR receives cpu.folded (weight: samples), alloc.folded (weight: bytes) and alloc-types.tsv.
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: Kobo.Sync.TraceReport TRACE.nettrace OUT_DIR [--pid N]");
    return 2;
}

int? pid = args.Length >= 4 && args[2] == "--pid" ? int.Parse(args[3], CultureInfo.InvariantCulture) : null;
if (!File.Exists(args[0]))
{
    Console.Error.WriteLine($"no trace at {args[0]}");
    return 2;
}

Directory.CreateDirectory(args[1]);
var summary = TraceStacks.Write(args[0], args[1], pid);
Console.WriteLine(summary);
return summary.CpuSamples + summary.AllocationSamples == 0 ? 1 : 0;
