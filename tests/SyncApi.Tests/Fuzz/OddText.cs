using System.Globalization;
using System.Text;
using CsCheck;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Text that a careless client, a broken client or an attacker sends: control characters and NUL,
/// lone surrogates, right-to-left marks, look-alike numbers, injection shapes, and very long strings.
/// </summary>
internal static class OddText
{
    private static readonly string[] Known =
    [
        "", " ", "\0", "a\0b", "\0\0\0", "\ud800", "x\udc00", "\udc00\ud800", "\ud83d\ude00", "\u202e", "\ufeff", "\uffff", "\ufffe",
        "\u0085", "\u2028", "\r\n", "\t", "\u001b[31m", "null", "undefined", "NaN", "true", "[]", "{}", "0", "-0", "-1", "1", "01",
        "+1", "1.0", "1e3", "0x10", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551616",
        "999999999999999999", "1000000000000000000", "%00", "%", "%zz", "../..", "..%2f", "\\", "'", "\"", "' OR '1'='1",
        "'; DROP TABLE highlights; --", "$1", "${jndi:x}", "<script>", "{{7*7}}", "A", "Ω", "İ", "ß", "\u0301", "e\u0301", "\U0001F600",
    ];

    /// <summary>Any character at all, surrogates and controls included.</summary>
    public static Gen<char> AnyChar { get; } = Gen.Frequency(
        (4, Gen.Char['\0', '\u001f']),
        (4, Gen.Char[' ', '~']),
        (2, Gen.Char['\ud800', '\udfff']),
        (2, Gen.Char['\u0080', '\uffff']));

    /// <summary>Near, at and past the limits (10,000 characters of text, 128 of a device id, 512 of a token), and far past.</summary>
    public static Gen<string> Long { get; } =
        Gen.Select(Gen.OneOf(64, 65, 128, 129, 512, 513, 4_096, 10_000, 10_001, 70_000), Gen.OneOf('a', ' ', '\0', 'é', '\ud800'),
            (length, fill) => new string(fill, length));

    public static Gen<string> Any { get; } = Gen.Frequency(
        (4, Gen.OneOf(Known)),
        (3, Gen.String[AnyChar, 0, 24]),
        (2, Gen.String[Gen.Char.AlphaNumeric, 1, 70]),
        (1, Long));

    /// <summary>A string JSON-escaped the strict way: controls and every surrogate as \uXXXX, so lone surrogates travel as escapes.</summary>
    public static string Json(string value)
    {
        var text = new StringBuilder(value.Length + 2).Append('"');
        foreach (var c in value)
        {
            switch (c)
            {
                case '"': text.Append("\\\""); break;
                case '\\': text.Append("\\\\"); break;
                default:
                    if (c < ' ' || char.IsSurrogate(c))
                    {
                        text.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}");
                    }
                    else
                    {
                        text.Append(c);
                    }

                    break;
            }
        }

        return text.Append('"').ToString();
    }

    /// <summary>A path segment or query value: every byte outside the unreserved set percent-encoded, as a client would.</summary>
    public static string Percent(string value) => Percent(Encoding.UTF8.GetBytes(value));

    public static string Percent(byte[] bytes)
    {
        var text = new StringBuilder(bytes.Length * 3);
        foreach (var b in bytes)
        {
            if (b is >= (byte)'a' and <= (byte)'z' or >= (byte)'A' and <= (byte)'Z' or >= (byte)'0' and <= (byte)'9' or (byte)'-' or (byte)'_' or (byte)'.' or (byte)'~')
            {
                text.Append((char)b);
            }
            else
            {
                text.Append(CultureInfo.InvariantCulture, $"%{b:X2}");
            }
        }

        return text.ToString();
    }

    /// <summary>For reports: the value with every control character, surrogate and non-ASCII character escaped, and long runs shortened.</summary>
    public static string Show(string value)
    {
        var text = new StringBuilder();
        for (var i = 0; i < value.Length; i++)
        {
            var run = 1;
            while (i + run < value.Length && value[i + run] == value[i])
            {
                run++;
            }

            var c = value[i];
            var shown = c is >= ' ' and <= '~' ? c.ToString() : $"\\u{(int)c:x4}";
            if (run > 8)
            {
                text.Append(CultureInfo.InvariantCulture, $"{shown}x{run}");
                i += run - 1;
            }
            else
            {
                text.Append(shown);
            }
        }

        return text.Length > 600 ? text.ToString(0, 600) + $"... ({value.Length} chars)" : text.ToString();
    }
}
