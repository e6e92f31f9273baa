using System.Globalization;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Sync;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Embedded;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Migrations;
using Kobo.Sync.SyncApi.Infrastructure.Sync;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

/// <summary>
/// <c>token --kobo-link --user N [--device ID]</c>: for development, makes a Kobo link for the user's
/// device in the configured database (the embedded server's when no connection string is set, started
/// for the purpose if the service is not running) and prints the <c>api_endpoint</c> to paste into
/// <c>Kobo eReader.conf</c>, built on <c>Kobo:PublicBaseUrl</c> or else the REST listener's address.
/// </summary>
public static class KoboLinkCommand
{
    public const string Option = "--kobo-link";

    public static bool IsRequested(string[] args) => TokenCommand.IsRequested(args) && args.Contains(Option);

    public static async Task<int> RunAsync(IConfiguration configuration, string[] args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default)
    {
        string? userText = null;
        var device = "dev-1";
        var rest = args.Where(a => a != Option).ToArray();
        for (var i = 1; i < rest.Length - 1; i += 2)
        {
            switch (rest[i])
            {
                case "--user": userText = rest[i + 1]; break;
                case "--device": device = rest[i + 1]; break;
                default: return Usage(error, $"Unknown or invalid option '{rest[i]} {rest[i + 1]}'.");
            }
        }

        if (rest.Length % 2 == 0 || userText is null || !UserNo.TryParse(userText, out var user))
        {
            return Usage(error, "Give --user N.");
        }

        if (!DeviceIds.IsValid(device))
        {
            return Usage(error, $"--device must be {DeviceIds.Rule}.");
        }

        var kobo = configuration.GetSection(KoboOptions.SectionName).Get<KoboOptions>() ?? new KoboOptions();
        var endpoints = configuration.GetSection(EndpointsOptions.SectionName).Get<EndpointsOptions>() ?? new EndpointsOptions();
        var storage = configuration.GetSection(StorageOptions.SectionName).Get<StorageOptions>() ?? new StorageOptions();
        var sync = configuration.GetSection(SyncOptions.SectionName).Get<SyncOptions>() ?? new SyncOptions();
        var tokens = configuration.GetSection(DeviceTokenOptions.SectionName).Get<DeviceTokenOptions>() ?? new DeviceTokenOptions();

        await using var connection = new StorageConnection(Options.Create(storage), NullLogger<EmbeddedPostgres>.Instance);
        await using var dataSource = StorageDataSource.Create(await connection.GetConnectionStringAsync(cancellationToken));
        await new SchemaMigrator(dataSource).MigrateAsync(cancellationToken);
        var secret = KoboLinkSecrets.New();
        var bounds = DeviceBounds.Now(sync.MaxDevicesPerUser, tokens.RevocationLifetime, TimeProvider.System);
        // No token asks here: the developer at the database's own machine is trusted, as the token command trusts them.
        var created = await new PostgresKoboLinkStore(dataSource).CreateAsync(user, device, KoboLinkSecrets.Hash(secret), bounds, revokedFrom: null, cancellationToken);
        if (created.Outcome == KoboLinkOutcome.NoSuchUser)
        {
            error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"User {user} does not exist in the database."));
            return 1;
        }

        var baseUrl = kobo.PublicBase?.GetLeftPart(UriPartial.Path).TrimEnd('/') ?? endpoints.Rest.TrimEnd('/');
        output.WriteLine(baseUrl + "/kobo/" + secret);
        return 0;
    }

    private static int Usage(TextWriter error, string message)
    {
        error.WriteLine(message);
        error.WriteLine("usage: token --kobo-link --user N [--device ID]");
        return 2;
    }
}
