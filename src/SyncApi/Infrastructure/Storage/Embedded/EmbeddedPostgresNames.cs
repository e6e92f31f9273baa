namespace Kobo.Sync.SyncApi.Infrastructure.Storage.Embedded;

/// <summary>Names the launcher puts into SQL and command lines unquoted, so they are kept plain.</summary>
internal static class EmbeddedPostgresNames
{
    public static bool IsPlainIdentifier(string? name)
    {
        if (string.IsNullOrEmpty(name) || name.Length > 63 || name[0] is < 'a' or > 'z')
        {
            return false;
        }

        foreach (var c in name)
        {
            if (c is not ((>= 'a' and <= 'z') or (>= '0' and <= '9') or '_'))
            {
                return false;
            }
        }

        return true;
    }
}
