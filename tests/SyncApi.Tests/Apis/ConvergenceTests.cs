using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// Three devices of one user push random edits and deletes of a few shared highlights and pull, all
/// at once, for a bounded time; then each pulls once more. Every device must hold exactly the
/// server's live highlights: the same ids, the same content fields and the same versions.
/// </summary>
public sealed class ConvergenceTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly string[] Colors = ["yellow", "pink", "blue", "green"];

    /// <summary>A device's local copy: live highlights by id, as the fields it would show.</summary>
    private sealed class SimulatedDevice(HttpClient client, long user, int seed)
    {
        private readonly Random _random = new(seed);
        private string? _token;

        /// <summary>Content fields of each live highlight: text|start|length|color|note.</summary>
        public Dictionary<string, string> Local { get; } = new(StringComparer.Ordinal);

        /// <summary>The last version the device was told of, for every highlight it has heard of.</summary>
        public Dictionary<string, string> Versions { get; } = new(StringComparer.Ordinal);

        public async Task RunAsync(CancellationToken stop)
        {
            while (!stop.IsCancellationRequested)
            {
                if (_random.Next(3) == 0)
                {
                    await PullAsync();
                }
                else
                {
                    await PushAsync();
                }
            }
        }

        public async Task PullAsync()
        {
            var (changes, token) = await client.PullAllAsync(user, _token, pageSize: 4);
            foreach (var change in changes)
            {
                var id = change.Str("id");
                if (change.GetProperty("deleted").GetBoolean())
                {
                    Local.Remove(id);
                }
                else
                {
                    Local[id] = Fields(change);
                }

                Versions[id] = change.Str("version");
            }

            _token = token;
        }

        private async Task PushAsync()
        {
            var batch = new List<object>();
            var edits = new List<(string Id, string? Fields)>();
            for (var i = _random.Next(1, 4); i > 0; i--)
            {
                var key = "k" + _random.Next(6);
                var id = $"highlights/users{user}-ebooks/7/{key}";
                // Device clocks disagree by up to a minute either way.
                var at = DateTimeOffset.UtcNow.AddSeconds(_random.Next(-60, 60));
                var baseVersion = _random.Next(2) == 0 && Versions.TryGetValue(id, out var seen) ? seen : null;
                if (_random.Next(4) == 0)
                {
                    batch.Add(Delete(key, at, baseVersion: baseVersion));
                    edits.Add((id, null));
                }
                else
                {
                    var text = "text " + _random.Next(1000);
                    var color = Colors[_random.Next(Colors.Length)];
                    var note = _random.Next(2) == 0 ? null : "note " + _random.Next(1000);
                    batch.Add(Upsert(key, text, at, color: color, note: note, baseVersion: baseVersion));
                    edits.Add((id, $"{text}|10|42|{color}|{note}"));
                }
            }

            var results = await client.PushAsync(user, batch.ToArray());
            for (var i = 0; i < results.Length; i++)
            {
                Assert.NotEqual("rejected", results[i].Str("status"));
                // The device shows its own edit at once, whatever the server decided; pulls correct it.
                var (id, fields) = edits[i];
                Versions[id] = results[i].Str("version");
                if (fields is null)
                {
                    Local.Remove(id);
                }
                else
                {
                    Local[id] = fields;
                }
            }
        }

        private static string Fields(JsonElement change) =>
            $"{change.Str("text")}|{change.GetProperty("start").GetInt32()}|{change.GetProperty("length").GetInt32()}|{change.Str("color")}|{(change.TryGetProperty("note", out var note) ? note.GetString() : null)}";
    }

    private async Task<Dictionary<string, string>> ServerLiveAsync(long user)
    {
        var rows = new Dictionary<string, string>(StringComparer.Ordinal);
        await using var command = db.DataSource.CreateCommand(
            "SELECT id, text, start, length, color, note, version FROM highlights WHERE user_no = $1 AND deleted_at IS NULL");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            rows[reader.GetString(0)] = $"{reader.GetString(1)}|{reader.GetInt32(2)}|{reader.GetInt32(3)}|{reader.GetString(4)}|{(reader.IsDBNull(5) ? null : reader.GetString(5))}|v{reader.GetInt64(6)}";
        }

        return rows;
    }

    [Fact]
    public async Task ThreeDevicesPushingAndPullingAtRandomEndWithExactlyTheServersHighlights()
    {
        var user = db.NewUser();
        var clients = Enumerable.Range(0, 3).Select(i => db.Device(user, "device-" + i)).ToArray();
        var devices = clients.Select((c, i) => new SimulatedDevice(c, user, seed: 1000 + i)).ToArray();
        await devices[0].PullAsync(); // the service is up before the race starts

        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(4));
        await Task.WhenAll(devices.Select(d => Task.Run(() => d.RunAsync(stop.Token))));
        foreach (var device in devices)
        {
            await device.PullAsync();
        }

        var server = await ServerLiveAsync(user);
        Assert.NotEmpty(server);
        foreach (var device in devices)
        {
            var local = device.Local.ToDictionary(p => p.Key, p => $"{p.Value}|v{device.Versions[p.Key]}", StringComparer.Ordinal);
            Assert.Equal(server.OrderBy(p => p.Key, StringComparer.Ordinal), local.OrderBy(p => p.Key, StringComparer.Ordinal));
        }

        foreach (var client in clients)
        {
            client.Dispose();
        }
    }
}
