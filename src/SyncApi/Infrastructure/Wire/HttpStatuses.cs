namespace Kobo.Sync.SyncApi.Infrastructure.Wire;

/// <summary>HTTP statuses outside the standard's list that the service logs.</summary>
public static class HttpStatuses
{
    /// <summary>A request the client abandoned (nginx's convention): logged, never sent.</summary>
    public const int ClientClosedRequest = 499;
}
