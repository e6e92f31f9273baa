namespace Kobo.Sync.DeviceSimulator.Tests.Support;

public static class RepositoryRoot
{
    public static string Path { get; } = Find();

    public static string Profile(string name) => System.IO.Path.Combine(Path, "load", "profiles", name + ".json");

    private static string Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(System.IO.Path.Combine(dir.FullName, "Kobo.Sync.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("Kobo.Sync.sln not found above the test binaries.");
    }
}
