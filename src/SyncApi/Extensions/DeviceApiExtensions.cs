using Kobo.Sync.Domain.Reading;
using Kobo.Sync.SyncApi.Apis;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Kobo.Sync.SyncApi.Infrastructure.Paging;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The device-facing application service and its REST surface, with the OpenAPI document.</summary>
public static class DeviceApiExtensions
{
    public const string OpenApiPath = "/openapi/v1.json";

    public static WebApplicationBuilder AddDeviceApis(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<IValidateOptions<PagingOptions>, PagingOptionsValidator>();
        builder.Services.AddOptions<PagingOptions>()
            .Bind(builder.Configuration.GetSection(PagingOptions.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton(PageCursorsFactory.Create);
        builder.Services.AddSingleton<DeviceReads>();

        builder.Services.AddExceptionHandler<RequestRejectedProblemHandler>();
        builder.Services.ConfigureHttpJsonOptions(options =>
            options.SerializerOptions.TypeInfoResolverChain.Insert(0, DeviceJsonContext.Default));
        builder.Services.AddOpenApi();
        return builder;
    }

    public static WebApplication MapDeviceApis(this WebApplication app)
    {
        app.MapOpenApi(OpenApiPath);
        app.MapUsersApi();
        return app;
    }
}
