using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Devices;

/// <summary>
/// A device's pull as the device list keeps it: the position it came back with (what it has applied) and
/// when. A Kobo e-reader's library sync acknowledges no position of the native stream: null keeps the stored one.
/// </summary>
public sealed record DevicePull(UserNo User, string DeviceId, long? AckedSeq, DateTimeOffset At);

/// <summary>
/// Where each device stands, written behind the pulls: a pull records its device's position here and
/// answers at once; the positions reach the store together, a batch per interval, so a pull that finds
/// nothing new writes nothing on its way. What a crash loses is the last interval's positions: the device
/// list then shows an older sync for those devices until their next pull. Nothing else reads them (the
/// tombstone purge goes by age, and a token older than what it removed is refused), so a position stored
/// late or lower never lets a device miss a change.
/// </summary>
public interface IDevicePositions
{
    /// <summary>
    /// Records that <paramref name="deviceId"/> pulled now, coming back with position <paramref name="ackedSeq"/> (null: a Kobo library
    /// sync, which keeps the stored one).
    /// </summary>
    void Record(UserNo user, string deviceId, long? ackedSeq);

    /// <summary>Stores the positions of <paramref name="user"/>'s devices held here, so a device list read next sees them.</summary>
    Task FlushAsync(UserNo user, CancellationToken cancellationToken);
}
