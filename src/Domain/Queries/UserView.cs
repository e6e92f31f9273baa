namespace Kobo.Sync.Domain.Queries;

/// <summary>A reader account as a device sees it.</summary>
public sealed record UserView(long UserNo, string Name, DateTimeOffset CreatedAt, string? Country);
