using System.Diagnostics;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using OpenTelemetry;
using OpenTelemetry.Exporter;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>
/// The service on real Kestrel (REST and gRPC) with every finished span kept in memory, through the
/// SDK's in-memory exporter added as a span processor, the way a real exporter is plugged in; taking
/// spans is what turns the service's tracer on.
/// </summary>
public sealed class TracedService : IDisposable
{
    private readonly ExportedSpans _exported = new();

    public TracedService() =>
        Host = new SyncGrpcTestHost(
            SharedDemoDatabase.ConnectionString,
            services => services.AddSpanProcessor(new SimpleActivityExportProcessor(new InMemoryExporter<Activity>(_exported))));

    public SyncGrpcTestHost Host { get; }

    /// <summary>The spans of one trace, waiting until its root (the server span) has finished.</summary>
    public async Task<IReadOnlyList<Activity>> TraceAsync(ActivityTraceId traceId)
    {
        var deadline = Stopwatch.StartNew();
        while (true)
        {
            var spans = _exported.Of(traceId);

            if (spans.Any(s => s.Kind == ActivityKind.Server) || deadline.Elapsed > TimeSpan.FromSeconds(10))
            {
                return spans;
            }

            await Task.Delay(50);
        }
    }

    /// <summary>Every span finished so far.</summary>
    public IReadOnlyList<Activity> AllSpans() => _exported.All();

    public void Dispose() => Host.Dispose();

    /// <summary>The exporter's collection, safe to read while spans of other requests are being added.</summary>
    private sealed class ExportedSpans : System.Collections.ObjectModel.Collection<Activity>
    {
        private readonly Lock _lock = new();

        public Activity[] Of(ActivityTraceId traceId)
        {
            lock (_lock)
            {
                return [.. Items.Where(a => a.TraceId == traceId)];
            }
        }

        public Activity[] All()
        {
            lock (_lock)
            {
                return [.. Items];
            }
        }

        protected override void InsertItem(int index, Activity item)
        {
            lock (_lock)
            {
                base.InsertItem(index, item);
            }
        }
    }
}
