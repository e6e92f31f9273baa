using System.ComponentModel.DataAnnotations;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;

/// <summary>Section <c>KOReader</c>: where KOReader's progress sync front lives, and what it keeps.</summary>
public sealed class KoreaderOptions
{
    public const string SectionName = "KOReader";

    /// <summary>
    /// The path the front is served under on the REST listener: KOReader's "Custom sync server" is the
    /// service's public base followed by it (<c>https://sync.example.com/koreader</c>). A path of one or more
    /// segments, starting with <c>/</c>, without a trailing <c>/</c>.
    /// </summary>
    public string PathPrefix { get; set; } = "/koreader";

    /// <summary>
    /// The most documents mapping to no owned book one user keeps; a new one beyond it replaces the least recently written.
    /// </summary>
    [Range(1, 1_000_000, ErrorMessage = "KOReader:MaxDocumentsPerUser must be from {1} to {2}.")]
    public int MaxDocumentsPerUser { get; set; } = 5_000;
}

/// <summary>Stops the start on a path prefix that is not one, naming the key.</summary>
internal sealed class KoreaderOptionsValidator : IValidateOptions<KoreaderOptions>
{
    public ValidateOptionsResult Validate(string? name, KoreaderOptions options)
    {
        var prefix = options.PathPrefix;
        var segments = prefix.Length > 1 && prefix[0] == '/' && prefix[^1] != '/' ? prefix[1..].Split('/') : [];
        return segments.Length > 0 && segments.All(s => s.Length > 0 && s.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.'))
            && !segments.Any(s => s is "v1" or "kobo" or "healthz" or "metrics")
            ? ValidateOptionsResult.Success
            : ValidateOptionsResult.Fail(
                $"KOReader:PathPrefix must be a path such as '/koreader' (segments of letters, digits, '-', '_' and '.', " +
                $"none of them 'v1', 'kobo', 'healthz' or 'metrics'); it was '{prefix}'.");
    }
}
