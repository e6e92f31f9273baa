using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Cli;

/// <summary>
/// The settings of the service's commands (<c>token</c>, <c>token --kobo-link</c>), bound and checked as
/// the service binds and checks them (<see cref="OptionsExtensions.AddValidatedOptions{TOptions}(IServiceCollection, string)"/>),
/// so a bad setting stops the command with the message that would stop the service.
/// </summary>
internal sealed class CommandSettings : IDisposable
{
    private readonly ServiceProvider _services;

    public CommandSettings(IConfiguration configuration, Action<IServiceCollection> add)
    {
        var services = new ServiceCollection();
        services.AddSingleton(configuration);
        add(services);
        _services = services.BuildServiceProvider();
    }

    /// <summary>The checked options, or false with the failure (naming the key) written to <paramref name="error"/>.</summary>
    public bool TryGet<TOptions>(TextWriter error, out TOptions options)
        where TOptions : class
    {
        try
        {
            options = _services.GetRequiredService<IOptions<TOptions>>().Value;
            return true;
        }
        catch (OptionsValidationException failure)
        {
            error.WriteLine(failure.Message);
            options = null!;
            return false;
        }
    }

    /// <summary>The environment the service would run in with these settings (ASP.NET Core's default: Production).</summary>
    public static string EnvironmentName(IConfiguration configuration) =>
        configuration[HostDefaults.EnvironmentKey] is { Length: > 0 } name ? name : Environments.Production;

    public void Dispose() => _services.Dispose();
}
