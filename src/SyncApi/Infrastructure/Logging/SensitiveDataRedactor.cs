using System.Text.RegularExpressions;
using Serilog.Core;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// The last line of defence for what must never reach a log, whatever level an operator turns on:
/// device tokens, Kobo link secrets, page cursors and highlight text. Properties that carry them by name (the query
/// string ASP.NET Core logs at Information and below, authorization values, cursors, highlight text
/// and notes) are replaced, and anything shaped like a JSON Web Token or a bearer credential inside
/// any other text property is cut out, as is the secret of a Kobo link path (<c>/kobo/{secret}/...</c>). Runs before any sink formats the
/// event, so the rendered message is redacted too.
/// </summary>
internal sealed partial class SensitiveDataRedactor : ILogEventEnricher
{
    public const string Redacted = "[redacted]";

    private static readonly HashSet<string> SensitiveProperties = new(StringComparer.OrdinalIgnoreCase)
    {
        "QueryString", "Query", "Authorization", "Token", "AccessToken", "BearerToken", "Cursor", "NextCursor", "Text", "Note",
    };

    public void Enrich(LogEvent logEvent, ILogEventPropertyFactory propertyFactory)
    {
        List<LogEventProperty>? replacements = null;
        if (logEvent.Properties is Dictionary<string, LogEventPropertyValue> properties)
        {
            // The dictionary's own enumerator: the interface's would be boxed on every event.
            foreach (var (name, value) in properties)
            {
                Check(name, value, ref replacements);
            }
        }
        else
        {
            foreach (var (name, value) in logEvent.Properties)
            {
                Check(name, value, ref replacements);
            }
        }

        if (replacements is null)
        {
            return;
        }

        foreach (var property in replacements)
        {
            logEvent.AddOrUpdateProperty(property);
        }
    }

    private static void Check(string name, LogEventPropertyValue value, ref List<LogEventProperty>? replacements)
    {
        if (value is not ScalarValue { Value: string text } || text.Length == 0)
        {
            return;
        }

        string? clean = SensitiveProperties.Contains(name) ? Redacted
            : Credential().IsMatch(text) ? KoboSecret().Replace(Credential().Replace(text, Redacted), Redacted)
            : text.Contains("/kobo/", StringComparison.Ordinal) ? KoboSecret().Replace(text, Redacted)
            : null;
        if (clean is not null)
        {
            (replacements ??= []).Add(new LogEventProperty(name, new ScalarValue(clean)));
        }
    }

    /// <summary><paramref name="text"/> with every Kobo link's secret (the segment after <c>/kobo/</c>) cut out.</summary>
    public static string RedactKoboSecrets(string text) => KoboSecret().Replace(text, Redacted);

    /// <summary>A Kobo link's secret: the path segment after <c>/kobo/</c> (a raw path the framework logs at Debug and below).</summary>
    [GeneratedRegex(@"(?<=/kobo/)(?!\{)[^/?#\s""]+")]
    private static partial Regex KoboSecret();

    /// <summary>A JWT (three base64url parts, the first two JSON objects: "eyJ") or a bearer credential.</summary>
    [GeneratedRegex(@"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|(?i:bearer)\s+\S+")]
    private static partial Regex Credential();
}
