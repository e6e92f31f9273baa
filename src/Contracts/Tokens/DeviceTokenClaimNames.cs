namespace Kobo.Sync.Contracts.Tokens;

/// <summary>The claims a device token carries beside the registered ones (issuer, audience, times).</summary>
public static class DeviceTokenClaimNames
{
    /// <summary>The user the token was issued to (the user number, as text).</summary>
    public const string User = "sub";

    /// <summary>The device the token was issued to.</summary>
    public const string Device = "did";
}
