using BenchmarkDotNet.Attributes;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.DeviceSimulator.Benchmarks;

/// <summary>
/// One request's authentication, as the authentication middleware runs it: the service's device token
/// handler (a validated-token cache in front of <c>JsonWebTokenHandler</c>) against
/// Microsoft.AspNetCore.Authentication.JwtBearer with the same validation parameters, which validates
/// the token (parse, HS256 signature, lifetime, issuer, audience) on every request. The tokens are
/// those of 3,000 devices, each already seen once, as in the service's load runs. JwtBearer's figure
/// is a lower bound of what replacing the handler would cost: it does not yet build the device's
/// caller from the claims, which the handler does once per token.
/// </summary>
[MemoryDiagnoser]
public class DeviceTokenAuthenticationBenchmarks
{
    private const int Devices = 3_000;
    private const string JwtBearerScheme = "JwtBearer";

    private ServiceProvider _services = null!;
    private string[] _headers = null!;
    private string[] _firstSeen = null!;
    private int _next;
    private int _nextFirstSeen;

    [GlobalSetup]
    public async Task Setup()
    {
        var tokenOptions = Options.Create(new DeviceTokenOptions { SigningKey = "benchmark-signing-key-that-is-at-least-32-bytes" });
        var keys = new DeviceTokenKeys(tokenOptions);
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddProblemDetails();
        services.AddSingleton(keys);
        services.AddSingleton<ValidatedTokenCache>();
        services.AddSingleton<DeviceRevocationList>();
        services.AddAuthentication(DeviceAuthentication.Scheme)
            .AddScheme<AuthenticationSchemeOptions, DeviceTokenHandler>(DeviceAuthentication.Scheme, null)
            .AddJwtBearer(JwtBearerScheme, options =>
            {
                options.MapInboundClaims = false;
                options.TokenValidationParameters = keys.Validation;
            });
        _services = services.BuildServiceProvider();

        _headers = new string[Devices];
        for (var i = 0; i < Devices; i++)
        {
            _headers[i] = "Bearer " + keys.Signer.Mint(i + 1, "bench", TimeSpan.FromHours(4));
        }

        // Three times as many devices as the validated-token cache holds, in turn: each one's token is new to it.
        _firstSeen = [.. Enumerable.Range(1, 3 * ValidatedTokenCache.Capacity)
            .Select(i => "Bearer " + keys.Signer.Mint(i, "bench-new", TimeSpan.FromHours(4)))];

        // Every device has been seen once: the service's steady state.
        foreach (var _ in _headers)
        {
            await DeviceToken();
        }
    }

    [GlobalCleanup]
    public void Cleanup() => _services.Dispose();

    [Benchmark(Baseline = true)]
    public Task<bool> DeviceToken() => AuthenticateAsync(DeviceAuthentication.Scheme);

    [Benchmark]
    public Task<bool> JwtBearer() => AuthenticateAsync(JwtBearerScheme);

    /// <summary>The handler with a token it has not seen: checked, its caller built and cached.</summary>
    [Benchmark]
    public Task<bool> DeviceTokenFirstSeen() =>
        AuthenticateAsync(DeviceAuthentication.Scheme, _firstSeen[_nextFirstSeen++ % _firstSeen.Length]);

    private Task<bool> AuthenticateAsync(string scheme) => AuthenticateAsync(scheme, _headers[_next++ % Devices]);

    private async Task<bool> AuthenticateAsync(string scheme, string header)
    {
        // A request's own service scope and context, as ASP.NET Core gives every request.
        await using var scope = _services.CreateAsyncScope();
        var context = new DefaultHttpContext { RequestServices = scope.ServiceProvider };
        context.Request.Headers.Authorization = header;
        var result = await context.AuthenticateAsync(scheme);
        return result.Succeeded ? true : throw new InvalidOperationException(result.Failure?.Message);
    }
}
