using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support;

/// <summary>
/// KOReader's progress sync client as its plugin builds its requests (plugins/kosync.koplugin/KOSyncClient.lua
/// on Spore, api.json): every call carries <c>Accept: application/vnd.koreader.v1+json</c> (the <c>GinClient</c>
/// middleware), and every call but registration <c>x-auth-user</c> and <c>x-auth-key</c> (the <c>KOSyncAuth</c>
/// middleware); a body is the JSON of the method's <c>payload</c> parameters (Spore's <c>Format.JSON</c>, with
/// <c>Content-Type: application/json</c>). The key is the MD5 of the password (main.lua <c>userkey = md5(password)</c>).
/// </summary>
public sealed class KoreaderDevice(HttpClient http, string prefix, string username, string key, string model, string deviceId) : IDisposable
{
    public const string Accept = "application/vnd.koreader.v1+json";

    public string Username { get; } = username;

    public string Key { get; } = key;

    public string Model { get; } = model;

    public string DeviceId { get; } = deviceId;

    public HttpClient Http => http;

    public static string KeyOf(string password) => Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(password)));

    /// <summary>The same device with another key or user name (a wrong one).</summary>
    public KoreaderDevice With(string? username = null, string? key = null, string? deviceId = null, string? model = null) =>
        new(http, prefix, username ?? Username, key ?? Key, model ?? Model, deviceId ?? DeviceId);

    /// <summary>api.json <c>register</c>: POST /users/create with username and password (the key), no auth headers.</summary>
    public Task<Answer> RegisterAsync(string user, string password) =>
        SendAsync(HttpMethod.Post, "/users/create", JsonSerializer.Serialize(new { username = user, password }), auth: false);

    /// <summary>api.json <c>authorize</c>: GET /users/auth.</summary>
    public Task<Answer> AuthorizeAsync() => SendAsync(HttpMethod.Get, "/users/auth", null);

    /// <summary>
    /// api.json <c>update_progress</c>: PUT /syncs/progress with the payload main.lua's <c>updateProgress</c> sends
    /// (document, <c>tostring(progress)</c>, the rounded percentage, <c>Device.model</c>, the device id), and a recent
    /// plugin's <c>identifiers</c> when given.
    /// </summary>
    public Task<Answer> PushAsync(string document, string progress, double percentage, (string Type, string Value)[]? identifiers = null)
    {
        var body = new Dictionary<string, object?>
        {
            ["document"] = document,
            ["progress"] = progress,
            ["percentage"] = percentage,
            ["device"] = Model,
            ["device_id"] = DeviceId,
        };
        if (identifiers is not null)
        {
            body["identifiers"] = identifiers.Select(i => new { type = i.Type, value = i.Value }).ToArray();
        }

        return SendAsync(HttpMethod.Put, "/syncs/progress", JsonSerializer.Serialize(body));
    }

    /// <summary>api.json <c>get_progress</c>: GET /syncs/progress/:document, with a recent plugin's <c>ids</c> (KOSyncIdentifiers.query) when given.</summary>
    public Task<Answer> PullAsync(string document, (string Type, string Value)[]? identifiers = null) =>
        SendAsync(
            HttpMethod.Get,
            "/syncs/progress/" + document + (identifiers is null ? string.Empty : "?ids=" + string.Join(',', identifiers.Select(i => i.Type + ":" + i.Value))),
            null);

    public async Task<Answer> SendAsync(HttpMethod method, string path, string? json, bool auth = true)
    {
        using var request = new HttpRequestMessage(method, new Uri(prefix + path, UriKind.Relative));
        request.Headers.TryAddWithoutValidation("Accept", Accept);
        if (auth)
        {
            request.Headers.TryAddWithoutValidation("x-auth-user", Username);
            request.Headers.TryAddWithoutValidation("x-auth-key", Key);
        }

        if (json is not null)
        {
            request.Content = new StringContent(json, Encoding.UTF8);
            request.Content.Headers.ContentType = new("application/json");
        }

        using var response = await http.SendAsync(request, TestTimeout.Token);
        var text = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        return new Answer(response.StatusCode, response.Content.Headers.ContentType?.MediaType, text);
    }

    public void Dispose() => http.Dispose();

    /// <summary>An answer as the plugin gets it: the status it compares, and the JSON body Spore decodes.</summary>
    public sealed record Answer(HttpStatusCode Status, string? ContentType, string Text)
    {
        public JsonElement Json => JsonDocument.Parse(Text).RootElement;

        public override string ToString() => $"{(int)Status} {Text}";
    }
}
