using BenchmarkDotNet.Attributes;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;

namespace Kobo.Sync.DeviceSimulator.Benchmarks;

/// <summary>
/// The check of a device token the service has not seen: the service's reader of its issuer's HS256
/// shape against what the handler ran before it, and still runs for any other token:
/// <c>JsonWebTokenHandler.ValidateTokenAsync</c> with the service's parameters, the repeated-member
/// check, and reading <c>sub</c>, <c>did</c>, <c>iat</c> and <c>exp</c> from the validated token. Both
/// end with the same four values; 3,000 devices' tokens in turn.
/// </summary>
[MemoryDiagnoser]
public class FirstSeenTokenBenchmarks
{
    private const int Devices = 3_000;
    private static readonly JsonWebTokenHandler Tokens = new() { MapInboundClaims = false };

    private DeviceTokenKeys _keys = null!;
    private string[] _tokens = null!;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        _keys = new DeviceTokenKeys(
            Options.Create(new DeviceTokenOptions { SigningKey = "benchmark-signing-key-that-is-at-least-32-bytes" }));
        _tokens = [.. Enumerable.Range(1, Devices).Select(user => _keys.Signer.Mint(user, "bench", TimeSpan.FromHours(4)))];
    }

    [Benchmark(Baseline = true)]
    public async Task<long> JsonWebTokenHandler()
    {
        var token = _tokens[_next++ % Devices];
        var result = await Tokens.ValidateTokenAsync(token, _keys.Validation);
        if (!result.IsValid || JwtDuplicateMembers.Find(token) is not null || result.SecurityToken is not JsonWebToken jwt
            || !jwt.TryGetPayloadValue<string>(DeviceAuthentication.UserClaim, out var user)
            || !jwt.TryGetPayloadValue<string>(DeviceAuthentication.DeviceClaim, out var device))
        {
            throw new InvalidOperationException("refused");
        }

        return user.Length + device.Length + jwt.IssuedAt.Ticks + jwt.ValidTo.Ticks;
    }

    [Benchmark]
    public long Reader()
    {
        var claims = _keys.Reader!.TryRead(_tokens[_next++ % Devices], DateTimeOffset.UtcNow)
            ?? throw new InvalidOperationException("refused");
        return claims.User.Length + claims.Device.Length + claims.IssuedAt!.Value + claims.Expires;
    }
}
