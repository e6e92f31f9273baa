namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>
/// A run that cannot start as asked: a profile that cannot be read or breaks a rule, or a missing or malformed run option.
/// </summary>
public sealed class ProfileException(string message) : Exception(message);
