using System.Reflection;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// The storage parameters of the large tables (fill factor, autovacuum scale factors), from
/// <c>deploy/postgres/large-tables.sql</c>, built into the simulator: set before the rows are loaded,
/// as fill factor shapes only the pages written after it.
/// </summary>
internal static class LargeTables
{
    public const string ResourceName = "Kobo.Sync.DeviceSimulator.large-tables.sql";

    public static string Sql()
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream(ResourceName)
            ?? throw new InvalidOperationException($"The resource {ResourceName} is missing from the build.");
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd();
    }

    public static async Task ApplyAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(Sql(), connection);
        await command.ExecuteNonQueryAsync(cancellationToken);
    }
}
