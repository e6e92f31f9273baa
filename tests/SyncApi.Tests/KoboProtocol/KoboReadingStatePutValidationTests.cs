using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// <c>PUT v1/library/{uuid}/state</c> refuses what cannot be stored, naming the Kobo field, and stores
/// nothing of that PUT; what firmware sends (the shapes on the public record: a percent with decimals or
/// a whole number, times with milliseconds, a <c>{Value, Type, Source}</c> location, groups sent as
/// <c>null</c> or left out, statistics without <c>RemainingTimeMinutes</c>) is stored.
/// </summary>
public sealed class KoboReadingStatePutValidationTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private const string At = "\"2026-05-06T07:08:09Z\"";
    private const string Location = """{"Value":"kobo.3.1","Type":"KoboSpan","Source":"OEBPS/ch1.xhtml"}""";

    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private static StringContent Json(string json) => new(json, Encoding.UTF8, "application/json");

    /// <summary>A whole PUT of the three groups, as firmware sends it, with the members of one group replaced.</summary>
    private static string Body(
        string bookmark = $"\"ProgressPercent\":55,\"ContentSourceProgressPercent\":20,\"Location\":{Location},\"LastModified\":{At}",
        string status = $"\"Status\":\"Finished\",\"TimesStartedReading\":1,\"LastModified\":{At}",
        string statistics = $"\"SpentReadingMinutes\":90,\"RemainingTimeMinutes\":30,\"LastModified\":{At}",
        string state = $"\"LastModified\":{At}") =>
        "{\"ReadingStates\":[{\"EntitlementId\":\"x\"," + state + ",\"PriorityTimestamp\":" + At
        + ",\"CurrentBookmark\":{" + bookmark + "},\"StatusInfo\":{" + status + "},\"Statistics\":{" + statistics + "}}]}";

    public static TheoryData<string, string> Refused => new()
    {
        { Body(bookmark: "\"ProgressPercent\":\"55\""), "ReadingStates[0].CurrentBookmark.ProgressPercent" },
        { Body(bookmark: "\"ProgressPercent\":100.5"), "ReadingStates[0].CurrentBookmark.ProgressPercent" },
        { Body(bookmark: "\"ProgressPercent\":-1"), "ReadingStates[0].CurrentBookmark.ProgressPercent" },
        { Body(bookmark: "\"ProgressPercent\":true"), "ReadingStates[0].CurrentBookmark.ProgressPercent" },
        { Body(bookmark: "\"ProgressPercent\":5,\"ContentSourceProgressPercent\":\"abc\""), "ReadingStates[0].CurrentBookmark.ContentSourceProgressPercent" },
        { Body(bookmark: "\"ProgressPercent\":5,\"Location\":\"kobo.3.1\""), "ReadingStates[0].CurrentBookmark.Location" },
        { Body(bookmark: "\"ProgressPercent\":5,\"Location\":[1]"), "ReadingStates[0].CurrentBookmark.Location" },
        { Body(bookmark: $"\"ProgressPercent\":5,\"Location\":{{\"Value\":\"{new string('k', 3000)}\"}}"), "ReadingStates[0].CurrentBookmark.Location" },
        { Body(statistics: "\"SpentReadingMinutes\":\"90\""), "ReadingStates[0].Statistics.SpentReadingMinutes" },
        { Body(statistics: "\"SpentReadingMinutes\":12.5"), "ReadingStates[0].Statistics.SpentReadingMinutes" },
        { Body(statistics: "\"SpentReadingMinutes\":-3"), "ReadingStates[0].Statistics.SpentReadingMinutes" },
        { Body(statistics: "\"SpentReadingMinutes\":3000000000"), "ReadingStates[0].Statistics.SpentReadingMinutes" },
        { Body(status: "\"Status\":\"Abandoned\""), "ReadingStates[0].StatusInfo.Status" },
        { Body(status: "\"Status\":2"), "ReadingStates[0].StatusInfo.Status" },
        // Half a surrogate pair: no text can carry it (reading it as a string throws).
        { Body(status: "\"Status\":\"\\ud800\""), "ReadingStates[0].StatusInfo.Status" },
        { Body(state: "\"LastModified\":\"2026-05-06T07:08:09Z\\udc00\""), "ReadingStates[0].LastModified" },
        { Body(status: "\"Status\":\"Reading\",\"LastModified\":\"yesterday\""), "ReadingStates[0].StatusInfo.LastModified" },
        { Body(state: "\"LastModified\":12345"), "ReadingStates[0].LastModified" },
        { Body(bookmark: "\"ProgressPercent\":5,\"LastModified\":\"2026-05-06T07:08:09\""), "ReadingStates[0].CurrentBookmark.LastModified" },
        { """{"ReadingStates":[{"CurrentBookmark":"55","StatusInfo":{"Status":"Reading"}}]}""", "ReadingStates[0].CurrentBookmark" },
        { """{"ReadingStates":[{"StatusInfo":["Reading"]}]}""", "ReadingStates[0].StatusInfo" },
        { """{"ReadingStates":[{"Statistics":7}]}""", "ReadingStates[0].Statistics" },
    };

    [Theory]
    [MemberData(nameof(Refused))]
    public async Task AValueThatCannotBeStoredRefusesThePutNamingItsFieldAndStoresNothing(string body, string field)
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 1);
        using var kobo = await db.LinkAsync(user);
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(1)}/state", content: Json("""
            {"ReadingStates":[{"LastModified":"2026-05-01T00:00:00Z","CurrentBookmark":{"ProgressPercent":10},"StatusInfo":{"Status":"Reading"},"Statistics":{"SpentReadingMinutes":5}}]}
            """));
        var before = await StateTextAsync(kobo);

        var problem = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(1)}/state", expect: 400, content: Json(body)))!.Value;

        Assert.Equal(400, problem.GetProperty("status").GetInt32());
        var named = Assert.Single(problem.GetProperty("errors").EnumerateObject());
        Assert.Equal(field, named.Name);
        Assert.StartsWith(field, Assert.Single(named.Value.EnumerateArray()).GetString(), StringComparison.Ordinal);
        Assert.Equal(before, await StateTextAsync(kobo));
    }

    public static TheoryData<string, double, string> Stored => new()
    {
        // komga #2426: a percent with decimals, times with milliseconds, a KoboSpan location.
        {
            """
            {"ReadingStates":[{"LastModified":"2026-09-08T18:14:23.129Z","PriorityTimestamp":"2026-09-08T18:14:23.129Z","EntitlementId":"e",
             "CurrentBookmark":{"LastModified":"2026-09-08T18:14:23.129Z","Location":{"Source":"OEBPS/Text/chapter010.xhtml","Type":"KoboSpan","Value":"kobo.43.2"},"ProgressPercent":32.872929999999997},
             "Statistics":{"LastModified":"2026-09-08T18:14:23.129Z"},"StatusInfo":{"LastModified":"2026-09-08T18:14:23.129Z","Status":"Reading","TimesStartedReading":1}}]}
            """,
            32.87293, "2026-09-08T18:14:23Z"
        },

        // Calibre-Web-NextGen #126 and #131: a whole percent, statistics with only SpentReadingMinutes, a null group.
        {
            """
            {"ReadingStates":[{"LastModified":"2026-09-09T10:00:00Z","CurrentBookmark":{"ProgressPercent":33,"ContentSourceProgressPercent":0,"Location":null},
             "Statistics":{"SpentReadingMinutes":4},"StatusInfo":null}]}
            """,
            33, "2026-09-09T10:00:00Z"
        },
    };

    [Theory]
    [MemberData(nameof(Stored))]
    public async Task WhatFirmwareSendsIsStoredAndAnsweredWithItsTime(string body, double percent, string at)
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 2, 2);
        using var kobo = await db.LinkAsync(user);

        var answer = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(2)}/state", content: Json(body)))!.Value;
        var state = Assert.Single((await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(2)}/state"))!.Value.EnumerateArray());

        Assert.Equal(at, Assert.Single(answer.GetProperty("UpdateResults").EnumerateArray()).GetProperty("LastModified").GetString());
        Assert.Equal(percent, state.GetProperty("CurrentBookmark").GetProperty("ProgressPercent").GetDouble(), 5);
        Assert.Equal(at, state.GetProperty("CurrentBookmark").GetProperty("LastModified").GetString());
    }

    private async Task<string> StateTextAsync(KoboReader kobo) =>
        (await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(1)}/state"))!.Value.GetRawText();
}
