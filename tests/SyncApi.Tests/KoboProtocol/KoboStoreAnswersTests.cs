using System.Text;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// The Kobo front's answers field by field against what the store's public copies send: the resource map
/// (Calibre-Web-Automated's and calibre-web's <c>NATIVE_KOBO_RESOURCES</c>, Komga's <c>nativeKoboResources</c>),
/// the reading state inside each entitlement and of a never-opened book (Komga's
/// <c>getEmptyReadProgressForBook</c>, calibre-web's <c>get_kobo_reading_state_response</c>), its dates, and
/// the PUT answer (calibre-web #3601).
/// </summary>
public sealed class KoboStoreAnswersTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    /// <summary>The store API keys of the published map, with their paths under https://storeapi.kobo.com.</summary>
    private static readonly (string Key, string Path)[] StoreApi =
    [
        ("add_device", "/v1/user/add-device"), ("add_entitlement", "/v1/library/{RevisionIds}"), ("affiliaterequest", "/v1/affiliate"),
        ("assets", "/v1/assets"), ("audiobook", "/v1/products/audiobooks/{ProductId}"), ("audiobook_preview", "/v1/products/audiobooks/{Id}/preview"),
        ("audiobook_purchase_withcredit", "/v1/store/audiobook/{Id}"), ("authorproduct_recommendations", "/v1/products/books/authors/recommendations"),
        ("autocomplete", "/v1/products/autocomplete"), ("book", "/v1/products/books/{ProductId}"), ("book_subscription", "/v1/products/books/subscriptions"),
        ("browse_history", "/v1/user/browsehistory"), ("categories", "/v1/categories"), ("category", "/v1/categories/{CategoryId}"),
        ("category_featured_lists", "/v1/categories/{CategoryId}/featured"), ("category_products", "/v1/categories/{CategoryId}/products"),
        ("checkout_borrowed_book", "/v1/library/borrow"), ("configuration_data", "/v1/configuration"),
        ("content_access_book", "/v1/products/books/{ProductId}/access"), ("daily_deal", "/v1/products/dailydeal"), ("deals", "/v1/deals"),
        ("delete_entitlement", "/v1/library/{Ids}"), ("delete_tag", "/v1/library/tags/{TagId}"), ("delete_tag_items", "/v1/library/tags/{TagId}/items/delete"),
        ("device_auth", "/v1/auth/device"), ("device_refresh", "/v1/auth/refresh"), ("ereaderdevices", "/v2/products/EReaderDeviceFeeds"),
        ("exchange_auth", "/v1/auth/exchange"), ("external_book", "/v1/products/books/external/{Ids}"),
        ("featured_list", "/v1/products/featured/{FeaturedListId}"), ("featured_lists", "/v1/products/featured"), ("fte_feedback", "/v1/products/ftefeedback"),
        ("funnel_metrics", "/v1/funnelmetrics"), ("get_download_keys", "/v1/library/downloadkeys"), ("get_download_link", "/v1/library/downloadlink"),
        ("get_tests_request", "/v1/analytics/gettests"), ("library_book", "/v1/user/library/books/{LibraryItemId}"), ("library_items", "/v1/user/library"),
        ("library_metadata", "/v1/library/{Ids}/metadata"), ("library_prices", "/v1/user/library/previews/prices"), ("library_search", "/v1/library/search"),
        ("library_stack", "/v1/user/library/stacks/{LibraryItemId}"), ("library_sync", "/v1/library/sync"), ("notebooks", "/api/internal/notebooks"),
        ("notifications_registration_issue", "/v1/notifications/registration"), ("personalizedrecommendations", "/v2/users/personalizedrecommendations"),
        ("post_analytics_event", "/v1/analytics/event"), ("product_nextread", "/v1/products/{ProductIds}/nextread"),
        ("product_prices", "/v1/products/{ProductIds}/prices"), ("product_recommendations", "/v1/products/{ProductId}/recommendations"),
        ("product_reviews", "/v1/products/{ProductIds}/reviews"), ("products", "/v1/products"), ("productsv2", "/v2/products"),
        ("quickbuy_checkout", "/v1/store/quickbuy/{PurchaseId}/checkout"), ("quickbuy_create", "/v1/store/quickbuy/purchase"),
        ("rakuten_token_exchange", "/v1/auth/rakuten_token_exchange"), ("rating", "/v1/products/{ProductId}/rating/{Rating}"),
        ("reading_state", "/v1/library/{Ids}/state"), ("related_items", "/v1/products/{Id}/related"),
        ("remaining_book_series", "/v1/products/books/series/{SeriesId}"), ("rename_tag", "/v1/library/tags/{TagId}"),
        ("review", "/v1/products/reviews/{ReviewId}"), ("review_sentiment", "/v1/products/reviews/{ReviewId}/sentiment/{Sentiment}"),
        ("shelfie_recommendations", "/v1/user/recommendations/shelfie"), ("tag_items", "/v1/library/tags/{TagId}/Items"), ("tags", "/v1/library/tags"),
        ("taste_profile", "/v1/products/tasteprofile"), ("update_accessibility_to_preview", "/v1/library/{EntitlementIds}/preview"),
        ("user_loyalty_benefits", "/v1/user/loyalty/benefits"), ("user_platform", "/v1/user/platform"), ("user_profile", "/v1/user/profile"),
        ("user_ratings", "/v1/user/ratings"), ("user_recommendations", "/v1/user/recommendations"), ("user_reviews", "/v1/user/reviews"),
        ("user_wishlist", "/v1/user/wishlist"),
    ];

    /// <summary>The other keys of the published map: pages, hosts, switches and the two objects.</summary>
    private static readonly string[] OtherKeys =
    [
        "account_page", "account_page_rakuten", "audiobook_detail_page", "audiobook_get_credits", "audiobook_landing_page",
        "audiobook_subscription_management", "audiobook_subscription_orange_deal_inclusion_url", "audiobook_subscription_purchase",
        "audiobook_subscription_tiers", "blackstone_header", "book_detail_page", "book_detail_page_rakuten", "book_landing_page", "categories_page",
        "client_authd_referral", "customer_care_live_chat", "dictionary_host", "discovery_host", "dropbox_link_account_poll",
        "dropbox_link_account_start", "eula_page", "facebook_sso_page", "free_books_page", "giftcard_epd_redeem_url", "giftcard_redeem_url",
        "googledrive_link_account_start", "gpb_flow_enabled", "help_page", "image_host", "image_url_quality_template", "image_url_template",
        "instapaper_enabled", "instapaper_env_url", "instapaper_link_account_start", "kobo_audiobooks_credit_redemption", "kobo_audiobooks_enabled",
        "kobo_audiobooks_orange_deal_enabled", "kobo_audiobooks_subscriptions_enabled", "kobo_display_price", "kobo_dropbox_link_account_enabled",
        "kobo_google_tax", "kobo_googledrive_link_account_enabled", "kobo_nativeborrow_enabled", "kobo_onedrive_link_account_enabled",
        "kobo_onestorelibrary_enabled", "kobo_privacyCentre_url", "kobo_redeem_enabled", "kobo_shelfie_enabled", "kobo_subscriptions_enabled",
        "kobo_superpoints_enabled", "kobo_wishlist_enabled", "love_dashboard_page", "love_points_redemption_page", "magazine_landing_page",
        "more_sign_in_options", "oauth_host", "overdrive_account", "overdrive_library", "overdrive_library_finder_host", "overdrive_thunder_host",
        "password_retrieval_page", "pocket_link_account_start", "ppx_purchasing_url", "privacy_page", "provider_external_sign_in_page", "purchase_buy",
        "purchase_buy_templated", "reading_services_host", "redeem_interstitial_page", "registration_page", "sign_in_page",
        "social_authorization_host", "social_host", "stacks_host_productId", "store_home", "store_host", "store_newreleases", "store_search",
        "store_top50", "subs_landing_page", "subs_management_page", "subs_plans_page", "subs_purchase_buy_templated",
        "subscription_publisher_price_page", "terms_of_sale_page", "use_one_store", "userguide_host", "wishlist_page",
    ];

    private static readonly DateTimeOffset Acquired = new(2025, 3, 4, 5, 6, 7, TimeSpan.Zero);

    private static string Uuid(long book) => BookUuid.Format(new BookNo(book));

    private static StringContent Json(string json) => new(json, Encoding.UTF8, "application/json");

    /// <summary>Gives the user <paramref name="book"/>, entered in the library at <see cref="Acquired"/>.</summary>
    private async Task OwnSinceAsync(long user, long book)
    {
        await using var command = db.DataSource.CreateCommand("INSERT INTO users_books (user_no, book_no, acquired_at) VALUES ($1, $2, $3)");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book });
        command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = Acquired });
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    private static async Task<JsonElement> StateAsync(KoboReader kobo, long book) =>
        Assert.Single((await kobo.JsonAsync(HttpMethod.Get, $"/v1/library/{Uuid(book)}/state"))!.Value.EnumerateArray());

    /// <summary>A never-opened book's state as Komga sends it: every group, dated from the book's arrival, nothing read.</summary>
    internal static void AssertNeverOpened(JsonElement state, string uuid, string created)
    {
        Assert.Equal(uuid, state.GetProperty("EntitlementId").GetString());
        Assert.Equal(created, state.GetProperty("Created").GetString());
        Assert.Equal(created, state.GetProperty("LastModified").GetString());
        Assert.Equal(created, state.GetProperty("PriorityTimestamp").GetString());
        var status = state.GetProperty("StatusInfo");
        Assert.Equal(["LastModified", "Status", "TimesStartedReading"], status.EnumerateObject().Select(p => p.Name));
        Assert.Equal(created, status.GetProperty("LastModified").GetString());
        Assert.Equal("ReadyToRead", status.GetProperty("Status").GetString());
        Assert.Equal(0, status.GetProperty("TimesStartedReading").GetInt32());
        Assert.Equal(["LastModified"], state.GetProperty("Statistics").EnumerateObject().Select(p => p.Name));
        Assert.Equal(created, state.GetProperty("Statistics").GetProperty("LastModified").GetString());
        Assert.Equal(["LastModified"], state.GetProperty("CurrentBookmark").EnumerateObject().Select(p => p.Name));
        Assert.Equal(created, state.GetProperty("CurrentBookmark").GetProperty("LastModified").GetString());
    }

    [Fact]
    public async Task InitializationAnswersEveryKeyOfTheStoresMapWithItsApiPointedAtTheDevicesRoot()
    {
        using var kobo = await db.LinkAsync(db.NewUser());

        var resources = (await kobo.JsonAsync(HttpMethod.Get, "/v1/initialization"))!.Value.GetProperty("Resources");

        var keys = resources.EnumerateObject().Select(p => p.Name).ToHashSet(StringComparer.Ordinal);
        var missing = StoreApi.Select(a => a.Key).Concat(OtherKeys).Except(keys, StringComparer.Ordinal).ToList();
        Assert.True(missing.Count == 0, "missing keys: " + string.Join(", ", missing));
        Assert.All(StoreApi, api => Assert.Equal(kobo.ApiEndpoint + api.Path, resources.GetProperty(api.Key).GetString()));
        Assert.DoesNotContain(resources.EnumerateObject(), p => p.Value.GetRawText().Contains("storeapi.kobo.com", StringComparison.Ordinal));
        Assert.Equal("https://www.kobo.com/{storefront}/{language}/redeem-ereader", resources.GetProperty("giftcard_epd_redeem_url").GetString());
        Assert.Equal("https://oauth.kobo.com", resources.GetProperty("oauth_host").GetString());
        Assert.Equal("False", resources.GetProperty("kobo_audiobooks_credit_redemption").GetString());
        Assert.Equal("requester", resources.GetProperty("blackstone_header").GetProperty("value").GetString());
        Assert.Equal(JsonValueKind.Object, resources.GetProperty("free_books_page").ValueKind);
    }

    [Fact]
    public async Task ANeverOpenedBooksStateIsReadyToReadDatedFromItsArrivalInTheLibrary()
    {
        var user = db.NewUser();
        await OwnSinceAsync(user, 7);
        using var kobo = await db.LinkAsync(user);

        AssertNeverOpened(await StateAsync(kobo, 7), Uuid(7), "2025-03-04T05:06:07Z");
    }

    [Fact]
    public async Task EveryEntitlementOfLibrarySyncCarriesTheBooksReadingState()
    {
        var user = db.NewUser();
        await OwnSinceAsync(user, 8);
        await OwnSinceAsync(user, 9);
        await OwnSinceAsync(user, 10);
        using var kobo = await db.LinkAsync(user);
        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(9)}/state", content: Json("""
            {"ReadingStates":[{"LastModified":"2026-01-02T03:04:05Z","CurrentBookmark":{"ProgressPercent":61.5,"LastModified":"2026-01-02T03:04:05Z"},
             "StatusInfo":{"Status":"Reading","LastModified":"2026-01-02T03:04:05Z"},"Statistics":{"SpentReadingMinutes":42,"LastModified":"2026-01-02T03:04:05Z"}}]}
            """));
        await kobo.JsonAsync(HttpMethod.Delete, $"/v1/library/{Uuid(10)}", expect: 204);

        var (items, _, _) = await kobo.SyncAsync(null);

        var entitlements = items.Select(i => Assert.Single(i.EnumerateObject())).Where(p => p.Name.EndsWith("Entitlement", StringComparison.Ordinal)).ToList();
        var never = entitlements.Single(e => e.Value.GetProperty("BookEntitlement").GetProperty("Id").GetString() == Uuid(8));
        var reading = entitlements.Single(e => e.Value.GetProperty("BookEntitlement").GetProperty("Id").GetString() == Uuid(9));
        var removed = entitlements.Single(e => e.Value.GetProperty("BookEntitlement").GetProperty("Id").GetString() == Uuid(10));
        Assert.Equal(["NewEntitlement", "NewEntitlement", "ChangedEntitlement"], new[] { never.Name, reading.Name, removed.Name });
        AssertNeverOpened(never.Value.GetProperty("ReadingState"), Uuid(8), "2025-03-04T05:06:07Z");
        AssertNeverOpened(removed.Value.GetProperty("ReadingState"), Uuid(10), "2025-03-04T05:06:07Z");
        var state = reading.Value.GetProperty("ReadingState");
        Assert.Equal(Uuid(9), state.GetProperty("EntitlementId").GetString());
        Assert.Equal("2025-03-04T05:06:07Z", state.GetProperty("Created").GetString());
        Assert.Equal("2026-01-02T03:04:05Z", state.GetProperty("LastModified").GetString());
        Assert.Equal("2026-01-02T03:04:05Z", state.GetProperty("PriorityTimestamp").GetString());
        Assert.Equal(61.5, state.GetProperty("CurrentBookmark").GetProperty("ProgressPercent").GetDouble());
        Assert.Equal("Reading", state.GetProperty("StatusInfo").GetProperty("Status").GetString());
        Assert.Equal(1, state.GetProperty("StatusInfo").GetProperty("TimesStartedReading").GetInt32());
        Assert.Equal(42, state.GetProperty("Statistics").GetProperty("SpentReadingMinutes").GetInt32());
        Assert.All(entitlements, e => Assert.Equal("2025-03-04T05:06:07Z", e.Value.GetProperty("BookEntitlement").GetProperty("Created").GetString()));
    }

    [Fact]
    public async Task AStatesCreatedIsWhenTheBookEnteredTheLibraryAndItsTimesAreTheDevicesWrite()
    {
        var user = db.NewUser();
        await OwnSinceAsync(user, 11);
        using var kobo = await db.LinkAsync(user);
        var (_, caughtUp, _) = await kobo.SyncAsync(null);

        await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(11)}/state", content: Json("""
            {"ReadingStates":[{"LastModified":"2026-02-03T04:05:06.129Z","StatusInfo":{"Status":"Finished","LastModified":"2026-02-03T04:05:06.129Z"}}]}
            """));
        var state = await StateAsync(kobo, 11);
        var (items, _, _) = await kobo.SyncAsync(caughtUp);

        Assert.Equal("2025-03-04T05:06:07Z", state.GetProperty("Created").GetString());
        Assert.Equal("2026-02-03T04:05:06Z", state.GetProperty("LastModified").GetString());
        Assert.Equal("2026-02-03T04:05:06Z", state.GetProperty("PriorityTimestamp").GetString());
        var changed = Assert.Single(items).GetProperty("ChangedReadingState").GetProperty("ReadingState");
        Assert.Equal("2025-03-04T05:06:07Z", changed.GetProperty("Created").GetString());
        Assert.Equal("2026-02-03T04:05:06Z", changed.GetProperty("PriorityTimestamp").GetString());
        Assert.Equal("Finished", changed.GetProperty("StatusInfo").GetProperty("Status").GetString());
    }

    [Fact]
    public async Task ThePutAnswerCarriesTheStatesTimesAsTheNextReadWillAnswerThem()
    {
        var user = db.NewUser();
        await OwnSinceAsync(user, 12);
        using var kobo = await db.LinkAsync(user);
        const string Newer = """{"ReadingStates":[{"CurrentBookmark":{"ProgressPercent":33,"LastModified":"2026-04-05T06:07:08Z"}}]}""";
        const string Stale = """{"ReadingStates":[{"CurrentBookmark":{"ProgressPercent":12,"LastModified":"2026-04-01T00:00:00Z"}}]}""";

        var applied = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(12)}/state", content: Json(Newer)))!.Value;
        var refused = (await kobo.JsonAsync(HttpMethod.Put, $"/v1/library/{Uuid(12)}/state", content: Json(Stale)))!.Value;
        var state = await StateAsync(kobo, 12);

        foreach (var answer in new[] { applied, refused })
        {
            Assert.Equal("Success", answer.GetProperty("RequestResult").GetString());
            var update = Assert.Single(answer.GetProperty("UpdateResults").EnumerateArray());
            Assert.Equal(Uuid(12), update.GetProperty("EntitlementId").GetString());
            Assert.Equal("Success", update.GetProperty("CurrentBookmarkResult").GetProperty("Result").GetString());
            Assert.Equal("2026-04-05T06:07:08Z", update.GetProperty("LastModified").GetString());
            Assert.Equal("2026-04-05T06:07:08Z", update.GetProperty("PriorityTimestamp").GetString());
        }

        Assert.Equal("2026-04-05T06:07:08Z", state.GetProperty("PriorityTimestamp").GetString());
        Assert.Equal("33", state.GetProperty("CurrentBookmark").GetProperty("ProgressPercent").GetRawText());
    }
}
