using System.Buffers;
using System.Buffers.Text;
using System.Text.Json;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// Finds a member named twice in a JWT's header or payload. JSON parsers disagree on which of two
/// <c>sub</c> claims wins (the token library keeps the last), so a token that repeats one is refused
/// instead of being read one way here and another way by the issuer. Run once per token, after its
/// signature checked out (the validated-token cache spares the repeat calls). Every token the library
/// accepts is checked, whatever its length: a size below which the check ran would let a padded token
/// through unchecked. The request header limit bounds the work.
/// </summary>
internal static class JwtDuplicateMembers
{
    /// <summary>The first name repeated at the top level of the header or the payload, or null.</summary>
    public static string? Find(string token)
    {
        var header = token.AsSpan();
        var dot = header.IndexOf('.');
        if (dot < 0)
        {
            return null;
        }

        var rest = header[(dot + 1)..];
        var payloadEnd = rest.IndexOf('.');
        return FindIn(header[..dot]) ?? FindIn(payloadEnd < 0 ? rest : rest[..payloadEnd]);
    }

    private static string? FindIn(ReadOnlySpan<char> segment)
    {
        var length = Base64Url.GetMaxDecodedLength(segment.Length);
        var rented = ArrayPool<byte>.Shared.Rent(length);
        try
        {
            if (!Base64Url.TryDecodeFromChars(segment, rented, out var written))
            {
                return null;
            }

            return FindInObject(rented.AsSpan(0, written));
        }
        catch (JsonException)
        {
            return null; // unreachable in practice: the token library parsed this segment already
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }

    private static string? FindInObject(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            return null;
        }

        var seen = new HashSet<string>(StringComparer.Ordinal);
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var name = reader.GetString()!;
            if (!seen.Add(name))
            {
                return name;
            }

            reader.Read();
            reader.Skip();
        }

        return null;
    }
}
