using System.CommandLine;
using System.Globalization;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Cli;

/// <summary>
/// <c>token --user N [--device ID] [--hours H]</c> prints one device token signed with the configured
/// <c>Auth:SigningKey</c>; <c>token --users FROM-TO</c> prints <c>userNo TAB token</c> lines, one per user,
/// for load runs. Nothing else starts: no listener, no database. With <c>--kobo-link</c> it prints a Kobo
/// link instead (<see cref="KoboLinkCommand"/>), which needs the database.
/// </summary>
public static class TokenCommand
{
    public const string Name = "token";

    private const string UsageLine =
        "usage: token --user N [--device ID] [--hours H] | token --users FROM-TO [--device ID] [--hours H] | token --kobo-link --user N " +
        "[--device ID]";

    public static bool IsRequested(string[] args) => args.Length > 0 && args[0] == Name;

    public static int Run(IConfiguration configuration, string[] args, TextWriter output, TextWriter error) =>
        CommandLines.Invoke(CommandLines.Root(Create(configuration, output, error)), args, output, error, UsageLine);

    private static Command Create(IConfiguration configuration, TextWriter output, TextWriter error)
    {
        var user = new Option<string?>("--user") { Description = "The user number (above 0) the token is for." };
        var users = new Option<string?>("--users") { Description = "FROM-TO: one line per user, 'userNo TAB token', for load runs." };
        var device = new Option<string>("--device")
        {
            Description = "The device id the token carries.", DefaultValueFactory = _ => "dev-1",
        };
        var hours = new Option<double>("--hours")
        {
            Description = "Lifetime in hours, above 0 and at most Auth:MaxTokenLifetimeHours.",
            DefaultValueFactory = _ => 24.0,
        };
        var koboLink = new Option<bool>(KoboLinkCommand.Option)
        {
            Description = "Make a Kobo link in the database and print its api_endpoint instead (see token --kobo-link --help).",
        };

        var command = new Command(Name, "Print a device token signed with Auth:SigningKey (HS256); nothing else starts.")
        {
            user, users, device, hours, koboLink,
        };
        hours.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<double>() <= 0)
            {
                result.AddError("--hours must be above 0.");
            }
        });
        user.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string?>() is { } text && ParseUser(text) is null)
            {
                result.AddError($"--user must be a whole number above 0; it was '{text}'.");
            }
        });
        users.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string?>() is { } text && ParseRange(text) is null)
            {
                result.AddError($"--users must be FROM-TO, whole numbers with 0 < FROM <= TO; it was '{text}'.");
            }
        });
        command.Validators.Add(result =>
        {
            if (result.GetResult(user) is null && result.GetResult(users) is null)
            {
                result.AddError("Give --user N or --users FROM-TO.");
            }
        });
        command.SetAction(parse =>
        {
            using var settings = new CommandSettings(configuration, services =>
                services.AddValidatedOptions<DeviceTokenOptions, DeviceTokenOptionsValidator>(DeviceTokenOptions.SectionName));
            if (!settings.TryGet<DeviceTokenOptions>(error, out var options))
            {
                return CommandLines.BadArguments;
            }

            if (string.IsNullOrEmpty(options.SigningKey))
            {
                error.WriteLine("Minting needs Auth:SigningKey (HS256).");
                return CommandLines.BadArguments;
            }

            if (parse.GetValue(hours) > options.MaxTokenLifetimeHours)
            {
                return CommandLines.Usage(error, UsageLine,
                    $"--hours may be at most Auth:MaxTokenLifetimeHours ({options.MaxTokenLifetimeHours}): " +
                    $"the service refuses longer-lived tokens.");
            }

            var keys = new DeviceTokenKeys(Options.Create(options));
            var lifetime = TimeSpan.FromHours(parse.GetValue(hours));
            var deviceId = parse.GetValue(device)!;
            if (parse.GetValue(user) is { } userText)
            {
                output.WriteLine(keys.Signer.Mint(ParseUser(userText)!.Value, deviceId, lifetime));
                return 0;
            }

            var (from, to) = ParseRange(parse.GetValue(users)!)!.Value;
            for (var n = from; n <= to; n++)
            {
                output.Write(n.ToString(CultureInfo.InvariantCulture));
                output.Write('\t');
                output.WriteLine(keys.Signer.Mint(n, deviceId, lifetime));
            }

            return 0;
        });
        return command;
    }

    private static long? ParseUser(string text) =>
        long.TryParse(text, CultureInfo.InvariantCulture, out var userNo) && userNo > 0 ? userNo : null;

    private static (long From, long To)? ParseRange(string text) =>
        text.Split('-') is [var fromText, var toText]
        && long.TryParse(fromText, CultureInfo.InvariantCulture, out var from)
        && long.TryParse(toText, CultureInfo.InvariantCulture, out var to) && from > 0 && to >= from
            ? (from, to)
            : null;
}
