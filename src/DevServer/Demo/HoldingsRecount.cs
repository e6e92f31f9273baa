using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.DevServer.Demo;

/// <summary>
/// Sets every user's highlight holdings (the per-user quota's count and bytes) from the highlights
/// stored. For loaders that write highlights with COPY, past the pushes that keep the holdings: the
/// demo seeder and the simulator's seeder. One statement; run it after the load.
/// </summary>
public static class HoldingsRecount
{
    public static async Task RunAsync(NpgsqlConnection connection, NpgsqlTransaction? transaction, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(HighlightSyncQueries.RecountHoldings, connection, transaction) { CommandTimeout = 0 };
        await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
    }
}
