using System.Collections.Concurrent;
using Kobo.Sync.Contracts.Tokens;

namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>
/// Device tokens minted with the service's signing key by the contract's signer. A real device
/// keeps its token for its lifetime, so tokens are cached, but in a bounded cache (cleared when full)
/// so ten million devices never mean ten million cached tokens. The entries are counted apart, as the
/// service's own token cache does: the dictionary's <c>Count</c> takes every one of its locks, on every
/// new device, which is nearly every sync of a fleet's day.
/// </summary>
public sealed class DeviceTokens(DeviceTokenSigner signer, TimeSpan lifetime, int capacity = 50_000)
{
    private readonly ConcurrentDictionary<(long User, long Device), (string Token, DateTimeOffset RenewAt)> _cache = new();

    // About the entries held: a race may count one more or fewer until the next clearing.
    private int _count;

    public string For(long userNo, SimulatedDevice device)
    {
        var now = DateTimeOffset.UtcNow;
        if (_cache.TryGetValue((userNo, device.Number), out var cached) && cached.RenewAt > now)
        {
            return cached.Token;
        }

        if (Volatile.Read(ref _count) >= capacity)
        {
            _cache.Clear();
            Volatile.Write(ref _count, 0);
        }

        var token = signer.Mint(userNo, device.DeviceId, lifetime, now);
        if (_cache.TryAdd((userNo, device.Number), (token, now + (lifetime / 2))))
        {
            Interlocked.Increment(ref _count);
        }
        else
        {
            _cache[(userNo, device.Number)] = (token, now + (lifetime / 2));
        }

        return token;
    }
}
