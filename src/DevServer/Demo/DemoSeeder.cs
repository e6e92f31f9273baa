using System.Diagnostics;
using Kobo.Sync.Domain.Library;
using Microsoft.Extensions.Logging.Abstractions;
using Npgsql;
using NpgsqlTypes;

namespace Kobo.Sync.DevServer.Demo;

/// <summary>What a seeding run did; <see cref="Seeded"/> is false when the store already held users.</summary>
public sealed record DemoSeedResult(bool Seeded, int Users, int Books, int Ownerships, int Highlights, TimeSpan Elapsed);

/// <summary>
/// Loads <see cref="DemoData"/> into an empty store with binary COPY, with each demo book's file as the
/// demo content origin serves it (<c>book_files</c>). Everything happens in one
/// transaction holding an advisory lock, so a crash never leaves half a seed and two instances
/// starting together seed once.
/// </summary>
public sealed class DemoSeeder(NpgsqlDataSource dataSource, ILogger<DemoSeeder>? logger = null)
{
    /// <summary>Advisory lock key shared by every Kobo.Sync instance ("kobo-sed" in ASCII).</summary>
    public const long LockKey = 0x6B6F_626F_2D73_6564;

    private readonly ILogger _logger = (ILogger?)logger ?? NullLogger.Instance;

    public async Task<DemoSeedResult> SeedAsync(CancellationToken cancellationToken)
    {
        var stopwatch = Stopwatch.StartNew();
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        await using (var command = new NpgsqlCommand("SELECT pg_advisory_xact_lock($1)", connection, transaction))
        {
            command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = LockKey });
            await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        await using (var command = new NpgsqlCommand("SELECT EXISTS (SELECT 1 FROM users)", connection, transaction))
        {
            if ((bool)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!)
            {
                await StateFilesOfAnEarlierSeedAsync(connection, transaction, cancellationToken).ConfigureAwait(false);
                return new DemoSeedResult(false, 0, 0, 0, 0, stopwatch.Elapsed);
            }
        }

        var rows = DemoRows.Generate();
        await CopyUsersAsync(connection, rows.Users, cancellationToken).ConfigureAwait(false);
        await CopyBooksAsync(connection, rows.Books, cancellationToken).ConfigureAwait(false);
        await CopyBookFilesAsync(connection, rows.Books, cancellationToken).ConfigureAwait(false);
        await CopyOwnershipsAsync(connection, rows.Ownerships, cancellationToken).ConfigureAwait(false);
        await CopyHighlightsAsync(connection, rows.Highlights, cancellationToken).ConfigureAwait(false);
        await HoldingsRecount.RunAsync(connection, transaction, cancellationToken).ConfigureAwait(false);

        await using (var analyze = new NpgsqlCommand("ANALYZE users, books, book_files, users_books, highlights", connection, transaction))
        {
            await analyze.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);

