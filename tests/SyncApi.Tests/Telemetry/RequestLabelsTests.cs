using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Routing.Patterns;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

[Trait("Category", "Fast")]
public sealed class RequestLabelsTests
{
    [Theory]
    [InlineData(200, "ok")]
    [InlineData(304, "ok")]
    [InlineData(400, "invalid_argument")]
    [InlineData(401, "unauthenticated")]
    [InlineData(403, "permission_denied")]
    [InlineData(404, "not_found")]
    [InlineData(409, "conflict")]
    [InlineData(418, "client_error")]
    [InlineData(429, "resource_exhausted")]
    [InlineData(500, "internal")]
    [InlineData(503, "unavailable")]
    [InlineData(504, "deadline_exceeded")]
    public void HttpStatusesMapToOneOutcomeVocabulary(int status, string outcome) =>
        Assert.Equal(outcome, RequestOutcomes.FromHttpStatus(status));

    [Theory]
    [InlineData(0, "ok")]
    [InlineData(1, "cancelled")]
    [InlineData(2, "internal")]
    [InlineData(3, "invalid_argument")]
    [InlineData(4, "deadline_exceeded")]
    [InlineData(5, "not_found")]
    [InlineData(7, "permission_denied")]
    [InlineData(8, "resource_exhausted")]
    [InlineData(12, "unimplemented")]
    [InlineData(13, "internal")]
    [InlineData(14, "unavailable")]
    [InlineData(16, "unauthenticated")]
    public void GrpcStatusCodesMapToTheSameVocabulary(int status, string outcome) =>
        Assert.Equal(outcome, RequestOutcomes.FromGrpcStatus(status));

    [Theory]
    [InlineData("/kobo.sync.v1.SyncService/GetUser", null, "GetUser")]
    [InlineData("/grpc.health.v1.Health/Check", null, "grpc.health.v1.Health/Check")]
    [InlineData("/v1/users/{userNo}", "GetUser", "GetUser")]
    [InlineData("/healthz/ready", null, "/healthz/ready")]
    [InlineData("{**path}", null, "unmatched")]
    [InlineData("{unimplementedService}/{unimplementedMethod}", null, "unmatched")]
    [InlineData("kobo.sync.v1.SyncService/{unimplementedMethod}", null, "unmatched")]
    public void EndpointsAreLabelledByNameOrMethodNeverByPath(string route, string? name, string label)
    {
        var metadata = name is null ? new EndpointMetadataCollection() : new EndpointMetadataCollection(new EndpointNameMetadata(name));
        var endpoint = new RouteEndpoint(_ => Task.CompletedTask, RoutePatternFactory.Parse(route), 0, metadata, route);

        Assert.Equal(label, new EndpointLabels().For(endpoint).Endpoint);
    }

    [Fact]
    public void NoEndpointIsUnmatchedAndAMarkedEndpointIsExcluded()
    {
        var marked = new RouteEndpoint(
            _ => Task.CompletedTask, RoutePatternFactory.Parse("/metrics"), 0, new EndpointMetadataCollection(ExcludeFromRequestTelemetry.Instance), "metrics");

        Assert.Equal("unmatched", new EndpointLabels().For(null).Endpoint);
        Assert.True(new EndpointLabels().For(marked).IsExcluded);
    }
}
