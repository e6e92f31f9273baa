using Kobo.Sync.Contracts.Tokens;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Tests.Support;

/// <summary>Runs user-by-id against a stub server: the whole simulator path (engine, device retries, REST or gRPC client).</summary>
public static class StubRuns
{
    public static Task<RunResult> UserByIdAsync(Uri rest, double rate, double seconds, int maxConcurrency, DeviceBehaviour device) =>
        RunAsync(Transport.Rest, new Endpoints(rest, null, null), rate, seconds, maxConcurrency, device);

    public static Task<RunResult> GrpcUserByIdAsync(Uri grpc, double rate, double seconds, int maxConcurrency, DeviceBehaviour device) =>
        RunAsync(Transport.Grpc, new Endpoints(null, grpc, null), rate, seconds, maxConcurrency, device);

    private static Task<RunResult> RunAsync(Transport transport, Endpoints endpoints, double rate, double seconds, int maxConcurrency, DeviceBehaviour device) =>
        SimulationRun.ExecuteAsync(
            new LoadProfile
            {
                Name = "stub",
                Devices = 1_000,
                MaxConcurrency = maxConcurrency,
                Spacing = ArrivalSpacing.Uniform,
                WarmUpSyncs = 0,
                Device = device,
                Scenarios = [new ScenarioLoad { Read = ReadKind.UserById, Transport = transport, Steps = [new LoadStep { Rate = rate, DurationSeconds = seconds }] }],
            },
            new RunSettings
            {
                Endpoints = endpoints,
                Tokens = new DeviceTokenSigner("stub-signing-key-that-is-at-least-32-bytes", "kobo-sync", "kobo-devices"),
                Users = 100,
            },
            started: null,
            CancellationToken.None);
}