        var result = new DemoSeedResult(
            true, rows.Users.Count, rows.Books.Count, rows.Ownerships.Count, rows.Highlights.Count, stopwatch.Elapsed);
        _logger.LogInformation(
            "Seeded demo data: {Users} users, {Books} books, {Ownerships} ownerships, {Highlights} highlights in {ElapsedMs} ms; " +
            "heavy user {HeavyUser} has {HeavyUserHighlights} highlights",
            result.Users, result.Books, result.Ownerships, result.Highlights, (long)result.Elapsed.TotalMilliseconds,
            DemoData.HeavyUser.Value, DemoData.HeavyUserHighlights);
        return result;
    }

    private static async Task CopyUsersAsync(NpgsqlConnection connection, List<DemoUser> users, CancellationToken cancellationToken)
    {
        await using var writer = await connection.BeginBinaryImportAsync(
            "COPY users (user_no, name, country, created_at) FROM STDIN (FORMAT BINARY)", cancellationToken).ConfigureAwait(false);
        foreach (var user in users)
        {
            await writer.StartRowAsync(cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(user.UserNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(user.Name, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await WriteNullableAsync(writer, user.Country, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(user.CreatedAt, NpgsqlDbType.TimestampTz, cancellationToken).ConfigureAwait(false);
        }

        await writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    private static async Task CopyBooksAsync(NpgsqlConnection connection, List<DemoBook> books, CancellationToken cancellationToken)
    {
        await using var writer = await connection.BeginBinaryImportAsync(
            "COPY books (book_no, title, author, language) FROM STDIN (FORMAT BINARY)", cancellationToken).ConfigureAwait(false);
        foreach (var book in books)
        {
            await writer.StartRowAsync(cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(book.BookNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(book.Title, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(book.Author, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(book.Language, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
        }

        await writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// A store seeded before the catalogue stated book files (an embedded data directory kept between
    /// runs) gets the demo books' files, so its e-readers can download them too: only when no book file is
    /// stated yet and every demo book is in the catalogue as the demo seed wrote it.
    /// </summary>
    private async Task StateFilesOfAnEarlierSeedAsync(
        NpgsqlConnection connection, NpgsqlTransaction transaction, CancellationToken cancellationToken)
    {
        await using (var command = new NpgsqlCommand("SELECT EXISTS (SELECT 1 FROM book_files)", connection, transaction))
        {
            if ((bool)(await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false))!)
            {
                return;
            }
        }

        var books = DemoRows.GenerateBooks();
        var found = 0;
        await using (var command = new NpgsqlCommand(
            "SELECT book_no, title, author, language FROM books WHERE book_no BETWEEN 1 AND $1 ORDER BY book_no", connection, transaction))
        {
            command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = books.Count });
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var demo = books[(int)reader.GetInt64(0) - 1];
                if (reader.GetString(1) != demo.Title || reader.IsDBNull(2) || reader.GetString(2) != demo.Author
                    || reader.IsDBNull(3) || reader.GetString(3) != demo.Language)
                {
                    return;
                }

                found++;
            }
        }

        if (found != books.Count)
        {
            return;
        }

        await CopyBookFilesAsync(connection, books, cancellationToken).ConfigureAwait(false);
        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        _logger.LogInformation("Stated the files of {Books} demo books in a store seeded before book files were kept", books.Count);
    }

    /// <summary>
    /// Each demo book's file as the demo content origin serves it (<see cref="DemoContentFiles"/>): an EPUB3
    /// whose size is that of the EPUB made for it, so the size a device is told is the size it downloads.
    /// </summary>
    private static async Task CopyBookFilesAsync(NpgsqlConnection connection, List<DemoBook> books, CancellationToken cancellationToken)
    {
        await using var writer = await connection.BeginBinaryImportAsync(
            "COPY book_files (book_no, format, size) FROM STDIN (FORMAT BINARY)", cancellationToken).ConfigureAwait(false);
        foreach (var book in books)
        {
            await writer.StartRowAsync(cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(book.BookNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(BookFile.Epub3, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(
                (long)DemoContentFiles.EpubOf(book).Length, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
        }

        await writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    private static async Task CopyOwnershipsAsync(
        NpgsqlConnection connection, List<DemoOwnership> ownerships, CancellationToken cancellationToken)
    {
        await using var writer = await connection.BeginBinaryImportAsync(
            "COPY users_books (user_no, book_no, acquired_at) FROM STDIN (FORMAT BINARY)", cancellationToken).ConfigureAwait(false);
        foreach (var ownership in ownerships)
        {
            await writer.StartRowAsync(cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(ownership.UserNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(ownership.BookNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(ownership.AcquiredAt, NpgsqlDbType.TimestampTz, cancellationToken).ConfigureAwait(false);
        }

        await writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    private static async Task CopyHighlightsAsync(
        NpgsqlConnection connection, List<DemoHighlight> highlights, CancellationToken cancellationToken)
    {
        await using var writer = await connection.BeginBinaryImportAsync(
            "COPY highlights (id, user_no, book_no, text, start, length, color, note, created_at, modified_at) FROM STDIN (FORMAT BINARY)",
            cancellationToken).ConfigureAwait(false);
        foreach (var h in highlights)
        {
            await writer.StartRowAsync(cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.Id, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.UserNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.BookNo, NpgsqlDbType.Bigint, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.Text, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.Start, NpgsqlDbType.Integer, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.Length, NpgsqlDbType.Integer, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.Color, NpgsqlDbType.Text, cancellationToken).ConfigureAwait(false);
            await WriteNullableAsync(writer, h.Note, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.CreatedAt, NpgsqlDbType.TimestampTz, cancellationToken).ConfigureAwait(false);
            await writer.WriteAsync(h.ModifiedAt, NpgsqlDbType.TimestampTz, cancellationToken).ConfigureAwait(false);
        }

        await writer.CompleteAsync(cancellationToken).ConfigureAwait(false);
    }

    private static Task WriteNullableAsync(NpgsqlBinaryImporter writer, string? value, CancellationToken cancellationToken) =>
        value is null
            ? writer.WriteNullAsync(cancellationToken)
            : writer.WriteAsync(value, NpgsqlDbType.Text, cancellationToken);
}
