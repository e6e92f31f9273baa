namespace Kobo.Sync.Architecture.Tests;

/// <summary>The checkout the tests run from: the folder above the test's binaries that holds Kobo.Sync.sln.</summary>
internal static class Repository
{
    public static string Root { get; } = FindRoot();

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Kobo.Sync.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("Kobo.Sync.sln not found above the test's folder.");
    }
}
