using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;
using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A body read whole into the service's own memory before admission is the body the endpoint reads:
/// pushes of many 64 KiB chunks over REST (Request.Body) and gRPC (Request.BodyReader) store every change
/// exactly as sent.
/// </summary>
public sealed class ArrivedBodyTests(SyncGrpcTestHost host) : IClassFixture<SyncGrpcTestHost>
{
    private const long User = 4_200_003;
    private const int Changes = 300;

    [Fact]
    public async Task PushesOfManyChunksAreReadWholeOverRestAndGrpc()
    {
        await DevicePushes.AddUserAsync(host.Services.GetRequiredService<NpgsqlDataSource>(), User);
        var texts = Enumerable.Range(0, 2 * Changes).ToDictionary(i => $"chunked-{i}", i => $"{i}:" + new string((char)('a' + (i % 26)), 1_000 + i));

        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        using var request = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{User}/changes")
        {
            Content = JsonContent.Create(new
            {
                changes = texts.Take(Changes).Select(t => new
                {
                    op = "upsert", bookNo = "7", key = t.Key, text = t.Value, start = 0, length = 30, color = "yellow", modifiedAt = DateTimeOffset.UtcNow,
                }),
            }),
        };
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(User, "chunked-rest"));
        using var pushed = await rest.SendAsync(request, TestTimeout.Token);
        var restResults = JsonDocument.Parse(await pushed.Content.ReadAsStringAsync()).RootElement.GetProperty("results");

        var grpcResults = await host.Client.PushAsync(User, [.. texts.Skip(Changes).Select(t => new PushedChange
        {
            Op = "upsert", BookNo = 7, Key = t.Key, Text = t.Value, Start = 0, Length = 30, Color = "yellow", ModifiedAt = Timestamp.FromDateTimeOffset(DateTimeOffset.UtcNow),
        })]);

        Assert.Equal(200, (int)pushed.StatusCode);
        Assert.Equal(Changes, restResults.GetArrayLength());
        Assert.All(restResults.EnumerateArray(), r => Assert.Equal("applied", r.GetProperty("status").GetString()));
        Assert.Equal(Changes, grpcResults.Results.Count);
        Assert.All(grpcResults.Results, r => Assert.Equal("applied", r.Status));

        using var pull = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{User}/changes?pageSize=1000");
        pull.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(User, "chunked-reader"));
        using var pulled = await rest.SendAsync(pull, TestTimeout.Token);
        var stored = JsonDocument.Parse(await pulled.Content.ReadAsStringAsync()).RootElement.GetProperty("changes").EnumerateArray()
            .Where(c => c.GetProperty("kind").GetString() == "highlight")
            .ToDictionary(h => h.GetProperty("key").GetString()!, h => h.GetProperty("text").GetString());
        Assert.Equal(texts.Count, stored.Count);
        Assert.All(texts, t => Assert.Equal(t.Value, stored[t.Key]));
    }
}
