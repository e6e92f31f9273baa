using System.Collections.Concurrent;
using Npgsql;

namespace Kobo.Sync.Storage.Telemetry;

/// <summary>
/// The <c>node</c> tag of database metrics: <c>host:port</c> of the server an open connection
/// reached (with a multi-host connection string, the one Npgsql picked). The strings are built once
/// per node, so recording does not allocate.
/// </summary>
public static class DatabaseNodes
{
    public const string Unknown = "unknown";

    private static readonly ConcurrentDictionary<(string Host, int Port), string> Names = new();

    public static string Of(NpgsqlConnection connection)
    {
        var host = connection.Host;
        if (string.IsNullOrEmpty(host))
        {
            return Unknown;
        }

        return Names.GetOrAdd((host, connection.Port), static key => $"{key.Host}:{key.Port}");
    }
}
