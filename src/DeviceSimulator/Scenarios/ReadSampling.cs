using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Seeding;

namespace Kobo.Sync.DeviceSimulator.Scenarios;

/// <summary>
/// The benchmark's sampling: the highlight reads draw a user at random from the heaviest users (the
/// seed's list, 100,000 or all when fewer) and one of that user's books; user-by-id walks every user
/// once (in order, or shuffled so most reads miss the cache: <see cref="UserWalk"/>), each shard over
/// its own devices and so its own users; a walk can start <c>userOffset</c> users in, so a run that
/// follows another reads the users the first did not.
/// </summary>
public sealed class ReadSampling(
    DeviceFleet fleet, IReadOnlyList<HeavyUser> heaviest, long users, UserOrder order = UserOrder.InOrder, long userOffset = 0)
{
    private readonly UserWalk _walk = new(Math.Max(1, users), order, fleet.Seed);
    private readonly Lazy<HashSet<long>> _heavy = new(() => [.. heaviest.Select(h => h.UserNo)]);

    public DeviceFleet Fleet => fleet;

    /// <summary>Users in the data set.</summary>
    public long Users => users;

    public SimulatedDevice RandomDevice(long sequence, int salt) => fleet.ForSync(sequence, salt);

    public SimulatedDevice DeviceInOrder(long sequence) => fleet.InOrder(sequence);

    public HeavyUser HeavyUserOf(SimulatedDevice device) =>
        heaviest.Count > 0
            ? heaviest[device.Pick(heaviest.Count)]
            : throw new InvalidOperationException("The highlight reads need the seed's heaviest-users list (--heaviest).");

    /// <summary>Whether the user is on the heaviest-users list.</summary>
    public bool IsHeavy(long user) => _heavy.Value.Contains(user);

    public long BookOf(SimulatedDevice device, HeavyUser user) => user.Books[device.Pick(user.Books.Count, salt: 1)];

    /// <summary>The user of a device that reads users in turn: the walk's user at the device number (plus the offset).</summary>
    public long UserOf(SimulatedDevice device) => _walk.UserAt(device.Number + userOffset);
}
