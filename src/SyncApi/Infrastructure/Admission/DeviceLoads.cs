using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// What each device holds of this instance while the instance waits on the device's network: its
/// requests in progress (<c>Admission:PerDeviceConcurrentRequests</c>) and the bytes of its request
/// bodies (<c>Admission:PerDeviceBodyBytes</c>, and all its user's devices and Kobo links together
/// <c>Admission:PerUserBodyBytes</c>), within the instance's own body budgets: a body's first chunk
/// (64 KiB, the whole of every small body) from <c>Admission:SmallBodyBytes</c>, the rest of a large one
/// from <c>Admission:BodyBytes</c>. A device or user at its own bound is refused without touching anyone
/// else's share; large bodies, however many, never take the small bodies' reserve.
/// </summary>
public sealed class DeviceLoads(IOptions<AdmissionOptions> options, SyncMetrics? metrics = null)
{
    private readonly AdmissionOptions _options = options.Value;
    private readonly Dictionary<string, Load> _devices = new(StringComparer.Ordinal);
    private readonly Dictionary<string, long> _users = new(StringComparer.Ordinal);
    private long _bodyBytes;
    private long _reserveBytes;

    /// <summary>Why a body's bytes could not be held.</summary>
    public enum BodyRefusal
    {
        None,
        Device,
        User,
        Instance,
    }

    /// <summary>Bytes of request bodies held now, all devices together, reserve included.</summary>
    public long BodyBytes
    {
        get
        {
            lock (_devices)
            {
                return _bodyBytes + _reserveBytes;
            }
        }
    }

    /// <summary>One more request of <paramref name="device"/> in progress, unless it already has its bound.</summary>
    public bool TryEnter(string device)
    {
        lock (_devices)
        {
            if (_devices.TryGetValue(device, out var load))
            {
                if (load.Requests >= _options.PerDeviceConcurrentRequests)
                {
                    return false;
                }

                load.Requests++;
            }
            else
            {
                _devices.Add(device, new Load { Requests = 1 });
            }

            return true;
        }
    }

    /// <summary>A request of <paramref name="device"/> entered with <see cref="TryEnter"/> has ended.</summary>
    public void Exit(string device)
    {
        lock (_devices)
        {
            if (_devices.TryGetValue(device, out var load) && --load.Requests <= 0 && load.BodyBytes == 0)
            {
                _devices.Remove(device);
            }
        }
    }

    /// <summary>
    /// Holds <paramref name="bytes"/> more of a body of <paramref name="device"/> of <paramref name="user"/>, if
    /// their shares and the instance's budgets allow: a body's <paramref name="first"/> chunk from the small
    /// bodies' reserve (or, when it is full, the shared budget), any later one from the shared budget.
    /// <paramref name="fromReserve"/> says which, for <see cref="ReleaseBody"/>.
    /// </summary>
    public BodyRefusal TryHoldBody(string device, string user, long bytes, bool first, out bool fromReserve)
    {
        fromReserve = false;
        lock (_devices)
        {
            if (!_devices.TryGetValue(device, out var load))
            {
                load = new Load();
                _devices.Add(device, load);
            }

            if (load.BodyBytes + bytes > _options.PerDeviceBodyBytes)
            {
                return BodyRefusal.Device;
            }

            var userBytes = _users.GetValueOrDefault(user);
            if (userBytes + bytes > _options.PerUserBodyBytes)
            {
                return BodyRefusal.User;
            }

            if (first && _reserveBytes + bytes <= _options.SmallBodyBytes)
            {
                fromReserve = true;
                _reserveBytes += bytes;
            }
            else if (_bodyBytes + bytes <= _options.BodyBytes)
            {
                _bodyBytes += bytes;
            }
            else
            {
                return BodyRefusal.Instance;
            }

            load.BodyBytes += bytes;
            _users[user] = userBytes + bytes;
        }

        metrics?.AddBufferedBytes(BufferedDirection.Request, bytes);
        return BodyRefusal.None;
    }

    /// <summary>
    /// Gives back bytes held with <see cref="TryHoldBody"/>: <paramref name="shared"/> from the shared budget, <paramref name="reserve"/>
    /// from the reserve.
    /// </summary>
    public void ReleaseBody(string device, string user, long shared, long reserve)
    {
        var bytes = shared + reserve;
        if (bytes == 0)
        {
            return;
        }

        lock (_devices)
        {
            _bodyBytes -= shared;
            _reserveBytes -= reserve;
            if (_users.TryGetValue(user, out var userBytes) && (userBytes -= bytes) <= 0)
            {
                _users.Remove(user);
            }
            else if (userBytes > 0)
            {
                _users[user] = userBytes;
            }

            if (_devices.TryGetValue(device, out var load) && (load.BodyBytes -= bytes) == 0 && load.Requests <= 0)
            {
                _devices.Remove(device);
            }
        }

        metrics?.AddBufferedBytes(BufferedDirection.Request, -bytes);
    }

    private sealed class Load
    {
        public int Requests;
        public long BodyBytes;
    }
}
