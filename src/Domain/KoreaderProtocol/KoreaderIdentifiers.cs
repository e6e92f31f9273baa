using System.Text.RegularExpressions;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>
/// One digest a device knows its document by, with the type it gives it (<c>content</c>, <c>structure</c>, <c>filename</c>, ...).
/// </summary>
public sealed record KoreaderIdentifier(string Type, string Value);

/// <summary>
/// The identifier lists of recent KOReader plugins (KOSyncIdentifiers.lua), checked as the reference
/// server checks them (koreader-sync-server lib/identifiers.lua): at most 8, strongest first, a type is
/// lower-case letters, digits and dashes (up to 32), a value letters, digits, <c>-</c>, <c>_</c> and
/// <c>.</c> (up to 128), no type twice. The plugin lists the document's own digest among them
/// (<c>KOSyncIdentifiers.build</c> returns nothing otherwise), so a list without it is refused.
/// A PUT carries them as a JSON array of <c>{type, value}</c>; a GET as <c>ids=type:value,type:value</c>.
/// </summary>
public static partial class KoreaderIdentifiers
{
    public const int MaxCount = 8;

    /// <summary>
    /// The list in a GET's <c>ids</c>; null (with nothing refused) when there is none, and <paramref name="valid"/> false when it is
    /// malformed.
    /// </summary>
    public static IReadOnlyList<KoreaderIdentifier>? ParseQuery(string? raw, string document, out bool valid)
    {
        valid = true;
        if (raw is null)
        {
            return null;
        }

        var entries = raw.Split(',');
        var list = new List<KoreaderIdentifier>(entries.Length);
        foreach (var entry in entries)
        {
            var pair = entry.Split(':');
            if (pair.Length != 2)
            {
                valid = false;
                return null;
            }

            list.Add(new KoreaderIdentifier(pair[0], pair[1]));
        }

        valid = IsValidList(list, document);
        return valid ? list : null;
    }

    /// <summary>
    /// Whether a list (as parsed from a PUT's array or a GET's query) is one the service takes for <paramref name="document"/>.
    /// </summary>
    public static bool IsValidList(IReadOnlyList<KoreaderIdentifier> list, string document)
    {
        if (list.Count is 0 or > MaxCount)
        {
            return false;
        }

        var types = new HashSet<string>(StringComparer.Ordinal);
        var hasDocument = false;
        foreach (var identifier in list)
        {
            if (!IsValidType(identifier.Type) || !IsValidValue(identifier.Value) || !types.Add(identifier.Type))
            {
                return false;
            }

            hasDocument |= identifier.Value == document;
        }

        return hasDocument;
    }

    /// <summary>The list as stored beside a progress string: <c>type:value,type:value</c>.</summary>
    public static string Encode(IReadOnlyList<KoreaderIdentifier> list) => string.Join(',', list.Select(i => i.Type + ":" + i.Value));

    /// <summary>A stored list; null when none was stored (the writer sent none) or it cannot be read.</summary>
    public static IReadOnlyList<KoreaderIdentifier>? Decode(string? stored)
    {
        if (string.IsNullOrEmpty(stored))
        {
            return null;
        }

        var list = new List<KoreaderIdentifier>();
        foreach (var entry in stored.Split(','))
        {
            var pair = entry.Split(':');
            if (pair.Length != 2)
            {
                return null;
            }

            list.Add(new KoreaderIdentifier(pair[0], pair[1]));
        }

        return list;
    }

    /// <summary>
    /// What the reader shares with the writer of a progress string: the type, in the reader's own words, of
    /// the first identifier the reader offered whose digest the writer also held; null when none
    /// (reference server, <c>Identifiers.common</c>).
    /// </summary>
    public static string? Common(IReadOnlyList<KoreaderIdentifier> reader, IReadOnlyList<KoreaderIdentifier> writer)
    {
        var held = writer.Select(w => w.Value).ToHashSet(StringComparer.Ordinal);
        return reader.FirstOrDefault(r => held.Contains(r.Value))?.Type;
    }

    public static bool IsValidType(string? type) => type is { Length: > 0 and <= 32 } && TypePattern().IsMatch(type);

    public static bool IsValidValue(string? value) => value is { Length: > 0 and <= 128 } && ValuePattern().IsMatch(value);

    [GeneratedRegex("^[a-z][a-z0-9-]*$")]
    private static partial Regex TypePattern();

    [GeneratedRegex("^[A-Za-z0-9][A-Za-z0-9_.-]*$")]
    private static partial Regex ValuePattern();
}
