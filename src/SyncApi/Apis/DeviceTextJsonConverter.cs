using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// Reads a device's free text (a highlight's text or note). An escaped UTF-16 surrogate without its
/// partner (<c>"\ud83d"</c>: half an emoji, as JavaScript writes it) is kept instead of failing the
/// whole body, so validation rejects that one change. Raw bytes that are not UTF-8 still make the body
/// unreadable: that is not JSON at all.
/// </summary>
internal sealed class DeviceTextJsonConverter : JsonConverter<string>
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    public override string? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType != JsonTokenType.String || !reader.ValueIsEscaped)
        {
            // The reader's own answer: a string, or the same error as for any other string field.
            return reader.GetString();
        }

        try
        {
            return reader.GetString();
        }
        catch (InvalidOperationException)
        {
            return Unescape(reader.HasValueSequence ? reader.ValueSequence.ToArray() : reader.ValueSpan);
        }
    }

    public override void Write(Utf8JsonWriter writer, string value, JsonSerializerOptions options) => writer.WriteStringValue(value);

    // The reader has checked the escapes: a backslash is followed by one of "\/bfnrt, or by u and four hex digits.
    private static string Unescape(ReadOnlySpan<byte> raw)
    {
        var text = new StringBuilder(raw.Length);
        while (true)
        {
            var backslash = raw.IndexOf((byte)'\\');
            try
            {
                text.Append(StrictUtf8.GetString(backslash < 0 ? raw : raw[..backslash]));
            }
            catch (DecoderFallbackException invalid)
            {
                throw new JsonException("The text is not valid UTF-8.", invalid);
            }

            if (backslash < 0)
            {
                return text.ToString();
            }

            var escape = raw[backslash + 1];
            if (escape == (byte)'u')
            {
                text.Append((char)ushort.Parse(raw.Slice(backslash + 2, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture));
                raw = raw[(backslash + 6)..];
                continue;
            }

            text.Append(escape switch
            {
                (byte)'b' => '\b',
                (byte)'f' => '\f',
                (byte)'n' => '\n',
                (byte)'r' => '\r',
                (byte)'t' => '\t',
                _ => (char)escape,
            });
            raw = raw[(backslash + 2)..];
        }
    }
}
