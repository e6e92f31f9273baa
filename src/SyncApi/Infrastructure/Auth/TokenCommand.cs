using System.Globalization;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// <c>token --user N [--device ID] [--hours H]</c> prints one device token signed with the configured
/// <c>Auth:SigningKey</c>; <c>token --users FROM-TO</c> prints <c>userNo TAB token</c> lines, one per user,
/// for load runs. Nothing else starts: no listener, no database. With <c>--kobo-link</c> it prints a Kobo
/// link instead (<see cref="Kobo.KoboLinkCommand"/>), which needs the database.
/// </summary>
public static class TokenCommand
{
    public const string Name = "token";

    public static bool IsRequested(string[] args) => args.Length > 0 && args[0] == Name;

    public static int Run(IConfiguration configuration, string[] args, TextWriter output, TextWriter error)
    {
        var options = new DeviceTokenOptions();
        configuration.GetSection(DeviceTokenOptions.SectionName).Bind(options);
        var problem = new DeviceTokenOptionsValidator().Validate(null, options);
        if (problem.Failed || string.IsNullOrEmpty(options.SigningKey))
        {
            error.WriteLine(problem.Failed ? problem.FailureMessage : "Minting needs Auth:SigningKey (HS256).");
            return 2;
        }

        string? user = null, users = null, device = "dev-1";
        var hours = 24.0;
        for (var i = 1; i < args.Length - 1; i += 2)
        {
            switch (args[i])
            {
                case "--user": user = args[i + 1]; break;
                case "--users": users = args[i + 1]; break;
                case "--device": device = args[i + 1]; break;
                case "--hours" when double.TryParse(args[i + 1], CultureInfo.InvariantCulture, out var h) && h > 0: hours = h; break;
                default: return Usage(error, $"Unknown or invalid option '{args[i]} {args[i + 1]}'.");
            }
        }

        if (hours > options.MaxTokenLifetimeHours)
        {
            return Usage(error, $"--hours may be at most Auth:MaxTokenLifetimeHours ({options.MaxTokenLifetimeHours}): the service refuses longer-lived tokens.");
        }

        var keys = new DeviceTokenKeys(Options.Create(options));
        var lifetime = TimeSpan.FromHours(hours);
        if (user is not null && long.TryParse(user, CultureInfo.InvariantCulture, out var userNo) && userNo > 0)
        {
            output.WriteLine(DevelopmentTokens.Mint(keys, userNo, device, lifetime));
            return 0;
        }

        if (users?.Split('-') is [var fromText, var toText]
            && long.TryParse(fromText, CultureInfo.InvariantCulture, out var from)
            && long.TryParse(toText, CultureInfo.InvariantCulture, out var to) && from > 0 && to >= from)
        {
            for (var n = from; n <= to; n++)
            {
                output.Write(n.ToString(CultureInfo.InvariantCulture));
                output.Write('\t');
                output.WriteLine(DevelopmentTokens.Mint(keys, n, device, lifetime));
            }

            return 0;
        }

        return Usage(error, "Give --user N or --users FROM-TO.");
    }

    private static int Usage(TextWriter error, string message)
    {
        error.WriteLine(message);
        error.WriteLine("usage: token --user N [--device ID] [--hours H] | token --users FROM-TO [--device ID] [--hours H] | token --kobo-link --user N [--device ID]");
        return 2;
    }
}
