using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

/// <summary>
/// Signs a sync token payload of any format as the service signs its tokens (SignedEnvelope with the
/// "sync-token" context), so tests can hold tokens the current code no longer issues.
/// </summary>
internal static class FormatTwoTokens
{
    public static string Issue(byte[] key, UserNo user, string payload)
    {
        var bytes = Encoding.UTF8.GetBytes(payload);
        byte[] message = [.. Encoding.UTF8.GetBytes("sync-token\n" + user + "\n"), .. bytes];
        var tag = HMACSHA256.HashData(key, message);
        return Base64Url.EncodeToString(bytes) + "." + Base64Url.EncodeToString(tag.AsSpan(0, 16));
    }
}
