using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Microsoft.Extensions.DependencyInjection;

namespace Kobo.Sync.SyncApi.Tests.Live.Support;

/// <summary>
/// What one service instance's own <c>Kobo.Sync</c> instruments (or another meter's) record from now on, by instrument name
/// (summed over tags). Test classes run in parallel in one process and every instance's meter has the
/// same name, so /metrics of one instance may show another's; this listens to one instance's meter only.
/// </summary>
public sealed class HostInstruments : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentDictionary<string, double> _sums = new();
    private readonly ConcurrentDictionary<string, long> _counts = new();

    public HostInstruments(SyncGrpcTestHost host, string meter = "Kobo.Sync")
    {
        var factory = host.Services.GetRequiredService<IMeterFactory>();
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (ReferenceEquals(instrument.Meter.Scope, factory) && instrument.Meter.Name == meter)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, _, _) => Add(instrument.Name, value));
        _listener.SetMeasurementEventCallback<double>((instrument, value, _, _) => Add(instrument.Name, value));
        _listener.Start();
    }

    /// <summary>The sum of what the instrument recorded (for an up-down counter: its change since the start).</summary>
    public double Sum(string instrument) => _sums.GetValueOrDefault(instrument);

    /// <summary>How many measurements the instrument took (for a histogram: its count).</summary>
    public long Count(string instrument) => _counts.GetValueOrDefault(instrument);

    public void Dispose() => _listener.Dispose();

    private void Add(string instrument, double value)
    {
        _sums.AddOrUpdate(instrument, value, (_, sum) => sum + value);
        _counts.AddOrUpdate(instrument, 1, (_, count) => count + 1);
    }
}
