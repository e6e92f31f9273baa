using BenchmarkDotNet.Running;

BenchmarkSwitcher.FromAssembly(typeof(Kobo.Sync.DeviceSimulator.Benchmarks.EngineOverheadBenchmarks).Assembly).Run(args);
