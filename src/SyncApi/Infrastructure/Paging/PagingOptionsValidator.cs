using System.Text;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>
/// Stops the start when <c>Paging:CursorKey</c> is set but too short to sign cursors safely (a byte
/// count, which no DataAnnotation measures; <c>Paging:MaxPageBytes</c>'s range is one on <see cref="PagingOptions"/>).
/// </summary>
internal sealed class PagingOptionsValidator : IValidateOptions<PagingOptions>
{
    public const int MinCursorKeyBytes = 32;

    public ValidateOptionsResult Validate(string? name, PagingOptions options) =>
        !string.IsNullOrEmpty(options.CursorKey) && Encoding.UTF8.GetByteCount(options.CursorKey) < MinCursorKeyBytes
            ? ValidateOptionsResult.Fail($"Paging:CursorKey must be at least {MinCursorKeyBytes} bytes (UTF-8) long.")
            : ValidateOptionsResult.Success;
}
