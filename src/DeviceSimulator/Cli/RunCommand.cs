using System.CommandLine;
using System.Diagnostics;
using Kobo.Sync.Contracts.Tokens;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;
using Kobo.Sync.DeviceSimulator.Seeding;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary><c>run</c>: replays a profile's device syncs, writes the reports, and exits non-zero when a threshold fails.</summary>
internal static class RunCommand
{
    public const int UsageExitCode = 2;

    public static Command Create()
    {
        var profile = new Option<string>("--profile")
        {
            Description = "Load profile (JSON), e.g. load/profiles/smoke.json.", Required = true,
        };
        var rest = new Option<string?>("--rest") { Description = "The service's REST address, e.g. http://127.0.0.1:5080." };
        var grpc = new Option<string?>("--grpc") { Description = "The service's gRPC address, e.g. http://127.0.0.1:5081." };
        var waitRest = new Option<string?>("--wait-rest")
        {
            Description = "Where live scenarios' waiting devices long-poll over REST (default: --rest); " +
                "another instance on the same database makes each wake cross instances.",
        };
        var waitGrpc = new Option<string?>("--wait-grpc")
        {
            Description = "Where live scenarios' waiting devices open WatchChanges (default: --grpc); " +
                "another instance on the same database makes each wake cross instances.",
        };
        var postgres = new Option<string?>("--postgres")
        {
            Description = "Npgsql connection string for the raw-PostgreSQL baseline scenarios.",
        };
        var signingKey = new Option<string?>("--signing-key")
        {
            Description = "The service's Auth:SigningKey (default: $KOBO_SIM_SIGNING_KEY).",
        };
        var issuer = new Option<string>("--issuer") { DefaultValueFactory = _ => "kobo-sync" };
        var audience = new Option<string>("--audience") { DefaultValueFactory = _ => "kobo-devices" };
        var heaviest = new Option<string?>("--heaviest") { Description = "The seed's heaviest-users list (for the highlight reads)." };
        var users = new Option<long?>("--users") { Description = "Users in the data set (default: from the heaviest-users list)." };
        var shard = new Option<string>("--shard")
        {
            Description = "This process's share of the devices and of the rate, as i/n.", DefaultValueFactory = _ => "1/1",
        };
        var output = new Option<string?>("--out") { Description = "Results folder (default: load/results/<UTC timestamp>)." };
        var cursorKey = new Option<string?>("--cursor-key")
        {
            Description = "The service's Paging:CursorKey, for a day's sync tokens (default: $KOBO_SIM_CURSOR_KEY).",
        };
        var ledger = new Option<string?>("--ledger")
        {
            Description = "Folder for a day's ledger of acknowledged pushes and pulls, checked afterwards by verify.",
        };
        var register = new Option<string?>("--register-devices")
        {
            Description = "Only make known, in this database (Npgsql connection string), " +
                "the devices of this shard's day that synced before the run; then exit.",
        };
        var p99 = new Option<double?>("--p99-ms") { Description = "Override the profile's p99 threshold (ms)." };
        var burn = new Option<double>("--dispatch-burn-ms")
        {
            Description = "Burn this much CPU (ms of wall time) in every dispatch: starves the generator on purpose, " +
                "to see its verdict say so.",
            Hidden = true,
        };

        var command = new Command(
            "run", "Replay a profile's device syncs against the service (and PostgreSQL), report, and gate on the SLA.")
        {
            profile, rest, grpc, waitRest, waitGrpc, postgres, signingKey, issuer, audience,
            heaviest, users, shard, output, p99, cursorKey, ledger, register, burn,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            LoadProfile loaded;
            RunSettings settings;
            try
            {
                loaded = LoadProfile.Load(parse.GetValue(profile)!);
                if (parse.GetValue(p99) is { } limit)
                {
                    loaded = loaded with { Thresholds = loaded.Thresholds with { P99Ms = limit } };
                }

                if (!Shard.TryParse(parse.GetValue(shard), out var part))
                {
                    throw new ProfileException("--shard must be i/n with 1 <= i <= n.");
                }

                if (parse.GetValue(burn) is < 0 or > 10_000)
                {
                    throw new ProfileException("--dispatch-burn-ms must be between 0 and 10000.");
                }

                var key = parse.GetValue(signingKey) ?? Environment.GetEnvironmentVariable("KOBO_SIM_SIGNING_KEY");
                var needsService = loaded.Scenarios.Any(s => s.Transport != Transport.Postgres);
                if (needsService && (key is null || key.Length < 32))
                {
                    throw new ProfileException(
                        "The service scenarios need the service's signing key (at least 32 bytes): --signing-key or KOBO_SIM_SIGNING_KEY.");
                }

                var heavy = parse.GetValue(heaviest) is { } path ? HeaviestUsersFile.Read(path) : [];
                settings = new RunSettings
                {
                    Endpoints = new Endpoints(
                        Address(parse.GetValue(rest), "--rest"), Address(parse.GetValue(grpc), "--grpc"), parse.GetValue(postgres),
                        Address(parse.GetValue(waitRest), "--wait-rest"), Address(parse.GetValue(waitGrpc), "--wait-grpc")),
                    Tokens = new DeviceTokenSigner(key ?? new string('x', 32), parse.GetValue(issuer)!, parse.GetValue(audience)!),
                    HeaviestUsers = heavy,
                    Users = parse.GetValue(users) ?? (parse.GetValue(heaviest) is { } p ? HeaviestUsersFile.ReadUserCount(p) : 0),
                    Shard = part,
                    CursorKey = parse.GetValue(cursorKey) ?? Environment.GetEnvironmentVariable("KOBO_SIM_CURSOR_KEY"),
                    LedgerFolder = parse.GetValue(ledger),
                    DispatchBurn = TimeSpan.FromMilliseconds(parse.GetValue(burn)),
                };
                if (settings.Users < 1
                    && loaded.Scenarios.Any(s => s.Read
                        is ReadKind.UserById or ReadKind.SyncSession or ReadKind.FirstSyncStorm or ReadKind.Live or ReadKind.Day))
                {
                    throw new ProfileException(
                        "user-by-id and device sync need the number of users: --users, or --heaviest from the seed.");
                }

                if (heavy.Count == 0
                    && loaded.Scenarios.Any(s => s.Read is ReadKind.HighlightsByUser or ReadKind.HighlightsByBook or ReadKind.Day))
                {
                    throw new ProfileException("The highlight reads need the seed's heaviest-users list: --heaviest.");
                }
            }
            catch (Exception exception) when (exception is ProfileException or IOException or FormatException)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return UsageExitCode;
            }

            if (parse.GetValue(register) is { } database)
            {
                var known = await SimulationRun.RegisterDevicesAsync(loaded, settings, database, cancellationToken);
                Console.WriteLine($"{known:N0} devices of shard {settings.Shard} known to the service");
                return 0;
            }

            RunResult result;
            try
            {
                result = await RunWithProgressAsync(loaded, settings, cancellationToken);
            }
            catch (Exception exception) when (exception is MissingEndpointException or ProfileException)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return UsageExitCode;
            }

