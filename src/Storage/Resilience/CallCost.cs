using Kobo.Sync.Domain.ChangeFeed;

namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// Who decides what a database call costs. The circuit breaker is shared by every device: it must
/// open on what says the database is unwell, not on what one device asked for. A call whose size the
/// service bounds (a point read, a default page, a small push) that overruns its budget says the
/// database is slow; a call whose size the device chose (a page of a thousand, a push of five hundred)
/// that overruns says how much was asked. So a caller-shaped call neither counts for nor against the
/// circuit: it is still refused while the circuit is not closed, and still bounded by its request's
/// budget, but its outcome, whatever it is, is not evidence the circuit samples. The database's real
/// outages still open it through the bounded calls every device makes (user look-ups, default pages,
/// small pushes), which fail the same way.
/// </summary>
public enum CallCost
{
    /// <summary>The service bounds the call's size: its outcome counts.</summary>
    Bounded,

    /// <summary>The caller chose the call's size beyond what the service bounds: its outcome does not count.</summary>
    CallerShaped,
}

/// <summary>Which calls are <see cref="CallCost.CallerShaped"/>.</summary>
public static class CallCosts
{
    /// <summary>
    /// The most rows a call may read or write and still be <see cref="CallCost.Bounded"/>: a default
    /// page (<see cref="DeviceSync.DefaultPageSize"/>) and its look-ahead row. A device that asks for
    /// more chose the cost; a push of up to as many changes is bounded as well.
    /// </summary>
    public const int BoundedRows = DeviceSync.DefaultPageSize + 1;

    /// <summary>The cost of a call that reads or writes up to <paramref name="rows"/> rows.</summary>
    public static CallCost OfRows(int rows) => rows > BoundedRows ? CallCost.CallerShaped : CallCost.Bounded;
}
