using System.Text.Json.Nodes;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The <c>Resources</c> map a Kobo device reads at initialization: where everything it calls lives.
/// The keys and the store's own values are the Kobo store's published map, as the self-hosted servers
/// copy it (Calibre-Web-Automated's and calibre-web's <c>NATIVE_KOBO_RESOURCES</c>, Komga's
/// <c>nativeKoboResources</c>), with the keys older copies still carry (OverDrive, stacks) kept: a device
/// that looks up a key missing from the map may fall back to the store. Every store API URL
/// (<c>https://storeapi.kobo.com/...</c>) is pointed back at the device's own root here, so the device's
/// library, state and store calls reach this service and nothing of the linked account goes to the
/// store; so are the cover templates and the reading-services host (annotations). Web pages and other
/// hosts (the shop, help, sign-in) keep their store address. The store's feature switches are off: the
/// store is not there, and a switched-on feature (borrowing, wishlist, audiobooks, cloud links) would
/// only lead the reader to calls that cannot succeed.
/// </summary>
internal static class KoboResources
{
    /// <summary>Store API resources, as paths under the store API root.</summary>
    private static readonly (string Key, string Path)[] ApiPaths =
    [
        ("add_device", "/v1/user/add-device"),
        ("add_entitlement", "/v1/library/{RevisionIds}"),
        ("affiliaterequest", "/v1/affiliate"),
        ("assets", "/v1/assets"),
        ("audiobook", "/v1/products/audiobooks/{ProductId}"),
        ("audiobook_preview", "/v1/products/audiobooks/{Id}/preview"),
        ("audiobook_purchase_withcredit", "/v1/store/audiobook/{Id}"),
        ("authorproduct_recommendations", "/v1/products/books/authors/recommendations"),
        ("autocomplete", "/v1/products/autocomplete"),
        ("book", "/v1/products/books/{ProductId}"),
        ("book_subscription", "/v1/products/books/subscriptions"),
        ("browse_history", "/v1/user/browsehistory"),
        ("categories", "/v1/categories"),
        ("category", "/v1/categories/{CategoryId}"),
        ("category_featured_lists", "/v1/categories/{CategoryId}/featured"),
        ("category_products", "/v1/categories/{CategoryId}/products"),
        ("checkout_borrowed_book", "/v1/library/borrow"),
        ("configuration_data", "/v1/configuration"),
        ("content_access_book", "/v1/products/books/{ProductId}/access"),
        ("daily_deal", "/v1/products/dailydeal"),
        ("deals", "/v1/deals"),
        ("delete_entitlement", "/v1/library/{Ids}"),
        ("delete_tag", "/v1/library/tags/{TagId}"),
        ("delete_tag_items", "/v1/library/tags/{TagId}/items/delete"),
        ("device_auth", "/v1/auth/device"),
        ("device_refresh", "/v1/auth/refresh"),
        ("ereaderdevices", "/v2/products/EReaderDeviceFeeds"),
        ("exchange_auth", "/v1/auth/exchange"),
        ("external_book", "/v1/products/books/external/{Ids}"),
        ("featured_list", "/v1/products/featured/{FeaturedListId}"),
        ("featured_lists", "/v1/products/featured"),
        ("fte_feedback", "/v1/products/ftefeedback"),
        ("funnel_metrics", "/v1/funnelmetrics"),
        ("get_download_keys", "/v1/library/downloadkeys"),
        ("get_download_link", "/v1/library/downloadlink"),
        ("get_tests_request", "/v1/analytics/gettests"),
        ("library_book", "/v1/user/library/books/{LibraryItemId}"),
        ("library_items", "/v1/user/library"),
        ("library_metadata", "/v1/library/{Ids}/metadata"),
        ("library_prices", "/v1/user/library/previews/prices"),
        ("library_search", "/v1/library/search"),
        ("library_stack", "/v1/user/library/stacks/{LibraryItemId}"),
        ("library_sync", "/v1/library/sync"),
        ("notebooks", "/api/internal/notebooks"),
        ("notifications_registration_issue", "/v1/notifications/registration"),
        ("personalizedrecommendations", "/v2/users/personalizedrecommendations"),
        ("post_analytics_event", "/v1/analytics/event"),
        ("product_nextread", "/v1/products/{ProductIds}/nextread"),
        ("product_prices", "/v1/products/{ProductIds}/prices"),
        ("product_recommendations", "/v1/products/{ProductId}/recommendations"),
        ("product_reviews", "/v1/products/{ProductIds}/reviews"),
        ("products", "/v1/products"),
        ("productsv2", "/v2/products"),
        ("quickbuy_checkout", "/v1/store/quickbuy/{PurchaseId}/checkout"),
        ("quickbuy_create", "/v1/store/quickbuy/purchase"),
        ("rakuten_token_exchange", "/v1/auth/rakuten_token_exchange"),
        ("rating", "/v1/products/{ProductId}/rating/{Rating}"),
        ("reading_state", "/v1/library/{Ids}/state"),
        ("related_items", "/v1/products/{Id}/related"),
        ("remaining_book_series", "/v1/products/books/series/{SeriesId}"),
        ("rename_tag", "/v1/library/tags/{TagId}"),
        ("review", "/v1/products/reviews/{ReviewId}"),
        ("review_sentiment", "/v1/products/reviews/{ReviewId}/sentiment/{Sentiment}"),
        ("shelfie_recommendations", "/v1/user/recommendations/shelfie"),
        ("tag_items", "/v1/library/tags/{TagId}/Items"),
        ("tags", "/v1/library/tags"),
        ("taste_profile", "/v1/products/tasteprofile"),
        ("update_accessibility_to_preview", "/v1/library/{EntitlementIds}/preview"),
        ("user_loyalty_benefits", "/v1/user/loyalty/benefits"),
        ("user_platform", "/v1/user/platform"),
        ("user_profile", "/v1/user/profile"),
        ("user_ratings", "/v1/user/ratings"),
        ("user_recommendations", "/v1/user/recommendations"),
        ("user_reviews", "/v1/user/reviews"),
        ("user_wishlist", "/v1/user/wishlist"),
    ];

