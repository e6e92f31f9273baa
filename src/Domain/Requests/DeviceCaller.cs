using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Requests;

/// <summary>The authenticated device making a request: its user (token <c>sub</c>) and device id (<c>did</c>).</summary>
public readonly record struct DeviceCaller(UserNo User, string DeviceId)
{
    /// <summary>A device reads and writes only its own user's data.</summary>
    public void EnsureOwns(UserNo user)
    {
        if (user != User)
        {
            throw new AccessDeniedException($"This device belongs to user {User} and cannot access user {user}.");
        }
    }
}
