using System.CommandLine;
using System.Globalization;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.Storage.Stores;
using Microsoft.Extensions.Options;
#if DEVELOPMENT_SERVER
using Kobo.Sync.DevServer;
#endif

namespace Kobo.Sync.SyncApi.Infrastructure.Cli;

/// <summary>
/// <c>token --kobo-link --user N [--device ID]</c>: for development, makes a Kobo link for the user's
/// device in the configured database (the embedded server's when no connection string is set, started
/// for the purpose if the service is not running) and prints the <c>api_endpoint</c> to paste into
/// <c>Kobo eReader.conf</c>, built on <c>Kobo:PublicBaseUrl</c> or else the REST listener's address.
/// </summary>
public static class KoboLinkCommand
{
    public const string Option = "--kobo-link";

    private const string UsageLine = "usage: token --kobo-link --user N [--device ID]";

    public static bool IsRequested(string[] args) => TokenCommand.IsRequested(args) && args.Contains(Option);

    public static Task<int> RunAsync(
        IConfiguration configuration, string[] args, TextWriter output, TextWriter error, CancellationToken cancellationToken = default) =>
        CommandLines.InvokeAsync(
            CommandLines.Root(Create(configuration, output, error)), args, output, error, UsageLine, cancellationToken);

    private static Command Create(IConfiguration configuration, TextWriter output, TextWriter error)
    {
        var koboLink = new Option<bool>(Option) { Description = "Make a Kobo link rather than a token.", Required = true };
        var userOption = new Option<string>("--user") { Description = "The user number (above 0) the link is for.", Required = true };
        var linkingDeviceOption = new Option<string>("--device")
        {
            Description = "The linking device: the id of the user's device the link is made under (the e-reader calls through the link).",
            DefaultValueFactory = _ => "dev-1",
        };
        var command = new Command(TokenCommand.Name,
            "With --kobo-link: make a Kobo link for the user's device in the configured database and print the api_endpoint for Kobo " +
            "eReader.conf.")
        {
            koboLink, userOption, linkingDeviceOption,
        };
        userOption.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string>() is { } text && !UserNo.TryParse(text, out _))
            {
                result.AddError($"--user must be a whole number above 0; it was '{text}'.");
            }
        });
        linkingDeviceOption.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string>() is { } device && !DeviceIds.IsValid(device))
            {
                result.AddError($"--device must be {DeviceIds.Rule}.");
            }
        });
        command.SetAction((parse, cancellationToken) =>
        {
            _ = UserNo.TryParse(parse.GetValue(userOption), out var user);
            return LinkAsync(configuration, user, parse.GetValue(linkingDeviceOption)!, output, error, cancellationToken);
        });
        return command;
    }

    private static async Task<int> LinkAsync(
        IConfiguration configuration, UserNo user, string linkingDevice,
        TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        using var settings = new CommandSettings(configuration, services =>
        {
            services.AddValidatedOptions<KoboOptions, KoboOptionsValidator>(KoboOptions.SectionName);
            services.AddValidatedOptions<EndpointsOptions, EndpointsOptionsValidator>(EndpointsOptions.SectionName);
            services.AddValidatedOptions<StorageOptions, StorageOptionsValidator>(StorageOptions.SectionName)
                .PostConfigure(storage => storage.DefaultEmbeddedFor(CommandSettings.EnvironmentName(configuration)));
            services.AddValidatedOptions<SyncOptions>(SyncOptions.SectionName);
            // The lifetimes only: no signing key is needed to make a link.
            services.AddValidatedOptions<DeviceTokenOptions>(DeviceTokenOptions.SectionName);
        });
        if (!settings.TryGet<KoboOptions>(error, out var kobo)
            || !settings.TryGet<EndpointsOptions>(error, out var endpoints)
            || !settings.TryGet<StorageOptions>(error, out var storage)
            || !settings.TryGet<SyncOptions>(error, out var sync)
            || !settings.TryGet<DeviceTokenOptions>(error, out var tokens))
        {
            return CommandLines.BadArguments;
        }

#if DEVELOPMENT_SERVER
        await using var connection = new StorageConnection(Options.Create(storage), DevelopmentServerExtensions.Launcher());
#else
        await using var connection = new StorageConnection(Options.Create(storage));
#endif
        await using var dataSource = StorageDataSource.Create(await connection.GetConnectionStringAsync(cancellationToken));
        await new SchemaMigrator(dataSource).MigrateAsync(cancellationToken);
        var store = new PostgresKoboLinkStore(dataSource);
        var secret = KoboLinkSecrets.New(await store.SecretKeyAsync(cancellationToken));
        var bounds = DeviceBounds.Now(sync.MaxDevicesPerUser, tokens.RevocationLifetime, TimeProvider.System);
        // No token asks here: the developer at the database's own machine is trusted, as the token command trusts them.
        var created = await store.CreateAsync(
            user, linkingDevice, KoboLinkSecrets.Hash(secret), bounds, revokedFrom: null, cancellationToken);
        if (created.Outcome == KoboLinkOutcome.NoSuchUser)
        {
            error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"User {user} does not exist in the database."));
            return 1;
        }

        var baseUrl = kobo.PublicBase?.GetLeftPart(UriPartial.Path).TrimEnd('/') ?? endpoints.Rest.TrimEnd('/');
        output.WriteLine(baseUrl + "/kobo/" + secret);
        return 0;
    }
}
