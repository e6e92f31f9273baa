using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Grpc;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.AspNetCore.Http;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Errors;

/// <summary>
/// Every rejection the application raises is a row of the one table, and every row leaves on REST and on gRPC
/// as the row says. The answers' exact bytes are held by the protocol tests (Apis, Grpc, Resilience).
/// </summary>
[Trait("Category", "Fast")]
public sealed class RejectionKindsTests
{
    private static readonly TimeSpan RetryAfter = TimeSpan.FromMilliseconds(1500);

    /// <summary>One exception of each kind the table must hold.</summary>
    private static readonly Dictionary<Type, Exception> Samples = new Exception[]
    {
        new InvalidRequestException("pageSize", "The page size is 1..100."),
        new ResourceNotFoundException("User 9 does not exist."),
        new AccessDeniedException("Another user's data."),
        new BatchTooLargeException(501, 500),
        new TooManyRevokedDevicesException(20),
        new HighlightQuotaExceededException(new HighlightHoldings(11, 10), 10, 1000),
        new TombstoneQuotaExceededException(11, 10),
        CollectionBoundExceededException.TooManyCollections(11, 10),
        new SyncTokenExpiredException(),
        new StorageUnavailableException("The database did not answer.", RetryAfter),
        new InstanceOverloadedException(RetryAfter),
    }.ToDictionary(e => e.GetType());

    public static TheoryData<string> Kinds() => [.. RejectionKinds.All.Select(k => k.ExceptionType.Name)];

    [Fact]
    public void EveryRejectionTheApplicationRaisesIsARowOfTheTable()
    {
        var raised = typeof(RequestRejectedException).Assembly.GetTypes()
            .Where(t => t.IsSubclassOf(typeof(RequestRejectedException)) && !t.IsAbstract)
            .Append(typeof(StorageUnavailableException))
            .Append(typeof(InstanceOverloadedException))
            .Select(t => t.Name)
            .Order();

        Assert.Equal(raised, RejectionKinds.All.Select(k => k.ExceptionType.Name).Order());
        Assert.Equal(Samples.Keys.Select(t => t.Name).Order(), RejectionKinds.All.Select(k => k.ExceptionType.Name).Order());
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void EveryKindLeavesOnRestAsItsRowSays(string kindName)
    {
        var (kind, exception) = Row(kindName);
        var http = new DefaultHttpContext();

        var problem = RequestRejectedProblemHandler.ProblemFor(http, exception);

        Assert.NotNull(problem);
        Assert.Equal(kind.HttpStatus, problem.Status);
        Assert.Equal(kind.Title, problem.Title);
        Assert.Equal(exception.Message, problem.Detail);
        if (kind.Field?.Invoke(exception) is { } field)
        {
            var errors = Assert.IsType<Dictionary<string, string[]>>(problem.Extensions["errors"]);
            Assert.Equal([exception.Message], errors[field]);
        }
        else
        {
            Assert.False(problem.Extensions.ContainsKey("errors"));
        }

        Assert.Equal(kind.Setting?.Invoke(exception), problem.Extensions.TryGetValue("setting", out var setting) ? setting : null);
        if (kind.RetryAfter is null)
        {
            Assert.False(http.Response.Headers.ContainsKey("Retry-After"));
        }
        else
        {
            Assert.Equal("2", http.Response.Headers.RetryAfter.ToString());
            Assert.Equal(1500L, problem.Extensions[RetryAdvice.ProblemExtension]);
        }
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void EveryKindLeavesOnGrpcAsItsRowSays(string kindName)
    {
        var (kind, exception) = Row(kindName);

        var rpc = GrpcErrorInterceptor.Classify(exception);

        Assert.NotNull(rpc);
        Assert.Equal(kind.GrpcStatus, rpc.StatusCode);
        var named = kind.Field?.Invoke(exception) ?? kind.Setting?.Invoke(exception);
        Assert.Equal(named is null ? exception.Message : $"{named}: {exception.Message}", rpc.Status.Detail);
        var pushback = rpc.Trailers.Where(t => t.Key == RetryAdvice.GrpcPushbackTrailer).Select(t => t.Value).ToArray();
        Assert.Equal(kind.RetryAfter is null ? [] : ["1500"], pushback);
    }

    [Fact]
    public void AnExceptionOutsideTheTableIsLeftToEachProtocolsDefault()
    {
        var unknown = new InvalidOperationException("a fault");

        Assert.Null(RejectionKinds.Of(unknown));
        Assert.Null(RequestRejectedProblemHandler.ProblemFor(new DefaultHttpContext(), unknown));
        Assert.Null(GrpcErrorInterceptor.Classify(unknown));
    }

    private static (RejectionKind Kind, Exception Exception) Row(string kindName)
    {
        var kind = RejectionKinds.All.Single(k => k.ExceptionType.Name == kindName);
        return (kind, Samples[kind.ExceptionType]);
    }
}
