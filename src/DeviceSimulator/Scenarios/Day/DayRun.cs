using System.Globalization;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Day;

/// <summary>
/// What a run with a day scenario holds besides the engine: the tokens' key and the ledger (when a
/// folder is given). At the end it writes <c>day-&lt;shard&gt;.json</c> beside the ledger: the syncs of each
/// kind and the scheduled pulls that received changes of a user the run never wrote to.
/// </summary>
public sealed class DayRun : IDisposable
{
    private readonly string? _folder;
    private readonly string _shard;

    private DayRun(DayTokens tokens, DayLedger? ledger, string? folder, string shard)
    {
        Tokens = tokens;
        Ledger = ledger;
        _folder = folder;
        _shard = shard;
    }

    public DayTokens Tokens { get; }

    public DayLedger? Ledger { get; }

    /// <summary>Null when the profile has no day scenario.</summary>
    public static DayRun? Open(LoadProfile profile, string? cursorKey, Shard shard, string? ledgerFolder)
    {
        if (!profile.Scenarios.Any(s => s.Read == ReadKind.Day))
        {
            return null;
        }

        if (cursorKey is not { Length: >= 32 } key)
        {
            throw new ProfileException(
                "A day scenario's devices hold sync tokens signed with the service's Paging:CursorKey (at least 32 bytes): " +
                "--cursor-key or KOBO_SIM_CURSOR_KEY.");
        }

        var part = string.Create(CultureInfo.InvariantCulture, $"{shard.Index + 1}of{shard.Count}");
        var ledger = ledgerFolder is { } folder ? new DayLedger(folder, part) : null;
        return new DayRun(new DayTokens(key), ledger, ledgerFolder, part);
    }

    /// <summary>
    /// Makes the devices of a day known to the service, as devices that synced before the run are: every
    /// device of the first <paramref name="syncs"/> of the scenario but the first syncs' (new devices),
    /// with its user, first seen three months ago and last synced one sync interval ago (a drawer's
    /// device four months ago). Rows already there are kept, so a shard can register again.
    /// </summary>
    public static async Task<long> RegisterDevicesAsync(
        string connectionString, DeviceDayScenario scenario, long syncs, CancellationToken cancellationToken)
    {
        var now = DateTime.UtcNow;
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync(cancellationToken);
        await using (var create = new NpgsqlCommand("CREATE TEMP TABLE day_devices (LIKE devices INCLUDING DEFAULTS)", connection))
        {
            await create.ExecuteNonQueryAsync(cancellationToken);
        }

        long known = 0;
        await using (var copy = await connection.BeginBinaryImportAsync(
            "COPY day_devices (user_no, device_id, first_seen_at, last_sync_at) FROM STDIN (FORMAT BINARY)", cancellationToken))
        {
            for (long i = 0; i < syncs; i++)
            {
                var device = scenario.DeviceFor(i);
                var (kind, user) = scenario.Plan(device);
                if (kind == DaySyncKind.FirstSync)
                {
                    continue;
                }

                await copy.StartRowAsync(cancellationToken);
                await copy.WriteAsync(user, NpgsqlDbType.Bigint, cancellationToken);
                await copy.WriteAsync(device.DeviceId, NpgsqlDbType.Text, cancellationToken);
                await copy.WriteAsync(now.AddDays(-90), NpgsqlDbType.TimestampTz, cancellationToken);
                await copy.WriteAsync(
                    kind == DaySyncKind.Drawer ? now.AddDays(-120) : now - device.SyncInterval,
                    NpgsqlDbType.TimestampTz, cancellationToken);
                known++;
            }

            await copy.CompleteAsync(cancellationToken);
        }

        await using var insert = new NpgsqlCommand(
            "INSERT INTO devices SELECT * FROM day_devices ON CONFLICT (user_no, device_id) DO NOTHING", connection) { CommandTimeout = 0 };
        await insert.ExecuteNonQueryAsync(cancellationToken);
        return known;
    }

    public void Close(IEnumerable<DeviceDayScenario> scenarios)
    {
        Ledger?.Dispose();
        if (_folder is null)
        {
            return;
        }

        var days = scenarios.ToList();
        var kinds = Enum.GetValues<DaySyncKind>().Select((k, i) => (Kind: k, Syncs: days.Sum(d => d.Kinds[i])))
            .ToDictionary(k => JsonNamingPolicy.CamelCase.ConvertName(k.Kind.ToString()), k => k.Syncs);
        var summary = new
        {
            shard = _shard,
            syncsByKind = kinds,
            unexpectedChanges = days.Sum(d => d.Unexpected),
            acknowledged = Ledger?.Acknowledged ?? 0,
            pullsLedgered = Ledger?.Pulls ?? 0,
        };
        File.WriteAllText(
            Path.Combine(_folder, $"day-{_shard}.json"),
            JsonSerializer.Serialize(summary, new JsonSerializerOptions { WriteIndented = true }));
    }

    public void Dispose() => Ledger?.Dispose();
}