    /// <summary>Store pages and other hosts, kept as the store serves them.</summary>
    private static readonly (string Key, string Value)[] Pages =
    [
        ("account_page", "https://www.kobo.com/account/settings"),
        ("account_page_rakuten", "https://my.rakuten.co.jp/"),
        ("audiobook_detail_page", "https://www.kobo.com/{region}/{language}/audiobook/{slug}"),
        ("audiobook_get_credits", "https://www.kobo.com/{region}/{language}/audiobooks/plans"),
        ("audiobook_landing_page", "https://www.kobo.com/{region}/{language}/audiobooks"),
        ("audiobook_subscription_management", "https://www.kobo.com/{region}/{language}/account/subscriptions"),
        ("audiobook_subscription_orange_deal_inclusion_url", "https://authorize.kobo.com/inclusion"),
        ("audiobook_subscription_purchase", "https://www.kobo.com/{region}/{language}/checkoutoption/21C6D938-934B-4A91-B979-E14D70B2F280"),
        ("audiobook_subscription_tiers", "https://www.kobo.com/{region}/{language}/checkoutoption/21C6D938-934B-4A91-B979-E14D70B2F280"),
        ("book_detail_page", "https://www.kobo.com/{region}/{language}/ebook/{slug}"),
        ("book_detail_page_rakuten", "https://books.rakuten.co.jp/rk/{crossrevisionid}"),
        ("book_landing_page", "https://www.kobo.com/ebooks"),
        ("categories_page", "https://www.kobo.com/ebooks/categories"),
        ("client_authd_referral", "https://authorize.kobo.com/api/AuthenticatedReferral/client/v1/getLink"),
        ("customer_care_live_chat", "https://v2.zopim.com/widget/livechat.html?key=Y6gwUmnu4OATxN3Tli4Av9bYN319BTdO"),
        ("dictionary_host", "https://ereaderfiles.kobo.com"),
        ("discovery_host", "https://discovery.kobobooks.com"),
        ("dropbox_link_account_poll", "https://authorize.kobo.com/{region}/{language}/LinkDropbox"),
        ("dropbox_link_account_start", "https://authorize.kobo.com/LinkDropbox/start"),
        ("eula_page", "https://www.kobo.com/termsofuse?style=onestore"),
        ("facebook_sso_page", "https://authorize.kobo.com/signin/provider/Facebook/login?returnUrl=http://kobo.com/"),
        ("giftcard_epd_redeem_url", "https://www.kobo.com/{storefront}/{language}/redeem-ereader"),
        ("giftcard_redeem_url", "https://www.kobo.com/{storefront}/{language}/redeem"),
        ("googledrive_link_account_start", "https://authorize.kobo.com/{region}/{language}/linkcloudstorage/provider/google_drive"),
        ("help_page", "https://www.kobo.com/help"),
        ("instapaper_env_url", "https://www.instapaper.com/api/kobo"),
        ("instapaper_link_account_start", "https://authorize.kobo.com/{region}/{language}/linkinstapaper"),
        ("kobo_privacyCentre_url", "https://www.kobo.com/privacy"),
        ("love_dashboard_page", "https://www.kobo.com/{region}/{language}/kobosuperpoints"),
        ("love_points_redemption_page", "https://www.kobo.com/{region}/{language}/KoboSuperPointsRedemption?productId={ProductId}"),
        ("magazine_landing_page", "https://www.kobo.com/emagazines"),
        ("more_sign_in_options", "https://authorize.kobo.com/signin?returnUrl=http://kobo.com/#allProviders"),
        ("oauth_host", "https://oauth.kobo.com"),
        ("overdrive_account", "https://auth.overdrive.com/account"),
        ("overdrive_library", "https://{libraryKey}.auth.overdrive.com/library"),
        ("overdrive_library_finder_host", "https://libraryfinder.api.overdrive.com"),
        ("overdrive_thunder_host", "https://thunder.api.overdrive.com"),
        ("password_retrieval_page", "https://www.kobo.com/passwordretrieval.html"),
        ("pocket_link_account_start", "https://authorize.kobo.com/{region}/{language}/linkpocket"),
        ("ppx_purchasing_url", "https://purchasing.kobo.com"),
        ("privacy_page", "https://www.kobo.com/privacypolicy?style=onestore"),
        ("provider_external_sign_in_page", "https://authorize.kobo.com/ExternalSignIn/{providerName}?returnUrl=http://kobo.com/"),
        ("purchase_buy", "https://www.kobo.com/checkoutoption/"),
        ("purchase_buy_templated", "https://www.kobo.com/{region}/{language}/checkoutoption/{ProductId}"),
        ("redeem_interstitial_page", "https://www.kobo.com"),
        ("registration_page", "https://authorize.kobo.com/signup?returnUrl=http://kobo.com/"),
        ("sign_in_page", "https://auth.kobobooks.com/ActivateOnWeb"),
        ("social_authorization_host", "https://social.kobobooks.com:8443"),
        ("social_host", "https://social.kobobooks.com"),
        ("stacks_host_productId", "https://store.kobobooks.com/collections/byproductid/"),
        ("store_home", "www.kobo.com/{region}/{language}"),
        ("store_host", "www.kobo.com"),
        ("store_newreleases", "https://www.kobo.com/{region}/{language}/List/new-releases/961XUjtsU0qxkFItWOutGA"),
        ("store_search", "https://www.kobo.com/{region}/{language}/Search?Query={query}"),
        ("store_top50", "https://www.kobo.com/{region}/{language}/ebooks/Top"),
        ("subs_landing_page", "https://www.kobo.com/{region}/{language}/plus"),
        ("subs_management_page", "https://www.kobo.com/{region}/{language}/account/subscriptions"),
        ("subs_plans_page", "https://www.kobo.com/{region}/{language}/plus/plans"),
        ("subs_purchase_buy_templated", "https://www.kobo.com/{region}/{language}/Checkoutoption/{ProductId}/{TierId}"),
        ("subscription_publisher_price_page", "https://www.kobo.com/{region}/{language}/subscriptionpublisherprice"),
        ("terms_of_sale_page", "https://authorize.kobo.com/{region}/{language}/terms/termsofsale"),
        ("userguide_host", "https://ereaderfiles.kobo.com"),
        ("wishlist_page", "https://www.kobo.com/{region}/{language}/account/wishlist"),
    ];

