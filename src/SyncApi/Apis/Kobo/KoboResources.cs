using System.Text.Json.Nodes;

namespace Kobo.Sync.SyncApi.Apis.Kobo;

/// <summary>
/// The <c>Resources</c> map a Kobo device reads at initialization: where everything it calls lives.
/// The keys and the store's own values are the Kobo store's published ones (as calibre-web serves them
/// without its store proxy). Every store API URL (<c>https://storeapi.kobo.com/...</c>) is pointed back
/// at the device's own root here, so the device's library, state and store calls reach this service and
/// nothing of the linked account goes to the store; so are the cover templates and the reading-services
/// host (annotations). Web pages (the store's shop, help) keep their store address.
/// </summary>
internal static class KoboResources
{
    /// <summary>Store API resources, as paths under the store API root.</summary>
    private static readonly (string Key, string Path)[] ApiPaths =
    [
        ("add_entitlement", "/v1/library/{RevisionIds}"),
        ("affiliaterequest", "/v1/affiliate"),
        ("authorproduct_recommendations", "/v1/products/books/authors/recommendations"),
        ("autocomplete", "/v1/products/autocomplete"),
        ("book", "/v1/products/books/{ProductId}"),
        ("book_subscription", "/v1/products/books/subscriptions"),
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
        ("exchange_auth", "/v1/auth/exchange"),
        ("external_book", "/v1/products/books/external/{Ids}"),
        ("featured_list", "/v1/products/featured/{FeaturedListId}"),
        ("featured_lists", "/v1/products/featured"),
        ("fte_feedback", "/v1/products/ftefeedback"),
        ("get_tests_request", "/v1/analytics/gettests"),
        ("library_book", "/v1/user/library/books/{LibraryItemId}"),
        ("library_items", "/v1/user/library"),
        ("library_metadata", "/v1/library/{Ids}/metadata"),
        ("library_prices", "/v1/user/library/previews/prices"),
        ("library_stack", "/v1/user/library/stacks/{LibraryItemId}"),
        ("library_sync", "/v1/library/sync"),
        ("notifications_registration_issue", "/v1/notifications/registration"),
        ("post_analytics_event", "/v1/analytics/event"),
        ("product_nextread", "/v1/products/{ProductIds}/nextread"),
        ("product_prices", "/v1/products/{ProductIds}/prices"),
        ("product_recommendations", "/v1/products/{ProductId}/recommendations"),
        ("product_reviews", "/v1/products/{ProductIds}/reviews"),
        ("products", "/v1/products"),
        ("quickbuy_checkout", "/v1/store/quickbuy/{PurchaseId}/checkout"),
        ("quickbuy_create", "/v1/store/quickbuy/purchase"),
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

    /// <summary>Store pages and switches, kept as the store serves them.</summary>
    private static readonly (string Key, string Value)[] Fixed =
    [
        ("account_page", "https://secure.kobobooks.com/profile"),
        ("book_detail_page", "https://store.kobobooks.com/{culture}/ebook/{slug}"),
        ("book_landing_page", "https://store.kobobooks.com/ebooks"),
        ("categories_page", "https://store.kobobooks.com/ebooks/categories"),
        ("eula_page", "https://www.kobo.com/termsofuse?style=onestore"),
        ("help_page", "https://www.kobo.com/help"),
        ("kobo_audiobooks_enabled", "False"),
        ("kobo_audiobooks_orange_deal_enabled", "False"),
        ("kobo_audiobooks_subscriptions_enabled", "False"),
        ("kobo_nativeborrow_enabled", "False"),
        ("kobo_onestorelibrary_enabled", "False"),
        ("kobo_redeem_enabled", "False"),
        ("kobo_shelfie_enabled", "False"),
        ("kobo_subscriptions_enabled", "False"),
        ("kobo_superpoints_enabled", "False"),
        ("kobo_wishlist_enabled", "False"),
        ("privacy_page", "https://www.kobo.com/privacypolicy?style=onestore"),
        ("store_home", "www.kobo.com/{region}/{language}"),
        ("store_host", "store.kobobooks.com"),
        ("use_one_store", "False"),
    ];

    /// <summary>The map for a device whose root is <paramref name="deviceRoot"/> (<c>{base}/kobo/{secret}</c>).</summary>
    public static JsonObject For(string deviceRoot)
    {
        var resources = new JsonObject();
        foreach (var (key, path) in ApiPaths)
        {
            resources[key] = deviceRoot + path;
        }

        foreach (var (key, value) in Fixed)
        {
            resources[key] = value;
        }

        // Covers: calibre-web's templates at the device's root, so the store never learns which books the
        // device holds; KoboContentApi redirects each to the content origin's cover of the book.
        resources["image_host"] = deviceRoot;
        resources["image_url_template"] = deviceRoot + "/{ImageId}/{Width}/{Height}/false/image.jpg";
        resources["image_url_quality_template"] = deviceRoot + "/{ImageId}/{Width}/{Height}/{Quality}/{IsGreyscale}/image.jpg";

        // Annotations: the device calls {reading_services_host}/api/v3/content/...
        resources["reading_services_host"] = deviceRoot;
        return resources;
    }

    /// <summary>Whether <paramref name="key"/> names a store API resource (tests check each points back here).</summary>
    internal static IEnumerable<string> ApiKeys => ApiPaths.Select(p => p.Key);
}
