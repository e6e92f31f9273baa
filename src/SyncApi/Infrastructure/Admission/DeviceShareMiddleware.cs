namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// First after authentication: a device's request takes one of its device's places
/// (<c>Admission:PerDeviceConcurrentRequests</c>) from the first byte of its body to the last byte of
/// its answer, and is refused at once (429 / RESOURCE_EXHAUSTED) when the device has none left. The
/// time a request waits on the device's network is outside the admission slots, so this is what bounds
/// how much of that waiting one device can make the instance do. A gRPC stream of answers
/// (<c>WatchChanges</c>) takes no place: its waits are bounded by live pull's own limits, the device's
/// share of them (<c>Sync:MaxWaitersPerDevice</c>) among them.
/// </summary>
internal sealed class DeviceShareMiddleware(RequestDelegate next, DeviceLoads loads)
{
    public async Task InvokeAsync(HttpContext context)
    {
        if (AdmissionRequests.DeviceOf(context) is not { } device || AdmissionRequests.StreamsAnswer(context))
        {
            await next(context);
            return;
        }

        if (!loads.TryEnter(device))
        {
            await AdmissionRejection.WriteDeviceShareAsync(context, "device has its share of requests in progress",
                "This device has too many requests in progress; retry later.");
            return;
        }

        try
        {
            await next(context);
        }
        finally
        {
            loads.Exit(device);
        }
    }
}
