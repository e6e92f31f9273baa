namespace Kobo.Sync.Domain.Catalog;

/// <summary>A reader account. Document id <c>users/{userNo}</c>.</summary>
public sealed class User
{
    public required string Id { get; init; }

    public required string Name { get; set; }

    public required DateTimeOffset CreatedAt { get; init; }

    /// <summary>ISO 3166-1 alpha-2 country of the storefront the account belongs to.</summary>
    public string? Country { get; set; }
}
