using System.Net;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>A Kobo e-reader pulls its library page after page: its link has a request budget of its own, not its linking device's.</summary>
public sealed class KoboAdmissionTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    [Fact]
    public async Task ALinkedReadersPagesAreCountedApartFromItsLinkingDevice()
    {
        using var service = db.ServiceWith(new()
        {
            ["Admission:PerDeviceRequestsPerSecond"] = "1",
            ["Admission:PerDeviceBurst"] = "5",
            ["Admission:PerKoboLinkRequestsPerSecond"] = "1",
            ["Admission:PerKoboLinkBurst"] = "40",
        });
        var user = db.NewUser();
        using var kobo = await db.LinkAsync(user, service);

        var statuses = new List<HttpStatusCode>();
        for (var i = 0; i < 40; i++)
        {
            using var page = await kobo.SendAsync(HttpMethod.Get, "/v1/library/sync");
            statuses.Add(page.StatusCode);
        }

        // Past the link's own burst (refilled at 1 a second while the test runs), the link is held back.
        var held = false;
        for (var i = 0; i < 30 && !held; i++)
        {
            using var over = await kobo.SendAsync(HttpMethod.Get, "/v1/library/sync");
            held = over.StatusCode == HttpStatusCode.TooManyRequests;
        }

        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        using var phoneCall = await phone.GetAsync(new Uri($"/v1/users/{user}", UriKind.Relative), TestTimeout.Token);

        Assert.All(statuses, s => Assert.Equal(HttpStatusCode.OK, s));
        Assert.True(held, "the link's own bucket never ran out");
        Assert.Equal(HttpStatusCode.OK, phoneCall.StatusCode);
    }
}
