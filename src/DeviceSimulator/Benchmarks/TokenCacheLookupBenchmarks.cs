using System.Security.Claims;
using BenchmarkDotNet.Attributes;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.Extensions.Caching.Memory;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.DeviceSimulator.Benchmarks;

/// <summary>
/// Finding a device's already validated token from its <c>Authorization</c> header: the service's
/// <see cref="ValidatedTokenCache"/>, searched with the header's characters, against
/// Microsoft.Extensions.Caching.Memory's <see cref="MemoryCache"/> (what HybridCache keeps in
/// process too), whose string key means copying the token out of the header on every request.
/// </summary>
[MemoryDiagnoser]
public class TokenCacheLookupBenchmarks
{
    private const int Devices = 3_000;

    private readonly ValidatedTokenCache _ours = new();
    private readonly MemoryCache _memoryCache = new(Options.Create(new MemoryCacheOptions()));
    private string[] _headers = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        var keys = new DeviceTokenKeys(
            Options.Create(new DeviceTokenOptions { SigningKey = "benchmark-signing-key-that-is-at-least-32-bytes" }));
        var now = DateTimeOffset.UtcNow;
        _headers = new string[Devices];
        for (var i = 0; i < Devices; i++)
        {
            var token = keys.Signer.Mint(i + 1, "bench", TimeSpan.FromHours(4));
            _headers[i] = "Bearer " + token;
            var principal = new ClaimsPrincipal(
                new ClaimsIdentity(
                    [new Claim(DeviceAuthentication.UserClaim, (i + 1).ToString(System.Globalization.CultureInfo.InvariantCulture))]));
            _ours.Add(token, principal, now.AddHours(4).UtcDateTime, now);
            _memoryCache.Set(token, principal, now.AddHours(4));
        }
    }

    [GlobalCleanup]
    public void Cleanup() => _memoryCache.Dispose();

    [Benchmark(Baseline = true)]
    public bool ValidatedTokenCacheHit() =>
        _ours.TryGet(_headers[_next++ % Devices].AsSpan(7), DateTimeOffset.UtcNow, out _);

    [Benchmark]
    public bool MemoryCacheHit() =>
        _memoryCache.TryGetValue(_headers[_next++ % Devices].AsSpan(7).ToString(), out _);
}
