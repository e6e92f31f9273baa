using Kobo.Sync.Storage.Schema;

namespace Kobo.Sync.SyncApi.Tests.Storage.Schema;

/// <summary>The migrations the service carries: every file of the folder, in an order with no hole a lost file would leave.</summary>
[Trait("Category", "Fast")]
public sealed class MigrationTests
{
    [Fact]
    public void EveryMigrationFileIsEmbedded()
    {
        var folder = Path.Combine(RepositoryRoot(), "src", "Storage", "Sql", "Migrations");
        var files = Directory.GetFiles(folder, "*.sql").Select(Path.GetFileNameWithoutExtension).Order(StringComparer.Ordinal);

        Assert.NotEmpty(files);
        Assert.Equal(files, Migration.Embedded.Select(m => m.Name).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void MigrationsAreNumberedFromOneWithoutGaps() =>
        Assert.Equal(Enumerable.Range(1, Migration.Embedded.Count), Migration.Embedded.Select(m => m.Version));

    private static string RepositoryRoot()
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
