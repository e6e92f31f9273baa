using System.Collections.Concurrent;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The revoked devices this instance knows of, checked by <see cref="DeviceTokenHandler"/> on every
/// request, cached tokens included. A revocation made here applies from the next request on; one made
/// by another instance arrives through <c>DeviceRevocationRefresher</c>, which polls the store. A token
/// issued (<c>iat</c>) more than the accepted clock skew (<c>Auth:ClockSkewSeconds</c>) after the
/// revocation passes, so a re-enrolled device with a fresh token works. The skew is the allowance
/// authentication gives an issuer's clock that runs ahead: a token minted just before the revocation by
/// such a clock says it was issued up to the skew later, and must still count as revoked. The price: a
/// token minted for the same device within the skew after its revocation is refused too, so re-enrolling
/// a revoked device means minting its new token more than the skew after the revocation.
/// A revocation is kept only while it is in force (<see cref="ForgetBefore"/>): its size is that of the
/// revocations made within a token's lifetime, which the per-user device limit bounds.
/// </summary>
public sealed class DeviceRevocationList : IRevokedDevices
{
    private readonly ConcurrentDictionary<(long User, string Device), DateTimeOffset> _revoked = new();
    private readonly long _skewSeconds;

    /// <param name="clockSkew">The clock skew authentication accepts (<c>Auth:ClockSkewSeconds</c>); whole seconds count.</param>
    public DeviceRevocationList(TimeSpan clockSkew = default)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(clockSkew, TimeSpan.Zero);
        _skewSeconds = (long)clockSkew.TotalSeconds;
        ClockSkew = TimeSpan.FromSeconds(_skewSeconds);
    }

    /// <summary>The list with the clock skew authentication accepts (<c>Auth:ClockSkewSeconds</c>), for the container.</summary>
    public static DeviceRevocationList FromSettings(IServiceProvider services) =>
        new(TimeSpan.FromSeconds(services.GetRequiredService<IOptions<DeviceTokenOptions>>().Value.ClockSkewSeconds));

    /// <summary>The allowance added to a revocation's time: a token issued up to it after the revocation counts as revoked.</summary>
    public TimeSpan ClockSkew { get; }

    /// <summary>No device revoked: the usual case, checked without reading the token's claims.</summary>
    public bool IsEmpty => _revoked.IsEmpty;

    /// <summary>How many revocations this instance holds.</summary>
    public int Count => _revoked.Count;

    /// <summary>
    /// Keeps the later of the known and the given time: a device revoked, re-enrolled and revoked again
    /// must lose the token it got in between; an older time arriving late (a refresh) changes nothing.
    /// </summary>
    public void Revoke(UserNo user, string deviceId, DateTimeOffset revokedAt)
    {
        var changed = false;
        _revoked.AddOrUpdate(
            (user.Value, deviceId),
            _ =>
            {
                changed = true;
                return revokedAt;
            },
            (_, known) =>
            {
                changed = known < revokedAt;
                return changed ? revokedAt : known;
            });
        if (changed)
        {
            Revoked?.Invoke(user.Value);
        }
    }

    /// <summary>A revocation new to this instance (or a later time for a known one), with its user: held requests re-check.</summary>
    public event Action<long>? Revoked;

    /// <summary>
    /// Drops the revocations made before <paramref name="cutoff"/>: every token they refused has
    /// expired. A revocation renewed meanwhile (a later time) stays. Returns how many were dropped.
    /// </summary>
    public int ForgetBefore(DateTimeOffset cutoff)
    {
        var forgotten = 0;
        foreach (var entry in _revoked)
        {
            if (entry.Value < cutoff && _revoked.TryRemove(entry))
            {
                forgotten++;
            }
        }

        return forgotten;
    }

    /// <summary>True when the device is revoked and the token was issued at or before that, plus <see cref="ClockSkew"/>.</summary>
    public bool IsRevoked(UserNo user, string deviceId, DateTimeOffset issuedAt) =>
        !_revoked.IsEmpty
        && _revoked.TryGetValue((user.Value, deviceId), out var revokedAt)
        && IsIssuedUpTo(issuedAt, revokedAt, ClockSkew);

    /// <summary>
    /// The one rule, shared with the store's check at link creation (<c>KoboLinkQueries.Create</c>):
    /// iat has whole seconds, so a token of the second that ends <paramref name="skew"/> after the
    /// revocation's own second counts as revoked.
    /// </summary>
    public static bool IsIssuedUpTo(DateTimeOffset issuedAt, DateTimeOffset revokedAt, TimeSpan skew) =>
        issuedAt.ToUnixTimeSeconds() - (long)skew.TotalSeconds <= revokedAt.ToUnixTimeSeconds();
}
