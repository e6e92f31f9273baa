using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;

/// <summary>
/// A class fixture for the Kobo device protocol: a migrated database of its own holding users 1..50
/// and books 1..400 (a language on the even ones), and the whole service in process on it. Each test
/// takes its own user with <see cref="NewUser"/> and links a Kobo e-reader for it with <see cref="LinkAsync"/>.
/// </summary>
public sealed class KoboServiceDatabase : InProcessServiceDatabase
{
    public const int Books = 400;

    protected override string SeedSql => $"""
        INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 50) n;
        INSERT INTO books (book_no, title, author, language)
        SELECT n, 'Book ' || n, CASE WHEN n % 3 = 0 THEN NULL ELSE 'Author ' || n END, CASE WHEN n % 2 = 0 THEN 'de' END
        FROM generate_series(1, {Books}) n;
        """;

    /// <summary>A REST client speaking as <paramref name="device"/> of <paramref name="user"/> (bearer token).</summary>
    public HttpClient Device(long user, string device = "phone") =>
        Factory.CreateClient().WithToken(TestTokens.For(user, device));

    /// <summary>Links a Kobo e-reader for <paramref name="user"/> through its phone; returns the e-reader's client.</summary>
    public async Task<KoboReader> LinkAsync(long user, SyncApiFactory? service = null)
    {
        var factory = service ?? Factory;
        using var phone = factory.CreateClient().WithToken(TestTokens.For(user, "phone"));
        return new KoboReader(factory.CreateClient(), await phone.LinkAsync(user));
    }

    /// <summary>Gives the user books <paramref name="from"/> to <paramref name="to"/>, as a bulk load does (sequence 0).</summary>
    public async Task OwnAsync(long user, int from, int to)
    {
        await using var command = DataSource.CreateCommand(
            "INSERT INTO users_books (user_no, book_no, acquired_at) SELECT $1, n, now() - interval '1 day' FROM generate_series($2, $3) n");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = from });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = to });
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    /// <summary>The books the user owns now, by the database.</summary>
    public async Task<long> OwnedCountAsync(long user)
    {
        await using var command = DataSource.CreateCommand("SELECT count(*) FROM users_books WHERE user_no = $1 AND removed_at IS NULL");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }

    public async Task<bool> OwnsAsync(long user, long book)
    {
        await using var command = DataSource.CreateCommand(
            "SELECT EXISTS (SELECT 1 FROM users_books WHERE user_no = $1 AND book_no = $2 AND removed_at IS NULL)");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book });
        return (bool)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
