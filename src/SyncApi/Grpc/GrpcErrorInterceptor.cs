using System.Diagnostics;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// The one place where the application's rejections become gRPC statuses, for every method of every
/// service: the rows of <see cref="RejectionKinds"/> (the table REST's problems come from too), and a watch the
/// instance refused. The call's deadline also narrows the request's database budget here, so a storage call
/// never outlives the deadline by more than <see cref="DeadlineGrace"/>; the grace lets the deadline,
/// not the storage timeout, decide the status. A failure after the deadline has passed is
/// DEADLINE_EXCEEDED, a failure after the client left is CANCELLED, and an exception not listed here
/// leaves as INTERNAL with a generic message and is logged (Grpc.AspNetCore alone would answer UNKNOWN).
/// </summary>
internal sealed partial class GrpcErrorInterceptor(ILogger<GrpcErrorInterceptor> logger, TimeProvider clock) : Interceptor
{
    internal const string GenericInternalMessage = "The server failed to process the call.";
    internal static readonly TimeSpan DeadlineGrace = TimeSpan.FromMilliseconds(50);

    public override async Task<TResponse> UnaryServerHandler<TRequest, TResponse>(
        TRequest request, ServerCallContext context, UnaryServerMethod<TRequest, TResponse> continuation)
    {
        NarrowBudget(context);
        try
        {
            ThrowIfPastDeadline(context);
            var response = await continuation(request, context);
            // Grpc.AspNetCore's deadline is a timer: a handler that finished before it fired would still answer OK.
            ThrowIfPastDeadline(context);
            return response;
        }
        catch (Exception exception) when (exception is not RpcException)
        {
            throw ToRpcException(exception, context);
        }
    }

    public override async Task ServerStreamingServerHandler<TRequest, TResponse>(
        TRequest request, IServerStreamWriter<TResponse> responseStream,
        ServerCallContext context, ServerStreamingServerMethod<TRequest, TResponse> continuation)
    {
        NarrowBudget(context);
        try
        {
            await continuation(request, responseStream, context);
        }
        catch (Exception exception) when (exception is not RpcException)
        {
            throw ToRpcException(exception, context);
        }
    }

    /// <summary>The status a domain exception maps to, or null for one the application does not know.</summary>
    internal static RpcException? Classify(Exception exception) => RejectionKinds.Of(exception) is { } kind
        ? Rejected(kind, exception)
        : exception switch
    {
        // The user's own devices fill its budget (as one device over its rate); anything else is the instance's.
        WaitRefusedException refused => new RpcException(
            new Status(
                refused.Reason is WaitAdmission.UserFull or WaitAdmission.DeviceFull
                    ? StatusCode.ResourceExhausted
                    : StatusCode.Unavailable, refused.Message),
            Pushback(refused.RetryAfter)),
        _ => null,
    };

    private static RpcException Rejected(RejectionKind kind, Exception exception)
    {
        var status = new Status(kind.GrpcStatus, kind.GrpcMessage(exception));
        return kind.RetryAfter?.Invoke(exception) is { } retryAfter
            ? new RpcException(status, Pushback(retryAfter))
            : new RpcException(status);
    }

    internal static Metadata Pushback(TimeSpan retryAfter)
    {
        var (key, value) = RetryAdvice.GrpcTrailer(retryAfter);
        return new Metadata { { key, value } };
    }

    private void NarrowBudget(ServerCallContext context)
    {
        // DateTime.MaxValue: no deadline (none sent, or a grpc-timeout Grpc.AspNetCore could not read).
        if (context.Deadline != DateTime.MaxValue)
        {
            RequestBudget.NarrowTo(new DateTimeOffset(context.Deadline, TimeSpan.Zero) + DeadlineGrace);
        }
    }

    private bool IsPastDeadline(ServerCallContext context) =>
        context.Deadline != DateTime.MaxValue && clock.GetUtcNow().UtcDateTime >= context.Deadline;

    private void ThrowIfPastDeadline(ServerCallContext context)
    {
        if (IsPastDeadline(context))
        {
            throw DeadlineExceeded();
        }
    }

    private static RpcException DeadlineExceeded() => new(new Status(StatusCode.DeadlineExceeded, "Deadline exceeded."));

    private RpcException ToRpcException(Exception exception, ServerCallContext context)
    {
        // Whatever failed once the deadline had passed, or within the grace before it, the client has
        // stopped waiting or is about to: it is DEADLINE_EXCEEDED. The grace covers a storage timeout
        // racing the deadline: the request's budget (Resilience:RequestBudgetMs from arrival) can end a
        // few hundred microseconds before a deadline of the same length, and its timer may fire early
        // by as much again; such a failure is the deadline's, not an unavailable database's.
        if (context.Deadline != DateTime.MaxValue && clock.GetUtcNow().UtcDateTime + DeadlineGrace >= context.Deadline)
        {
            return DeadlineExceeded();
        }

        if (exception is OperationCanceledException or IOException && context.CancellationToken.IsCancellationRequested)
        {
            return new RpcException(new Status(StatusCode.Cancelled, "The call was cancelled by the client."));
        }

        if (Classify(exception) is { } mapped)
        {
            return mapped;
        }

        LogUnhandled(logger, exception, context.Method, Activity.Current?.TraceId.ToString());
        return new RpcException(new Status(StatusCode.Internal, GenericInternalMessage));
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "gRPC call {GrpcMethod} failed with an unhandled exception (trace {TraceId})")]
    private static partial void LogUnhandled(ILogger logger, Exception exception, string grpcMethod, string? traceId);
}
