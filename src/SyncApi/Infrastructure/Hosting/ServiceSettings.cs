using Microsoft.Extensions.Configuration.Json;
using Microsoft.Extensions.Configuration.Memory;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>
/// Where the service's settings come from. <c>appsettings.json</c> and <c>appsettings.{Environment}.json</c>
/// are read from the application's own directory (where <c>Kobo.Sync.SyncApi.dll</c> lies), from whatever
/// directory the process was started; a content root given explicitly (<c>--contentRoot</c>,
/// <c>ASPNETCORE_CONTENTROOT</c>) still wins. Relative data paths stay relative to the working directory.
/// Beneath the files lie the defaults in code (<see cref="Defaults"/>), chosen to be safe in production
/// when no file is found at all; the start says which files were read.
/// </summary>
internal static partial class ServiceSettings
{
    private const string ContentRootKey = "contentRoot";

    /// <summary>
    /// Defaults that have no options class of their own, the log levels, beneath every settings file (this class), chosen for
    /// production: without them every ASP.NET Core Information event (several per request) would be
    /// written. Grpc.AspNetCore's call handler logs at Error a request message it cannot parse (the
    /// caller's fault, answered INVALID_ARGUMENT), which a caller could repeat to flood the log; every
    /// failure of the service's own handlers is logged by <c>GrpcErrorInterceptor</c> instead.
    /// <c>appsettings.Development.json</c> lowers the default to Debug; any file may set any of these.
    /// </summary>
    internal static readonly IReadOnlyDictionary<string, string?> Defaults = new Dictionary<string, string?>
    {
        ["Serilog:MinimumLevel:Default"] = "Information",
        ["Serilog:MinimumLevel:Override:Microsoft.AspNetCore"] = "Warning",
        ["Serilog:MinimumLevel:Override:Microsoft.Hosting.Lifetime"] = "Information",
        ["Serilog:MinimumLevel:Override:Kobo.Sync.SyncApi.Infrastructure.Auth.DeviceTokenHandler"] = "Warning",
        ["Serilog:MinimumLevel:Override:Kobo.Sync.SyncApi.Infrastructure.Auth.KoboLinkHandler"] = "Warning",
        ["Serilog:MinimumLevel:Override:Grpc.AspNetCore.Server.ServerCallHandler"] = "Fatal",
    };

    public static WebApplicationBuilder CreateBuilder(string[] args)
    {
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions
        {
            Args = args,
            ContentRootPath = HasExplicitContentRoot(args) ? null : AppContext.BaseDirectory,
        });
        builder.Configuration.Sources.Insert(0, new MemoryConfigurationSource { InitialData = Defaults });
        return builder;
    }

    /// <summary>Logs each settings file with whether it was found; a missing <c>appsettings.json</c> is a warning.</summary>
    public static void LogSettingsFiles(this WebApplication app)
    {
        var logger = app.Services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(ServiceSettings).FullName!);
        foreach (var file in ((IConfigurationRoot)app.Configuration).Providers.OfType<JsonConfigurationProvider>().Select(p => p.Source))
        {
            var info = file.FileProvider?.GetFileInfo(file.Path ?? string.Empty);
            var path = info?.PhysicalPath ?? Path.Combine(app.Environment.ContentRootPath, file.Path ?? string.Empty);
            if (info is { Exists: true })
            {
                LogFileRead(logger, path);
            }
            else if (!file.Optional || string.Equals(Path.GetFileName(path), "appsettings.json", StringComparison.Ordinal))
            {
                LogMainFileMissing(logger, path);
            }
        }
    }

    private static bool HasExplicitContentRoot(string[] args) =>
        new ConfigurationBuilder()
            .AddEnvironmentVariables("DOTNET_")
            .AddEnvironmentVariables("ASPNETCORE_")
            .AddCommandLine(args)
            .Build()[ContentRootKey] is { Length: > 0 };

    [LoggerMessage(Level = LogLevel.Information, Message = "Settings read from {SettingsFile}")]
    private static partial void LogFileRead(ILogger logger, string settingsFile);

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "No settings file at {SettingsFile}: running on the defaults in code, environment variables and the command line")]
    private static partial void LogMainFileMissing(ILogger logger, string settingsFile);
}
