using Microsoft.Extensions.Logging.Abstractions;
using Npgsql;

namespace Kobo.Sync.Storage.Schema;

/// <summary>
/// Brings the schema up to date at start: every migration not yet recorded in
/// <c>schema_migrations</c> runs in version order, all in one transaction that holds an advisory
/// lock, so instances starting together apply each migration once and a failure applies nothing.
/// A recorded migration whose file has changed stops the start: migrations are never edited.
/// </summary>
public sealed class SchemaMigrator(NpgsqlDataSource dataSource, ILogger<SchemaMigrator>? logger = null)
{
    /// <summary>Advisory lock key shared by every Kobo.Sync instance ("kobo-mig" in ASCII).</summary>
    public const long LockKey = 0x6B6F_626F_2D6D_6967;

    private const string CreateTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    int         PRIMARY KEY,
            name       text        NOT NULL,
            checksum   text        NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now()
        )
        """;

    private readonly ILogger _logger = (ILogger?)logger ?? NullLogger.Instance;

    /// <summary>Applies what is missing; returns the versions applied by this call.</summary>
    public Task<IReadOnlyList<int>> MigrateAsync(CancellationToken cancellationToken) =>
        MigrateAsync(Migration.Embedded, cancellationToken);

    public async Task<IReadOnlyList<int>> MigrateAsync(IReadOnlyList<Migration> migrations, CancellationToken cancellationToken)
    {
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);

        await using (var command = new NpgsqlCommand("SELECT pg_advisory_xact_lock($1)", connection, transaction))
        {
            command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = LockKey });
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        await using (var command = new NpgsqlCommand(CreateTable, connection, transaction))
        {
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        var applied = new Dictionary<int, string>();
        await using (var command = new NpgsqlCommand("SELECT version, checksum FROM schema_migrations", connection, transaction))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                applied[reader.GetInt32(0)] = reader.GetString(1);
            }
        }

        var newlyApplied = new List<int>();
        foreach (var migration in migrations)
        {
            if (applied.TryGetValue(migration.Version, out var checksum))
            {
                if (!string.Equals(checksum, migration.Checksum, StringComparison.Ordinal))
                {
                    throw new InvalidOperationException(
                        $"Migration {migration.Name} was changed after it was applied (checksum {checksum} in schema_migrations, " +
                        $"{migration.Checksum} now). Add a new migration instead.");
                }

                continue;
            }

            await using (var command = new NpgsqlCommand(migration.Sql, connection, transaction))
            {
                await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }

            await using (var record = new NpgsqlCommand(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", connection, transaction))
            {
                record.Parameters.Add(new NpgsqlParameter<int> { TypedValue = migration.Version });
                record.Parameters.Add(new NpgsqlParameter<string> { TypedValue = migration.Name });
                record.Parameters.Add(new NpgsqlParameter<string> { TypedValue = migration.Checksum });
                await record.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            }

            newlyApplied.Add(migration.Version);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        if (newlyApplied.Count > 0)
        {
            _logger.LogInformation("Applied schema migrations {Versions}", newlyApplied);
        }

        return newlyApplied;
    }
}
