using System.Text;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>
/// Stops the start when <c>Paging:CursorKey</c> is set but too short to sign cursors safely, or when
/// <c>Paging:MaxPageBytes</c> is out of range.
/// </summary>
internal sealed class PagingOptionsValidator : IValidateOptions<PagingOptions>
{
    public const int MinCursorKeyBytes = 32;

    /// <summary>Below it, ordinary pages of short highlights would end long before their item count.</summary>
    public const int MinPageBytes = 16 * 1024;

    /// <summary>Above it, the budget no longer bounds what a device must take in one answer.</summary>
    public const int MaxPageBytes = 64 * 1024 * 1024;

    public ValidateOptionsResult Validate(string? name, PagingOptions options)
    {
        if (!string.IsNullOrEmpty(options.CursorKey) && Encoding.UTF8.GetByteCount(options.CursorKey) < MinCursorKeyBytes)
        {
            return ValidateOptionsResult.Fail($"Paging:CursorKey must be at least {MinCursorKeyBytes} bytes (UTF-8) long.");
        }

        return options.MaxPageBytes is < MinPageBytes or > MaxPageBytes
            ? ValidateOptionsResult.Fail(
                $"Paging:MaxPageBytes must be from {MinPageBytes} to {MaxPageBytes}; it is {options.MaxPageBytes}.")
            : ValidateOptionsResult.Success;
    }
}
