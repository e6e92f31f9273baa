using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support;

/// <summary>
/// A class fixture for KOReader's progress sync: a migrated database of its own holding users 1..50 and
/// books 1..20 with an EPUB3 file each, books 1..10 with the KOReader digests <see cref="Content"/>,
/// <see cref="Structure"/> and <see cref="Filename"/> of that file, and the whole service in process on it.
/// Each test takes its own user (<see cref="InProcessServiceDatabase.NewUser"/>), owns books with
/// <see cref="OwnAsync"/>, and makes a KOReader login with <see cref="LoginAsync"/>.
/// </summary>
public sealed class KoreaderServiceDatabase : InProcessServiceDatabase
{
    public const string Prefix = "/koreader";

    protected override string SeedSql => """
        INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 50) n;
        INSERT INTO books (book_no, title, author, language) SELECT n, 'Book ' || n, 'Author ' || n, 'en' FROM generate_series(1, 20) n;
        INSERT INTO book_files (book_no, format, size) SELECT n, 'EPUB3', 1000 + n FROM generate_series(1, 20) n;
        INSERT INTO book_file_digests (book_no, format, kind, digest)
        SELECT n, 'EPUB3', kind, md5(kind || '-' || n) FROM generate_series(1, 10) n, unnest(ARRAY['content', 'structure', 'filename']) kind;
        """;

    /// <summary>The catalogue's content digest of book <paramref name="book"/>'s file (what KOReader's partial MD5 of it would be).</summary>
    public static string Content(long book) => Md5($"content-{book}");

    public static string Structure(long book) => Md5($"structure-{book}");

    public static string Filename(long book) => Md5($"filename-{book}");

    public static string Md5(string text) => Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(text)));

    /// <summary>A REST client speaking as <paramref name="device"/> of <paramref name="user"/> (bearer token).</summary>
    public HttpClient Device(long user, string device = "phone") => Factory.CreateClient().WithToken(TestTokens.For(user, device));

    /// <summary>Makes a KOReader login through the user's phone; the answer's user name and password.</summary>
    public async Task<(string Username, string Password, string Server)> LoginAsync(long user, string device = "phone") =>
        await LoginAsync(Device(user, device), user);

    /// <summary>Makes a KOReader login through <paramref name="phone"/> (a device of <paramref name="user"/>, disposed here).</summary>
    public static async Task<(string Username, string Password, string Server)> LoginAsync(HttpClient phone, long user)
    {
        using var _ = phone;
        using var response = await phone.PostAsync(new Uri($"/v1/users/{user}/koreader-logins", UriKind.Relative), null, TestTimeout.Token);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.Created, $"koreader-logins: {(int)response.StatusCode} {body}");
        var json = JsonDocument.Parse(body).RootElement;
        return (json.GetProperty("username").GetString()!, json.GetProperty("password").GetString()!, json.GetProperty("server").GetString()!);
    }

    /// <summary>A KOReader device of <paramref name="user"/>, logged in with a new login.</summary>
    public async Task<KoreaderDevice> KoreaderAsync(long user, string model = "Kobo_spaBW", string deviceId = "A1B2C3D4E5F60718293A4B5C6D7E8F90")
    {
        var (username, password, _) = await LoginAsync(user);
        return new KoreaderDevice(Factory.CreateClient(), Prefix, username, KoreaderDevice.KeyOf(password), model, deviceId);
    }

    public async Task OwnAsync(long user, int from, int to)
    {
        await using var command = DataSource.CreateCommand(
            "INSERT INTO users_books (user_no, book_no, acquired_at) SELECT $1, n, now() - interval '1 day' FROM generate_series($2, $3) n");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = from });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = to });
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    public async Task<T?> ScalarAsync<T>(string sql, params object[] values)
    {
        await using var command = DataSource.CreateCommand(sql);
        foreach (var value in values)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = value });
        }

        return await command.ExecuteScalarAsync(TestTimeout.Token) is T result ? result : default;
    }
}
