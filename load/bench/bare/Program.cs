using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.BareRead;
using Kobo.Sync.Storage.Sql;
using Npgsql;

// The two hot reads with nothing around them: no token, no resilience pipeline, no coalescing, no
// logs, no telemetry. One pooled connection and one auto-prepared statement per request, JSON from
// the source generator. load/bench/compare.sh measures it beside the service (--also) to show how
// much of the ratio to pgbench the framework and driver alone leave on this machine.
var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.ClearProviders();
builder.Services.ConfigureHttpJsonOptions(options => options.SerializerOptions.TypeInfoResolverChain.Insert(0, BareJsonContext.Default));
var connectionString = builder.Configuration["ConnectionString"]
    ?? throw new InvalidOperationException("Set ConnectionString (for example --ConnectionString \"Host=127.0.0.1;Port=5433;...\").");
// The data source settings the service's own (StorageDataSource) uses for these reads.
var dataSourceBuilder = new NpgsqlDataSourceBuilder(connectionString);
dataSourceBuilder.ConnectionStringBuilder.MaxAutoPrepare = 20;
dataSourceBuilder.ConnectionStringBuilder.NoResetOnClose = true;
await using var dataSource = dataSourceBuilder.Build();

var app = builder.Build();
app.MapGet("/v1/users/{userNo:long}", async Task<IResult> (long userNo, CancellationToken cancellationToken) =>
{
    await using var connection = await dataSource.OpenConnectionAsync(cancellationToken);
    await using var command = new NpgsqlCommand(DeviceReadQueries.FindUser, connection) { Parameters = { new NpgsqlParameter<long> { TypedValue = userNo } } };
    await using var reader = await command.ExecuteReaderAsync(cancellationToken);
    return await reader.ReadAsync(cancellationToken)
        ? TypedResults.Ok(new BareUser(userNo, reader.GetString(0), reader.IsDBNull(1) ? null : reader.GetString(1), reader.GetFieldValue<DateTimeOffset>(2)))
        : TypedResults.NotFound();
});
app.MapGet("/v1/users/{userNo:long}/highlights", async Task<IResult> (long userNo, CancellationToken cancellationToken) =>
{
    const int PageSize = 10;
    await using var connection = await dataSource.OpenConnectionAsync(cancellationToken);
    await using var command = new NpgsqlCommand(DeviceReadQueries.ListHighlights, connection)
    {
        Parameters =
        {
            new NpgsqlParameter<long> { TypedValue = userNo },
            new NpgsqlParameter<string> { TypedValue = $"highlights/users{userNo}-" },
            new NpgsqlParameter<string> { TypedValue = $"highlights/users{userNo}." },
            new NpgsqlParameter<int> { TypedValue = PageSize + 1 },
        },
    };
    await using var reader = await command.ExecuteReaderAsync(cancellationToken);
    if (!await reader.ReadAsync(cancellationToken))
    {
        return TypedResults.NotFound();
    }

    var items = new List<BareHighlight>(PageSize);
    var more = false;
    while (!reader.IsDBNull(0))
    {
        if (items.Count == PageSize)
        {
            more = true;
            break;
        }

        items.Add(new BareHighlight(
            reader.GetString(0), reader.GetInt64(1), reader.IsDBNull(2) ? null : reader.GetString(2),
            reader.IsDBNull(3) ? null : reader.GetInt32(3), reader.IsDBNull(4) ? null : reader.GetInt32(4),
            reader.IsDBNull(5) ? null : reader.GetString(5), reader.IsDBNull(6) ? null : reader.GetString(6),
            reader.GetFieldValue<DateTimeOffset>(7), reader.GetFieldValue<DateTimeOffset>(8)));
        if (!await reader.ReadAsync(cancellationToken))
        {
            break;
        }
    }

    return TypedResults.Ok(new BarePage(items, more ? items[^1].Id : null));
});
app.Run();

namespace Kobo.Sync.BareRead
{
    internal sealed record BareUser(long UserNo, string Name, string? Country, DateTimeOffset CreatedAt);

    internal sealed record BareHighlight(
        string Id, long BookNo, string? Text, int? Start, int? Length, string? Color, string? Note,
        DateTimeOffset CreatedAt, DateTimeOffset ModifiedAt);

    /// <summary>The service's page shape; the next cursor here is the last id, unsigned.</summary>
    internal sealed record BarePage(List<BareHighlight> Items, string? NextCursor);

    [JsonSerializable(typeof(BareUser))]
    [JsonSerializable(typeof(BarePage))]
    [JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
    internal sealed partial class BareJsonContext : JsonSerializerContext;
}
