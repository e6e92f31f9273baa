namespace Kobo.Sync.DeviceSimulator.Scenarios;

/// <summary>
/// A scenario with devices that wait in the background while the engine runs its syncs (live pull):
/// started before the warm-up, their window opened as the engine starts, stopped after it.
/// </summary>
public interface IWaitingScenario
{
    /// <summary>Starts the waiting devices and returns once each has caught up and waits (or the start's time bound has passed).</summary>
    Task StartWaitersAsync(CancellationToken cancellationToken);

    /// <summary>The syncs begin: from now on the waiting devices' requests are counted.</summary>
    void OpenWindow();

    /// <summary>
    /// After the last sync: lets the waiting devices receive what they are owed (with <paramref name="drain"/>,
    /// up to the scenario's drain time), stops them, and records their counts. Once; later calls do nothing.
    /// </summary>
    Task StopWaitersAsync(bool drain, CancellationToken cancellationToken);
}
