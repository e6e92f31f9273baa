using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// What each device holds of this instance while the instance waits on the device's network: its
/// requests in progress (<c>Admission:PerDeviceConcurrentRequests</c>) and the bytes of its request
/// bodies (<c>Admission:PerDeviceBodyBytes</c>), within the instance's own body budget
/// (<c>Admission:BodyBytes</c>). A device at its own bound is refused without touching anyone else's
/// share; only many devices together can reach the instance's budget.
/// </summary>
public sealed class DeviceLoads(IOptions<AdmissionOptions> options, SyncMetrics? metrics = null)
{
    private readonly AdmissionOptions _options = options.Value;
    private readonly Dictionary<string, Load> _devices = new(StringComparer.Ordinal);
    private long _bodyBytes;

    /// <summary>Why a body's bytes could not be held.</summary>
    public enum BodyRefusal
    {
        None,
        Device,
        Instance,
    }

    /// <summary>Bytes of request bodies held now, all devices together.</summary>
    public long BodyBytes
    {
        get
        {
            lock (_devices)
            {
                return _bodyBytes;
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

    /// <summary>Holds <paramref name="bytes"/> more of a body of <paramref name="device"/>, if its share and the instance's budget allow.</summary>
    public BodyRefusal TryHoldBody(string device, long bytes)
    {
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

            if (_bodyBytes + bytes > _options.BodyBytes)
            {
                return BodyRefusal.Instance;
            }

            load.BodyBytes += bytes;
            _bodyBytes += bytes;
        }

        metrics?.AddBufferedBytes(BufferedDirection.Request, bytes);
        return BodyRefusal.None;
    }

    /// <summary>Gives back bytes held with <see cref="TryHoldBody"/>.</summary>
    public void ReleaseBody(string device, long bytes)
    {
        if (bytes == 0)
        {
            return;
        }

        lock (_devices)
        {
            _bodyBytes -= bytes;
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
