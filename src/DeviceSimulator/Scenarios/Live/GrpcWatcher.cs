using System.Diagnostics;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Live;

/// <summary>
/// A device waiting over gRPC: one <c>WatchChanges</c> stream from its last token, read message by
/// message. The backlog comes first (the device counts as caught up at the first page without
/// <c>has_more</c>, a bounded number of devices catching up at once), then a page per commit, which is
/// held the moment it is read, and heartbeats while idle. A stream that ends (the service's
/// <c>Sync:WatchMaxSeconds</c>) is opened again from the last token at once; one refused (UNAVAILABLE,
/// RESOURCE_EXHAUSTED) after the server's pushback; any other failure after a backoff. No deadline:
/// the stream lives until the run stops it.
/// </summary>
public sealed class GrpcWatcher(SyncService.SyncServiceClient client, DeviceTokens tokens) : IWaiterTransport
{
    public async Task RunAsync(WaitingDevice device, WaiterContext context, CancellationToken stop)
    {
        var token = string.Empty;
        var caughtUp = false;
        var failures = 0;
        try
        {
            while (true)
            {
                var catchingUp = !caughtUp;
                TimeSpan? pause = null;
                if (catchingUp)
                {
                    await context.CatchingUp.WaitAsync(stop);
                }

                try
                {
                    context.Counters.Request();
                    var headers = new Metadata { { "authorization", "Bearer " + tokens.For(device.UserNo, device.Device) } };
                    using var call = client.WatchChanges(
                        new WatchChangesRequest { UserNo = device.UserNo, Since = token, PageSize = context.PageSize },
                        new CallOptions(headers, cancellationToken: stop));
                    while (await call.ResponseStream.MoveNext(stop))
                    {
                        var held = Stopwatch.GetTimestamp();
                        var message = call.ResponseStream.Current;
                        failures = 0;
                        if (message.Heartbeat)
                        {
                            context.Counters.Heartbeat();
                            continue;
                        }

                        foreach (var change in message.Changes)
                        {
                            if (change.Highlight is { } highlight)
                            {
                                context.Ledger.Receive(device.Group, device.Index, highlight.Id, held);
                            }
                        }

                        if (caughtUp && message.Changes.Count > 0)
                        {
                            context.Counters.AnswerWithChanges();
                        }

                        token = message.SyncToken;
                        if (!caughtUp && !message.HasMore)
                        {
                            caughtUp = true;
                            context.CaughtUp();
                            context.CatchingUp.Release();
                            catchingUp = false;
                        }
                    }
                }
                catch (RpcException exception) when (!stop.IsCancellationRequested)
                {
                    var attempt = Grpc.GrpcDeviceClient.Classify(exception);
                    if (attempt.Retryable && exception.StatusCode is StatusCode.Unavailable or StatusCode.ResourceExhausted)
                    {
                        context.Counters.Refused();
                    }
                    else
                    {
                        context.Counters.Error();
                    }

                    pause = context.Backoff(failures++, attempt.RetryAfter);
                }
                finally
                {
                    if (catchingUp)
                    {
                        context.CatchingUp.Release();
                    }
                }

                if (pause is { } wait)
                {
                    await Task.Delay(wait, stop);
                }
            }
        }
        catch (Exception exception) when (stop.IsCancellationRequested && exception is OperationCanceledException or RpcException)
        {
        }
    }
}
