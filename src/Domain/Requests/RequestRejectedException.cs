namespace Kobo.Sync.Domain.Requests;

/// <summary>
/// A request the service refuses for a reason the caller can fix or must accept. Each protocol maps
/// the subclasses in one place: REST to a 4xx problem+json, gRPC to a status code.
/// </summary>
public abstract class RequestRejectedException(string message) : Exception(message);

/// <summary>A malformed or out-of-range value; <see cref="Field"/> names it as the caller sent it.</summary>
public sealed class InvalidRequestException(string field, string message) : RequestRejectedException(message)
{
    public string Field { get; } = field;
}

/// <summary>The named resource does not exist.</summary>
public sealed class ResourceNotFoundException(string message) : RequestRejectedException(message)
{
    /// <summary>The one answer for a user number no user has, whichever call named it.</summary>
    public static ResourceNotFoundException UnknownUser(Ids.UserNo user) => new($"User {user} does not exist.");
}

/// <summary>The caller is authenticated but may not touch this resource.</summary>
public sealed class AccessDeniedException(string message) : RequestRejectedException(message);
