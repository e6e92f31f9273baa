using System.Collections.Concurrent;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>
/// Device tokens minted with the service's own development token code and signing key. A real device
/// keeps its token for its lifetime, so tokens are cached, but in a bounded cache (cleared when full)
/// so ten million devices never mean ten million cached tokens.
/// </summary>
public sealed class DeviceTokens(DeviceTokenOptions options, TimeSpan lifetime, int capacity = 50_000)
{
    private readonly DeviceTokenKeys _keys = new(Options.Create(options));
    private readonly ConcurrentDictionary<(long User, long Device), (string Token, DateTimeOffset RenewAt)> _cache = new();

    public string For(long userNo, SimulatedDevice device)
    {
        var now = DateTimeOffset.UtcNow;
        if (_cache.TryGetValue((userNo, device.Number), out var cached) && cached.RenewAt > now)
        {
            return cached.Token;
        }

        if (_cache.Count >= capacity)
        {
            _cache.Clear();
        }

        var token = DevelopmentTokens.Mint(_keys, userNo, device.DeviceId, lifetime, now);
        _cache[(userNo, device.Number)] = (token, now + (lifetime / 2));
        return token;
    }
}
