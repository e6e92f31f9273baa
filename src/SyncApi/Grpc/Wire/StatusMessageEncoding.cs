using System.Text;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>
/// The <c>grpc-message</c> value: UTF-8, then every byte outside 0x20-0x7E and '%' itself written
/// as %XX. Decoding never fails: a broken escape is kept as it was, invalid UTF-8 becomes U+FFFD.
/// </summary>
public static class StatusMessageEncoding
{
    public static string Encode(string message)
    {
        var bytes = Encoding.UTF8.GetBytes(message);
        var builder = new StringBuilder(bytes.Length);
        foreach (var b in bytes)
        {
            if (b is >= 0x20 and <= 0x7E and not (byte)'%')
            {
                builder.Append((char)b);
            }
            else
            {
                builder.Append('%').Append(HexUpper[b >> 4]).Append(HexUpper[b & 0xF]);
            }
        }

        return builder.ToString();
    }

    public static string Decode(string encoded)
    {
        if (!encoded.Contains('%', StringComparison.Ordinal))
        {
            return encoded;
        }

        var bytes = new List<byte>(encoded.Length);
        for (var i = 0; i < encoded.Length; i++)
        {
            var c = encoded[i];
            if (c == '%' && i + 2 < encoded.Length && IsHex(encoded[i + 1]) && IsHex(encoded[i + 2]))
            {
                bytes.Add((byte)((HexValue(encoded[i + 1]) << 4) | HexValue(encoded[i + 2])));
                i += 2;
            }
            else if (c <= 0x7F)
            {
                bytes.Add((byte)c);
            }
            else
            {
                // Not valid on the wire, but keep what was sent rather than drop it.
                bytes.AddRange(Encoding.UTF8.GetBytes(c.ToString()));
            }
        }

        return Encoding.UTF8.GetString(bytes.ToArray());
    }

    private const string HexUpper = "0123456789ABCDEF";

    private static bool IsHex(char c) => char.IsAsciiHexDigit(c);

    private static int HexValue(char c) => c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}
