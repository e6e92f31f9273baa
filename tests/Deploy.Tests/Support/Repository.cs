namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>Paths in the checkout the tests run from.</summary>
public static class Repository
{
    public static string Root { get; } = FindRoot();

    public static string PathOf(string relative) => Path.Combine(Root, relative.Replace('/', Path.DirectorySeparatorChar));

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Kobo.Sync.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException($"No Kobo.Sync.sln above {AppContext.BaseDirectory}.");
    }
}
