using System.Globalization;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>One line of the heaviest-users list: a user, their highlights, and the books holding them.</summary>
public sealed record HeavyUser(long UserNo, int Highlights, IReadOnlyList<long> Books);

/// <summary>
/// The sidecar a seed writes next to its data set: the top N users by highlights, heaviest first, as
/// tab-separated lines (user, highlights, comma-separated books). The highlight reads sample from it,
/// as the benchmark sampled the 100,000 heaviest users. Lines starting with '#' describe the seed.
/// </summary>
public static class HeaviestUsersFile
{
    public static IReadOnlyList<HeavyUser> Select(SeedPlan plan, int top)
    {
        var counts = plan.HighlightsPerUser;
        var order = Enumerable.Range(0, counts.Count)
            .Where(i => counts[i] > 0)
            .OrderByDescending(i => counts[i])
            .ThenBy(i => i)
            .Take(top);
        return order.Select(i =>
        {
            var user = new SeedUser(plan, i + 1);
            return new HeavyUser(i + 1, counts[i], user.BooksWithHighlights);
        }).ToList();
    }

    public static void Write(string path, SeedPlan plan, IReadOnlyList<HeavyUser> users)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        using var writer = new StreamWriter(path);
        writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"# kobo-sync seed: seed={plan.Scale.Seed} users={plan.Scale.Users} books={plan.Scale.Books} " +
            $"highlights={plan.TotalHighlights}"));
        writer.WriteLine("# user_no\thighlights\tbooks");
        foreach (var user in users)
        {
            writer.WriteLine(
                string.Create(CultureInfo.InvariantCulture, $"{user.UserNo}\t{user.Highlights}\t{string.Join(',', user.Books)}"));
        }
    }

    /// <summary>The data set's user count, from the list's first line; 0 when it does not say.</summary>
    public static long ReadUserCount(string path)
    {
        var first = File.ReadLines(path).FirstOrDefault() ?? string.Empty;
        var field = first.Split(' ').FirstOrDefault(f => f.StartsWith("users=", StringComparison.Ordinal));
        return field is not null && long.TryParse(field["users=".Length..], NumberStyles.None, CultureInfo.InvariantCulture, out var users)
            ? users
            : 0;
    }

    public static IReadOnlyList<HeavyUser> Read(string path)
    {
        var users = new List<HeavyUser>();
        var lineNo = 0;
        foreach (var line in File.ReadLines(path))
        {
            lineNo++;
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }

            var fields = line.Split('\t');
            if (fields.Length != 3
                || !long.TryParse(fields[0], NumberStyles.None, CultureInfo.InvariantCulture, out var user)
                || !int.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out var highlights))
            {
                throw new FormatException($"{path}:{lineNo}: expected 'user_no<TAB>highlights<TAB>books'.");
            }

            var books = fields[2].Split(',', StringSplitOptions.RemoveEmptyEntries)
                .Select(b => long.Parse(b, NumberStyles.None, CultureInfo.InvariantCulture)).ToList();
            users.Add(new HeavyUser(user, highlights, books));
        }

        return users;
    }
}
