using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Live;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// Live pull: devices that wait for changes (<see cref="ChangeWaiters"/>, <see cref="LivePull"/>, used by
/// the REST pull's <c>wait</c> and gRPC <c>WatchChanges</c>), what tells them and the other instances of a
/// commit (<see cref="ChangeSignals"/>) and the database listener that hears the other instances
/// (<see cref="ChangeListener"/>). Its settings are in section <c>Sync</c>, bound here as well as by
/// storage and the device APIs, which read it too.
/// </summary>
public static class LivePullExtensions
{
    public static WebApplicationBuilder AddLivePull(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<SyncOptions>(SyncOptions.SectionName);
        builder.Services.AddSingleton<ChangeWaiters>();
        builder.Services.AddSingleton<QuietWaits>();
        builder.Services.AddSingleton<LivePull>();
        // Told of the stores' commits: wakes this instance's waiting devices and tells the other instances.
        builder.Services.AddSingleton<ChangeSignals>();
        builder.Services.AddSingleton<ICommitSignals>(sp => sp.GetRequiredService<ChangeSignals>());
        builder.Services.AddHostedService(sp => sp.GetRequiredService<ChangeSignals>());
        // After storage startup, so that a reachable database is migrated before it listens.
        builder.Services.AddSingleton<ChangeListener>();
        builder.Services.AddHostedService(sp => sp.GetRequiredService<ChangeListener>());
        return builder;
    }
}
