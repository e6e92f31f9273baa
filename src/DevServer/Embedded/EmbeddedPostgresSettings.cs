namespace Kobo.Sync.DevServer.Embedded;

/// <summary>How to start a private PostgreSQL server with <see cref="EmbeddedPostgres"/>.</summary>
public sealed record EmbeddedPostgresSettings
{
    public const string DefaultBinariesRoot = "/usr/lib/postgresql";

    /// <summary>Absolute path of the data directory; created (and initialised) when missing.</summary>
    public required string DataDirectory { get; init; }

    public int Port { get; init; } = 5433;

    /// <summary>The database to connect to; created when missing.</summary>
    public string Database { get; init; } = "kobo_sync";

    /// <summary>The superuser created at initialisation; the connection string logs in as it.</summary>
    public string UserName { get; init; } = "kobo";

    /// <summary>
    /// Trade durability for speed (<c>fsync=off</c>, <c>synchronous_commit=off</c>,
    /// <c>full_page_writes=off</c>, initdb <c>--no-sync</c>): for test servers whose data is thrown
    /// away, never for data that is kept. A server that keeps its data starts with
    /// <see cref="LargeDataSettings"/> instead.
    /// </summary>
    public bool ThrowAway { get; init; }

    public TimeSpan StartTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>Where <c>*/bin/postgres</c> is looked for; a setting only so tests can point it elsewhere.</summary>
    public string BinariesRoot { get; init; } = DefaultBinariesRoot;
}
