using System.Globalization;
using System.Reflection;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>
/// The server settings for data larger than memory (<c>large-data.conf</c> beside this file, built in
/// as a resource): the embedded server starts with them (<see cref="Install"/>); the local cluster and the scale
/// benchmark render the same file (<c>deploy/postgres/settings.sh</c>), and so does the Terraform root module for
/// each profile's database memory, so the four never drift. Each choice and what it measured: docs/postgres.md.
/// A memory value written as a percentage is that share of the machine's memory divided by the
/// servers sharing it, in whole megabytes.
/// </summary>
public static class LargeDataSettings
{
    public const string ResourceName = "Kobo.Sync.DevServer.large-data.conf";

    /// <summary>
    /// The settings as PostgreSQL takes them (<c>key</c>, <c>value</c>), for a server with <paramref name="memoryBytes"/> of memory.
    /// </summary>
    public static IReadOnlyList<KeyValuePair<string, string>> Render(long memoryBytes) => Parse(Text(), memoryBytes);

    public static IReadOnlyList<KeyValuePair<string, string>> Parse(string text, long memoryBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(memoryBytes, 1);
        var settings = new List<KeyValuePair<string, string>>();
        var lineNo = 0;
        foreach (var raw in text.Split('\n'))
        {
            lineNo++;
            var line = raw.Split('#', 2)[0].Trim();
            if (line.Length == 0)
            {
                continue;
            }

            var parts = line.Split('=', 2, StringSplitOptions.TrimEntries);
            if (parts.Length != 2 || parts[0].Length == 0 || parts[1].Length == 0)
            {
                throw new FormatException($"large-data.conf:{lineNo}: expected 'key = value'.");
            }

            var value = parts[1];
            if (value.EndsWith('%'))
            {
                if (!int.TryParse(value[..^1], NumberStyles.None, CultureInfo.InvariantCulture, out var percent) || percent is < 1 or > 100)
                {
                    throw new FormatException($"large-data.conf:{lineNo}: a memory share is 1% to 100%.");
                }

                value = string.Create(CultureInfo.InvariantCulture, $"{Math.Max(1, memoryBytes / 1024 / 1024 * percent / 100)}MB");
            }

            settings.Add(new(parts[0], value));
        }

        return settings;
    }

    /// <summary>The file the embedded server reads the settings from, in its data directory.</summary>
    public const string FileName = "kobo-sync-large-data.conf";

    /// <summary>
    /// Writes the settings into <paramref name="dataDirectory"/> (rendered again at every start, as the
    /// memory may have changed) and includes them at the end of its <c>postgresql.conf</c>, once. From
    /// the configuration files rather than the command line, so that an operator's
    /// <c>ALTER SYSTEM SET</c> (postgresql.auto.conf, read after them) still overrides any of them.
    /// </summary>
    public static void Install(string dataDirectory, long memoryBytes)
    {
        var lines = Render(memoryBytes).Select(s => $"{s.Key} = '{s.Value}'");
        File.WriteAllText(
            Path.Combine(dataDirectory, FileName),
            "# Written by Kobo.Sync at every start of its embedded server (large-data.conf); ALTER SYSTEM overrides any of these.\n"
            + string.Join('\n', lines) + "\n");
        var conf = Path.Combine(dataDirectory, "postgresql.conf");
        var include = $"include_if_exists = '{FileName}'";
        if (!File.ReadLines(conf).Any(line => line.Trim() == include))
        {
            File.AppendAllText(conf, $"\n# Kobo.Sync: the settings for data larger than memory.\n{include}\n");
        }
    }

    /// <summary>The machine's memory as the kernel reports it (<c>MemTotal</c>), as the shell renderer reads it.</summary>
    public static long MachineMemoryBytes()
    {
        foreach (var line in File.ReadLines("/proc/meminfo"))
        {
            if (line.StartsWith("MemTotal:", StringComparison.Ordinal))
            {
                var kilobytes = line["MemTotal:".Length..].Trim().Split(' ')[0];
                return long.Parse(kilobytes, NumberStyles.None, CultureInfo.InvariantCulture) * 1024;
            }
        }

        throw new InvalidOperationException("/proc/meminfo has no MemTotal line.");
    }

    private static string Text()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream(ResourceName)
            ?? throw new InvalidOperationException($"The resource {ResourceName} is missing from the build.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }
}
