using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Devices;
using Kobo.Sync.SyncApi.Apis;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Paging;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Scalar.AspNetCore;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The device-facing application service and its REST surface, with the OpenAPI document.</summary>
public static class DeviceApiExtensions
{
    public const string OpenApiPath = "/openapi/v1.json";

    /// <summary>The interactive API reference over the OpenAPI document (Scalar), served in Development only.</summary>
    public const string ApiReferencePath = "/scalar";

    public static WebApplicationBuilder AddDeviceApis(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<PagingOptions, PagingOptionsValidator>(PagingOptions.SectionName);
        builder.Services.AddSingleton(SignerFactory.CreateKey);
        builder.Services.AddSingleton(SignerFactory.CreatePageCursors);
        builder.Services.AddSingleton(SignerFactory.CreateBudget);
        builder.Services.AddSingleton<DeviceReads>();
        // The conflict clock and the per-user limits (section Sync, shared with storage and live pull).
        builder.Services.AddValidatedOptions<SyncOptions>(SyncOptions.SectionName);
        builder.Services.AddSingleton(SignerFactory.CreateSyncTokens);
        builder.Services.AddSingleton(SignerFactory.CreateDeviceCursors);
        builder.Services.AddSingleton(SyncSettingsFactory.Create);
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton<DeviceSync>();
        // Devices' pulls, written behind the pulls (Sync:DevicePositionFlushMs).
        builder.Services.AddSingleton<DevicePositionWriter>();
        builder.Services.AddSingleton<IDevicePositions>(sp => sp.GetRequiredService<DevicePositionWriter>());
        builder.Services.AddHostedService(sp => sp.GetRequiredService<DevicePositionWriter>());
        builder.Services.AddSingleton<DeviceRegistry>();
        builder.Services.AddSingleton<ReadingStateSync>();
        builder.Services.AddSingleton<CollectionSync>();

        builder.Services.AddExceptionHandler<RequestRejectedProblemHandler>();
        // A body or parameter that cannot be bound throws, so the problem mapper can say what was wrong
        // (the framework's own 400 carries no detail).
        builder.Services.Configure<RouteHandlerOptions>(options => options.ThrowOnBadRequest = true);
        builder.Services.ConfigureHttpJsonOptions(options =>
        {
            options.SerializerOptions.TypeInfoResolverChain.Insert(0, DeviceJsonContext.Default);
            options.SerializerOptions.TypeInfoResolverChain.Insert(1, SyncJsonContext.Default);
            // A key given twice ({"text":"a","text":"b"}) is refused, not silently last-wins.
            options.SerializerOptions.AllowDuplicateProperties = false;
        });
        // No "servers": the generator would echo the request's Host header (any name a caller sends)
        // as the API's address. Without it, clients resolve paths against the document's own URL.
        builder.Services.AddOpenApi(options =>
        {
            options.AddDocumentTransformer((document, _, _) =>
            {
                document.Servers = [];
                return Task.CompletedTask;
            });
            options.AddSchemaTransformer(PushedChangeJson.DescribeSchema);
            options.AddSchemaTransformer(ReadingStatePutJson.DescribeSchema);
            options.AddSchemaTransformer(PushedCollectionOpJson.DescribeSchema);
        });
        return builder;
    }

    public static WebApplication MapDeviceApis(this WebApplication app)
    {
        app.MapOpenApi(OpenApiPath);
        if (app.Environment.IsDevelopment())
        {
            // Reads the document above ({documentName} is v1); a page for developers, not for devices.
            app.MapScalarApiReference(ApiReferencePath);
        }

        app.MapUsersApi();
        app.MapChangesApi();
        app.MapDevicesApi();
        app.MapReadingStateApi();
        app.MapCollectionsApi();
        return app;
    }
}
