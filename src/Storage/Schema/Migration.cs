using System.Globalization;
using System.Reflection;
using System.Security.Cryptography;
using System.Text;

namespace Kobo.Sync.Storage.Schema;

/// <summary>One numbered SQL file under <c>Storage/Sql/Migrations</c> (<c>0001_initial.sql</c>), embedded in the assembly.</summary>
public sealed record Migration(int Version, string Name, string Sql, string Checksum)
{
    private const string ResourcePrefix = "Kobo.Sync.Storage.Sql.Migrations.";

    /// <summary>All embedded migrations, in version order.</summary>
    public static IReadOnlyList<Migration> Embedded { get; } = Load(typeof(Migration).Assembly);

    private static List<Migration> Load(Assembly assembly)
    {
        var migrations = new List<Migration>();
        foreach (var resource in assembly.GetManifestResourceNames())
        {
            if (!resource.StartsWith(ResourcePrefix, StringComparison.Ordinal) || !resource.EndsWith(".sql", StringComparison.Ordinal))
            {
                continue;
            }

            var name = resource[ResourcePrefix.Length..^".sql".Length];
            var underscore = name.IndexOf('_', StringComparison.Ordinal);
            if (underscore <= 0 || !int.TryParse(name[..underscore], NumberStyles.None, CultureInfo.InvariantCulture, out var version))
            {
                throw new InvalidOperationException($"Migration '{resource}' is not named NNNN_name.sql.");
            }

            using var stream = assembly.GetManifestResourceStream(resource)!;
            using var reader = new StreamReader(stream, Encoding.UTF8);
            var sql = reader.ReadToEnd().ReplaceLineEndings("\n");
            var checksum = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(sql))).ToLowerInvariant();
            migrations.Add(new Migration(version, name, sql, checksum));
        }

        migrations.Sort((a, b) => a.Version.CompareTo(b.Version));
        for (var i = 1; i < migrations.Count; i++)
        {
            if (migrations[i].Version == migrations[i - 1].Version)
            {
                throw new InvalidOperationException($"Two migrations share version {migrations[i].Version}.");
            }
        }

        return migrations;
    }
}