            var folder = parse.GetValue(output)
                ?? ReportWriter.DefaultFolder(
                    Path.Combine("load", "results"), result.Started,
                    settings.Shard.Count > 1 ? $"shard{settings.Shard.Index + 1}of{settings.Shard.Count}" : null);
            ReportWriter.Write(folder, result);
            if (result.Generator.Warning is { } warning)
            {
                Console.WriteLine($"warning: {warning}");
            }

            Console.WriteLine($"report: {Path.Combine(folder, "report.html")}");
            Console.WriteLine(result.Verdict);
            return SlaGate.ExitCode(result);
        });
        return command;
    }

    private static Uri? Address(string? text, string option) =>
        text is null ? null
        : Uri.TryCreate(text, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https" ? uri
        : throw new ProfileException($"{option} must be an http:// or https:// address, not '{text}'.");

    private static Task<RunResult> RunWithProgressAsync(LoadProfile profile, RunSettings settings, CancellationToken cancellationToken)
    {
        LoadEngine? engine = null;
        var run = SimulationRun.ExecuteAsync(profile, settings, e => engine = e, cancellationToken);
        var planned = profile.Scenarios.Max(s => ArrivalSchedule.Duration(s.Steps).TotalSeconds);
        var clock = Stopwatch.StartNew();
        return LiveProgress.TrackAsync(
            run, profile.Name, planned,
            () => (clock.Elapsed.TotalSeconds,
                $"{clock.Elapsed.TotalSeconds:F0}/{planned:F0} s, {engine?.Completed ?? 0:N0} syncs, " +
                $"{engine?.FailedSyncs ?? 0:N0} failed, {engine?.InFlight ?? 0:N0} in flight"),
            TimeSpan.FromSeconds(5));
    }
}
