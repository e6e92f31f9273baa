using System.Text;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// Writes one chunk of users (their user, ownership and highlight rows) with three binary COPY
/// streams on one connection, inside the caller's transaction. Rows are generated as they are
/// written, so memory stays flat at any scale.
/// </summary>
internal static class SeedCopy
{
    private const int ProgressEvery = 2_048;

    public static void Books(NpgsqlConnection connection, SeedPlan plan, SeedProgress progress, CancellationToken cancellationToken)
    {
        var random = new Random(plan.Scale.Seed);
        string[] adjectives = ["Silent", "Golden", "Hidden", "Last", "Northern", "Secret", "Winter", "Broken", "Distant", "Little"];
        string[] nouns = ["Garden", "River", "Letters", "Voyage", "House", "Island", "Kingdom", "Lantern", "Orchard", "Station"];
        string[] languages = ["en", "en", "en", "fr", "de", "es", "nl", "it"];
        using var writer = connection.BeginBinaryImport("COPY books (book_no, title, author, language) FROM STDIN (FORMAT BINARY)");
        for (long b = 1; b <= plan.Scale.Books; b++)
        {
            writer.StartRow();
            writer.Write(b, NpgsqlDbType.Bigint);
            writer.Write($"The {adjectives[random.Next(adjectives.Length)]} {nouns[random.Next(nouns.Length)]}", NpgsqlDbType.Text);
            writer.Write($"Author {random.Next(1, 20_000)}", NpgsqlDbType.Text);
            writer.Write(languages[random.Next(languages.Length)], NpgsqlDbType.Text);
            Report(b, SeedTable.Books, progress, cancellationToken);
        }

        writer.Complete();
        progress.Add(SeedTable.Books, plan.Scale.Books % ProgressEvery);
    }

    public static void Users(
        NpgsqlConnection connection, SeedPlan plan, long firstUser, long lastUser,
        SeedProgress progress, CancellationToken cancellationToken)
    {
        // Ownerships and highlights in one pass over the users: both COPY streams cannot share a
        // connection at once, so the chunk's ownerships and holdings are buffered (a chunk is small).
        var ownerships = new List<(long User, long Book, DateTime AcquiredAt)>();
        var holdings = new (long Count, long Bytes)[lastUser - firstUser + 1];
        long rows = 0;
        using (var highlights = connection.BeginBinaryImport(
            "COPY highlights (id, user_no, book_no, text, start, length, color, note, created_at, modified_at) FROM STDIN (FORMAT BINARY)"))
        {
            for (var u = firstUser; u <= lastUser; u++)
            {
                var user = new SeedUser(plan, u);
                for (var i = 0; i < user.Books.Count; i++)
                {
                    var book = user.Books[i];
                    var acquired = user.NextAcquiredAt();
                    ownerships.Add((u, book, acquired));
                    for (var seq = 1; seq <= user.HighlightsPerBook[i]; seq++)
                    {
                        var h = user.NextHighlight(book, seq, acquired);
                        highlights.StartRow();
                        highlights.Write(h.Id, NpgsqlDbType.Text);
                        highlights.Write(u, NpgsqlDbType.Bigint);
                        highlights.Write(book, NpgsqlDbType.Bigint);
                        highlights.Write(h.Text, NpgsqlDbType.Text);
                        highlights.Write(h.Start, NpgsqlDbType.Integer);
                        highlights.Write(h.Text.Length, NpgsqlDbType.Integer);
                        highlights.Write(h.Color, NpgsqlDbType.Text);
                        WriteNullable(highlights, h.Note);
                        highlights.Write(h.CreatedAt, NpgsqlDbType.TimestampTz);
                        highlights.Write(h.ModifiedAt, NpgsqlDbType.TimestampTz);
                        ref var held = ref holdings[u - firstUser];
                        held.Count++;
                        held.Bytes += Encoding.UTF8.GetByteCount(h.Text) + (h.Note is null ? 0 : Encoding.UTF8.GetByteCount(h.Note));
                        Report(++rows, SeedTable.Highlights, progress, cancellationToken);
                    }
                }
            }

            highlights.Complete();
            progress.Add(SeedTable.Highlights, rows % ProgressEvery);
        }

        using (var owners = connection.BeginBinaryImport("COPY users_books (user_no, book_no, acquired_at) FROM STDIN (FORMAT BINARY)"))
        {
            rows = 0;
            foreach (var (user, book, acquiredAt) in ownerships)
            {
                owners.StartRow();
                owners.Write(user, NpgsqlDbType.Bigint);
                owners.Write(book, NpgsqlDbType.Bigint);
                owners.Write(acquiredAt, NpgsqlDbType.TimestampTz);
                Report(++rows, SeedTable.Ownerships, progress, cancellationToken);
            }

            owners.Complete();
            progress.Add(SeedTable.Ownerships, rows % ProgressEvery);
        }

        // The users last, with the holdings (the per-user quota's count and bytes) their highlights
        // add up to: written with the row rather than recounted by an UPDATE of every user afterwards,
        // which would leave a dead version of each user row (twice the table on disk).
        using var users = connection.BeginBinaryImport(
            "COPY users (user_no, name, country, created_at, highlight_count, highlight_bytes) FROM STDIN (FORMAT BINARY)");
        rows = 0;
        for (var u = firstUser; u <= lastUser; u++)
        {
            var user = new SeedUser(plan, u);
            var (count, bytes) = holdings[(int)(u - firstUser)];
            users.StartRow();
            users.Write(u, NpgsqlDbType.Bigint);
            users.Write(user.Name, NpgsqlDbType.Text);
            WriteNullable(users, user.Country);
            users.Write(user.CreatedAt, NpgsqlDbType.TimestampTz);
            users.Write(count, NpgsqlDbType.Bigint);
            users.Write(bytes, NpgsqlDbType.Bigint);
            Report(++rows, SeedTable.Users, progress, cancellationToken);
        }

        users.Complete();
        progress.Add(SeedTable.Users, rows % ProgressEvery);
    }

    private static void Report(long written, SeedTable table, SeedProgress progress, CancellationToken cancellationToken)
    {
        if (written % ProgressEvery == 0)
        {
            progress.Add(table, ProgressEvery);
            cancellationToken.ThrowIfCancellationRequested();
        }
    }

    private static void WriteNullable(NpgsqlBinaryImporter writer, string? value)
    {
        if (value is null)
        {
            writer.WriteNull();
        }
        else
        {
            writer.Write(value, NpgsqlDbType.Text);
        }
    }
}
