using BenchmarkDotNet.Running;
using Kobo.Sync.DeviceSimulator.Benchmarks;

if (args is ["histogram-accuracy"])
{
    LatencyHistogramBenchmarks.PrintAccuracy(Console.Out);
    return;
}

BenchmarkSwitcher.FromAssembly(typeof(EngineOverheadBenchmarks).Assembly).Run(args);
