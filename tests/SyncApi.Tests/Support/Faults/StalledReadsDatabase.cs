using Kobo.Sync.Storage.Schema;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// A class fixture: a migrated database of its own where reading one user's highlights stalls in the
/// middle of the rows, as a heavy page does on a busy server. <see cref="StalledUser"/> has
/// <see cref="StalledUserHighlights"/> highlights with long texts; the scan sleeps in the server on the
/// one at <see cref="StallAtSeq"/>, after tens of kilobytes of rows have already reached the service,
/// until the statement is cancelled. Other users (<see cref="FirstLightUser"/> on) read at full speed.
/// <para>
/// The stall is a view named <c>highlights</c> in a schema ahead of <c>public</c> on the database's
/// search path, so the service's own statements, unchanged, read through it: a filter that sleeps on
/// one row. Tests use a service that reads through one pooled connection
/// (<see cref="SinglePooledConnection"/>), so the connection a cancelled read leaves behind is the one
/// every later call gets.
/// </para>
/// </summary>
public sealed class StalledReadsDatabase : PostgresDatabase
{
    public const long StalledUser = 1;
    public const long FirstLightUser = 2;
    public const int StalledUserHighlights = 300;
    public const long StallAtSeq = 250;

    /// <summary>
    /// The service's connection string with a pool of one: every call of the service shares one
    /// connection. The server's confirmation of a cancel may take as long as it likes (on a busy machine
    /// it can outlast the service's 250 ms, and Npgsql would then close the connection instead), so the
    /// connection a cancelled call leaves is the one the next call gets.
    /// </summary>
    public string SinglePooledConnection =>
        new NpgsqlConnectionStringBuilder(ConnectionString) { MaxPoolSize = 1, CancellationTimeout = 30_000 }.ConnectionString;

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await using var command = DataSource.CreateCommand($$"""
            INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 20) n;
            INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 5) n;
            INSERT INTO users_books (user_no, book_no, acquired_at, seq, modified_at)
                SELECT u, b, now(), b, now() FROM generate_series(1, 20) u, generate_series(1, 3) b;
            INSERT INTO reading_states (user_no, book_no, percent, position_at, status, status_at, seq)
                SELECT u, 1, 12.5, now(), 'reading', now(), 4 FROM generate_series(1, 20) u;
            INSERT INTO highlights (id, user_no, book_no, text, start, length, color, created_at, modified_at, seq)
                SELECT 'highlights/users' || u || '-ebooks/1/h' || n, u, 1, repeat('a long highlighted passage ', 8),
                       n, 10, 'yellow', now(), now(), n
                FROM generate_series(1, 20) u, generate_series(1, CASE WHEN u = {{StalledUser}} THEN {{StalledUserHighlights}} ELSE 5 END) n;
            UPDATE users SET change_seq = {{StalledUserHighlights}};

            CREATE SCHEMA stalled;
            CREATE FUNCTION stalled.pass(user_no bigint, seq bigint) RETURNS boolean LANGUAGE plpgsql AS $$
            BEGIN
                IF user_no = {{StalledUser}} AND seq = {{StallAtSeq}} THEN
                    PERFORM pg_sleep(600);
                END IF;
                RETURN true;
            END $$;
            CREATE VIEW stalled.highlights AS SELECT * FROM public.highlights h WHERE stalled.pass(h.user_no, h.seq);
            -- The service's migrator, at start, finds its record through the same search path.
            CREATE VIEW stalled.schema_migrations AS SELECT * FROM public.schema_migrations;
            ALTER DATABASE {{Name}} SET search_path = stalled, public;
            """);
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }
}