    /// <summary>The store's feature switches, all off (<c>"False"</c>, a string as the store sends it).</summary>
    private static readonly string[] Switches =
    [
        "gpb_flow_enabled",
        "instapaper_enabled",
        "kobo_audiobooks_credit_redemption",
        "kobo_audiobooks_enabled",
        "kobo_audiobooks_orange_deal_enabled",
        "kobo_audiobooks_subscriptions_enabled",
        "kobo_display_price",
        "kobo_dropbox_link_account_enabled",
        "kobo_google_tax",
        "kobo_googledrive_link_account_enabled",
        "kobo_nativeborrow_enabled",
        "kobo_onedrive_link_account_enabled",
        "kobo_onestorelibrary_enabled",
        "kobo_redeem_enabled",
        "kobo_shelfie_enabled",
        "kobo_subscriptions_enabled",
        "kobo_superpoints_enabled",
        "kobo_wishlist_enabled",
        "use_one_store",
    ];

    /// <summary>The map for an e-reader whose root is <paramref name="eReaderRoot"/> (<c>{base}/kobo/{secret}</c>).</summary>
    public static JsonObject For(string eReaderRoot)
    {
        var resources = new JsonObject();
        foreach (var (key, path) in ApiPaths)
        {
            resources[key] = eReaderRoot + path;
        }

        foreach (var (key, value) in Pages)
        {
            resources[key] = value;
        }

        foreach (var key in Switches)
        {
            resources[key] = "False";
        }

        // The two values of the store's map that are objects, not strings.
        resources["blackstone_header"] = new JsonObject { ["key"] = "x-amz-request-payer", ["value"] = "requester" };
        resources["free_books_page"] = new JsonObject
        {
            ["EN"] = "https://www.kobo.com/{region}/{language}/p/free-ebooks",
            ["FR"] = "https://www.kobo.com/{region}/{language}/p/livres-gratuits",
            ["IT"] = "https://www.kobo.com/{region}/{language}/p/libri-gratuiti",
            ["NL"] = "https://www.kobo.com/{region}/{language}/List/bekijk-het-overzicht-van-gratis-ebooks/QpkkVWnUw8sxmgjSlCbJRg",
            ["PT"] = "https://www.kobo.com/{region}/{language}/p/livros-gratis",
        };

        // Covers: calibre-web's templates at the device's root, so the store never learns which books the
        // device holds; KoboContentApi redirects each to the content origin's cover of the book.
        resources["image_host"] = eReaderRoot;
        resources["image_url_template"] = eReaderRoot + "/{ImageId}/{Width}/{Height}/false/image.jpg";
        resources["image_url_quality_template"] = eReaderRoot + "/{ImageId}/{Width}/{Height}/{Quality}/{IsGreyscale}/image.jpg";

        // Annotations: the device calls {reading_services_host}/api/v3/content/...
        resources["reading_services_host"] = eReaderRoot;
        return resources;
    }

    /// <summary>The keys of store API resources (tests check each points back here).</summary>
    internal static IEnumerable<string> ApiKeys => ApiPaths.Select(p => p.Key);
}
