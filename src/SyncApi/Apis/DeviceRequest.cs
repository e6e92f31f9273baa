using System.Globalization;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Auth;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>What every device endpoint reads off the request: the caller, and the paging query.</summary>
internal static class DeviceRequest
{
    public static DeviceCaller Caller(this HttpContext context) => DeviceAuthentication.ToCaller(context.User);

    /// <summary>The <c>pageSize</c> query value; null when absent (the default applies).</summary>
    public static int? PageSize(string? text, int max = DeviceReads.MaxPageSize)
    {
        if (string.IsNullOrEmpty(text))
        {
            return null;
        }

        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var size)
            ? size
            : throw new InvalidRequestException(
                "pageSize", $"pageSize must be a whole number from 1 to {max}.");
    }
}
