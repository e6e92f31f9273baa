using System.Net;
using System.Text;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>A device's request body is bounded: past 1 MiB it is refused, on the real server.</summary>
public sealed class KoboBodyLimitTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    [Fact]
    public async Task ABodyOverOneMebibyteIsRefusedWith413()
    {
        using var host = new SyncGrpcTestHost(db.ConnectionString);
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 1);
        using var phone = new HttpClient { BaseAddress = host.RestAddress }.WithToken(TestTokens.For(user, "phone"));
        var root = KoboLinks.RootOf(await phone.LinkAsync(user));
        using var kobo = new HttpClient { BaseAddress = host.RestAddress };
        var padding = new string(' ', (1024 * 1024) + 16);

        using var response = await kobo.PutAsync(
            new Uri($"{root}/v1/library/{Kobo.Sync.Domain.Ids.BookUuid.Format(new Kobo.Sync.Domain.Ids.BookNo(1))}/state", UriKind.Relative),
            new StringContent("{\"ReadingStates\":[]}" + padding, Encoding.UTF8, "application/json"), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, response.StatusCode);
    }
}
