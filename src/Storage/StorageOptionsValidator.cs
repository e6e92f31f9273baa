using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>Fails the start with a message that names the configuration key at fault.</summary>
public sealed class StorageOptionsValidator : IValidateOptions<StorageOptions>
{
    private const string Embedded = StorageOptions.SectionName + ":" + nameof(StorageOptions.Embedded);
    private const string ConnectionString = StorageOptions.SectionName + ":" + nameof(StorageOptions.ConnectionString);
    private const int MaxInstances = 1_000;
    private const int MaxReservedConnections = 10_000;
    private const int MinStandbyLagMs = 100;
    private const int MaxStandbyLagMs = 600_000;

    public ValidateOptionsResult Validate(string? name, StorageOptions options)
    {
        var failures = new List<string>();
        if (options.Instances is < 1 or > MaxInstances)
        {
            failures.Add(
                $"{StorageOptions.SectionName}:{nameof(StorageOptions.Instances)} must be from 1 to {MaxInstances}: " +
                $"the most instances of the service sharing the database server at once (was {options.Instances}).");
        }

        if (options.ReservedConnections is < 0 or > MaxReservedConnections)
        {
            failures.Add(
                $"{StorageOptions.SectionName}:{nameof(StorageOptions.ReservedConnections)} must be from 0 to {MaxReservedConnections} " +
                $"(was {options.ReservedConnections}).");
        }

        if (options.StandbyMaxLagMs is < MinStandbyLagMs or > MaxStandbyLagMs)
        {
            failures.Add(
                $"{StorageOptions.SectionName}:{nameof(StorageOptions.StandbyMaxLagMs)} must be from {MinStandbyLagMs} to " +
                $"{MaxStandbyLagMs} milliseconds: the most a standby may lag and still answer device reads (was " +
                $"{options.StandbyMaxLagMs}).");
        }

        if (!string.IsNullOrWhiteSpace(options.ReadConnectionString))
        {
            if (!options.HasConnectionString)
            {
                failures.Add(
                    $"{StorageOptions.SectionName}:{nameof(StorageOptions.ReadConnectionString)} needs " +
                    $"{StorageOptions.SectionName}:{nameof(StorageOptions.ConnectionString)} too (the embedded server has no standbys).");
            }

            try
            {
                // Building checks what parsing does not (a target session on a single host, say); it does not connect.
                using var probe = StorageDataSource.CreateForReads(options.ReadConnectionString);
            }
            catch (Exception e) when (e is ArgumentException or NotSupportedException)
            {
                failures.Add(
                    $"{StorageOptions.SectionName}:{nameof(StorageOptions.ReadConnectionString)} is not a valid Npgsql connection " +
                    $"string: {e.Message}");
            }
        }

        if (!options.HasConnectionString && options.Embedded.Enabled != true)
        {
            failures.Add(
                $"{ConnectionString} is empty: set it to the database's Npgsql connection string, " +
                $"or set {Embedded}:{nameof(EmbeddedStorageOptions.Enabled)}=true " +
                "to run on a private PostgreSQL server of the service's own (for trials and benchmarks: its data is nobody's backup; " +
                "on by default in Development only).");
            return Result(failures);
        }

        if (options.HasConnectionString)
        {
            try
            {
                _ = new NpgsqlConnectionStringBuilder(options.ConnectionString);
            }
            catch (ArgumentException e)
            {
                failures.Add(
                    $"{StorageOptions.SectionName}:{nameof(StorageOptions.ConnectionString)} is not a valid Npgsql connection string: " +
                    $"{e.Message}");
            }

            return Result(failures);
        }

        var embedded = options.Embedded;
        if (string.IsNullOrWhiteSpace(embedded.DataDirectory))
        {
            failures.Add(
                $"{Embedded}:{nameof(EmbeddedStorageOptions.DataDirectory)} must name a directory when " +
                $"{StorageOptions.SectionName}:{nameof(StorageOptions.ConnectionString)} is empty.");
        }

        if (embedded.Port is < 1 or > 65535)
        {
            failures.Add($"{Embedded}:{nameof(EmbeddedStorageOptions.Port)} must be between 1 and 65535 (was {embedded.Port}).");
        }

        if (!PlainIdentifiers.IsPlainIdentifier(embedded.Database))
        {
            failures.Add(
                $"{Embedded}:{nameof(EmbeddedStorageOptions.Database)} must be 1-63 characters of a-z, 0-9 or '_', " +
                $"starting with a letter (was '{embedded.Database}').");
        }

        return Result(failures);
    }

    private static ValidateOptionsResult Result(List<string> failures) =>
        failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
}
