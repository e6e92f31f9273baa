using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios;

/// <summary>
/// The i-th user a walk visits (from 0), for <see cref="UserOrder"/>: the shuffled order is
/// i -> (a * i + b) mod n with a coprime with n (so a bijection: every user once in n reads) and a
/// near 0.618 n (so neighbours in the walk land far apart in the table). Nothing is kept per user,
/// so it holds at any number of users.
/// </summary>
public sealed class UserWalk
{
    private readonly long _users;
    private readonly UInt128 _step;
    private readonly UInt128 _shift;
    private readonly bool _shuffled;

    public UserWalk(long users, UserOrder order, int seed)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(users, 1);
        _users = users;
        _shuffled = order == UserOrder.Shuffled && users > 2;
        if (_shuffled)
        {
            var step = Math.Max(1, (long)(users * 0.6180339887498949));
            while (Gcd(step, users) != 1)
            {
                step++;
            }

            _step = (UInt128)step;
            _shift = (UInt128)(uint)seed % (UInt128)users;
        }
    }

    /// <summary>The user number (from 1) the walk reads at position <paramref name="index"/> (any non-negative number; it wraps).</summary>
    public long UserAt(long index)
    {
        var i = index % _users;
        return _shuffled ? (long)((((_step * (UInt128)i) + _shift) % (UInt128)_users) + 1) : i + 1;
    }

    private static long Gcd(long a, long b)
    {
        while (b != 0)
        {
            (a, b) = (b, a % b);
        }

        return a;
    }
}
