using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>A device's pull of changes over REST or gRPC, as the fault tests send it; the answer as "REST 200" or "gRPC OK".</summary>
public static class DevicePulls
{
    public static async Task<string> RestAsync(HttpClient rest, long user, string device, int? pageSize = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{user}/changes" + (pageSize is { } size ? $"?pageSize={size}" : string.Empty));
        request.Headers.Authorization = new("Bearer", TestTokens.For(user, device));
        using var response = await rest.SendAsync(request, TestTimeout.Token);
        return $"REST {(int)response.StatusCode}";
    }

    public static async Task<string> GrpcAsync(GrpcTestClient grpc, long user, string device, int? pageSize = null)
    {
        var request = new PullChangesRequest { UserNo = user };
        if (pageSize is { } size)
        {
            request.PageSize = size;
        }

        try
        {
            await grpc.UnaryAsync(
                SyncGrpcService.ServiceName, "PullChanges", request, PullChangesResponse.Parser,
                metadata: [new("authorization", $"Bearer {TestTokens.For(user, device)}")], cancellationToken: TestTimeout.Token);
            return $"gRPC {StatusCode.OK}";
        }
        catch (RpcException e)
        {
            return $"gRPC {e.StatusCode}";
        }
    }
}
