namespace Kobo.Sync.Storage;

/// <summary>Names put into SQL and command lines unquoted (the embedded server's database and user), so they are kept plain.</summary>
public static class PlainIdentifiers
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
