using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Coalescing;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Hosting;

/// <summary>Settings bound and checked by <c>AddValidatedOptions</c>, read from the built container as the start reads them.</summary>
[Trait("Category", "Fast")]
public sealed class ValidatedOptionsTests
{
    [Theory]
    [InlineData("Admission:ConcurrencyLimit", "0", "Admission:ConcurrencyLimit must be at least 1")]
    [InlineData("Admission:PerDeviceBodyBytes", "1000", "Admission:PerDeviceBodyBytes must be at least 65536")]
    [InlineData("Admission:BodyBytes", "65536", "Admission:BodyBytes must be at least 33554432")]
    public async Task AnAdmissionSettingOutOfRangeStopsTheStartNamingTheKey(string key, string value, string message)
    {
        var failure = await StartFailureAsync<AdmissionOptions>(key, value, builder => builder.AddAdmissionControl());

        Assert.Contains(message, failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Resilience:RequestBudgetMs", "0", "Resilience:RequestBudgetMs must be at least 1")]
    [InlineData("Resilience:BreakerBreakMs", "100", "Resilience:BreakerBreakMs must be at least 500")]
    [InlineData("Resilience:RetryAttempts", "6", "Resilience:RetryAttempts must be from 0 to 5")]
    [InlineData("Resilience:BreakerFailureRatio", "1.5", "Resilience:BreakerFailureRatio must be above 0 and at most 1")]
    public async Task AResilienceSettingOutOfRangeStopsTheStartNamingTheKey(string key, string value, string message)
    {
        var failure = await StartFailureAsync<ResilienceOptions>(key, value, builder => builder.AddResilience());

        Assert.Contains(message, failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Storage:Coalescing:MaxBatchesInFlight", "0", "Storage:Coalescing:MaxBatchesInFlight must be at least 1")]
    [InlineData("Storage:Coalescing:MaxBatchSize", "1001", "Storage:Coalescing:MaxBatchSize must be between 1 and 1000")]
    public async Task ACoalescingSettingOutOfRangeStopsTheStartNamingTheKey(string key, string value, string message)
    {
        var failure = await StartFailureAsync<ReadCoalescingOptions>(key, value, builder => builder.AddStorage());

        Assert.Contains(message, failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Proxies:TrustedNetworks:0", "balancer.internal", "Proxies:TrustedNetworks:0: 'balancer.internal' is neither an IP address nor a network")]
    [InlineData("Proxies:TrustedNetworks:0", "10.0.0.0/33", "Proxies:TrustedNetworks:0: '10.0.0.0/33' is neither")]
    [InlineData("Proxies:TrustedNetworks:0", "0.0.0.0/0", "Proxies:TrustedNetworks:0: '0.0.0.0/0' trusts every address")]
    public async Task AProxySettingThatCannotWorkStopsTheStartNamingTheKey(string key, string value, string message)
    {
        var failure = await StartFailureAsync<ProxiesOptions>(key, value, builder => builder.AddServiceDefaults());

        Assert.Contains(message, failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("RequestLog:RefusedLinesPerSecond", "-1", "RequestLog:RefusedLinesPerSecond must be from 0 to 100000")]
    [InlineData("RequestLog:RefusedSummarySeconds", "0", "RequestLog:RefusedSummarySeconds must be from 1 to 3600")]
    public async Task ARequestLogSettingOutOfRangeStopsTheStartNamingTheKey(string key, string value, string message)
    {
        var failure = await StartFailureAsync<Kobo.Sync.SyncApi.Infrastructure.Logging.RequestLogOptions>(key, value, builder => builder.AddServiceDefaults());

        Assert.Contains(message, failure.Message, StringComparison.Ordinal);
    }

    /// <summary>Storage, live pull and the device APIs all read section Sync; whichever is added binds and checks it, once.</summary>
    [Fact]
    public async Task TheSyncSectionIsCheckedOnceWhenEveryPartThatReadsItIsAdded()
    {
        var failure = await StartFailureAsync<SyncOptions>("Sync:MaxWaiters", "-1", builder => builder.AddStorage().AddLivePull().AddDeviceApis());

        Assert.Single(failure.Failures, f => f.Contains("Sync:MaxWaiters must be from", StringComparison.Ordinal));
    }

    /// <summary>The failure of building the service or of reading the options, whichever comes first (as at start).</summary>
    private static async Task<OptionsValidationException> StartFailureAsync<TOptions>(string key, string value, Action<WebApplicationBuilder> add)
        where TOptions : class
    {
        var builder = WebApplication.CreateBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { [key] = value });
        add(builder);
        try
        {
            await using var app = builder.Build();
            _ = app.Services.GetRequiredService<IOptions<TOptions>>().Value;
        }
        catch (OptionsValidationException failure)
        {
            return failure;
        }

        throw new Xunit.Sdk.XunitException($"{key}={value} did not stop the start.");
    }
}
