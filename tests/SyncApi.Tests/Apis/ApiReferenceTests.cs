using System.Net;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Hosting;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>The interactive API reference (Scalar, over the OpenAPI document) is a Development page only.</summary>
public sealed class ApiReferenceTests
{
    [Fact]
    public async Task DevelopmentServesTheApiReferenceOverTheOpenApiDocument()
    {
        using var service = new SyncApiFactory();
        using var development = service.WithWebHostBuilder(builder => builder.UseEnvironment("Development"));
        using var client = development.CreateClient();

        using var page = await client.GetAsync(new Uri(DeviceApiExtensions.ApiReferencePath, UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        Assert.Equal("text/html", page.Content.Headers.ContentType?.MediaType);
        var html = await page.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.Contains("openapi/v1.json", html, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ProductionDoesNotServeTheApiReference()
    {
        using var service = new SyncApiFactory();
        using var client = service.CreateClient();

        using var page = await client.GetAsync(new Uri(DeviceApiExtensions.ApiReferencePath, UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NotFound, page.StatusCode);
        // The document itself stays where it was, in every environment.
        using var document = await client.GetAsync(new Uri(DeviceApiExtensions.OpenApiPath, UriKind.Relative), TestTimeout.Token);
        Assert.Equal(HttpStatusCode.OK, document.StatusCode);
    }
}
