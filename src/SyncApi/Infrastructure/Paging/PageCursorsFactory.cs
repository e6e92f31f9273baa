using System.Security.Cryptography;
using System.Text;
using Kobo.Sync.Domain.Reading;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>Builds the cursor signer from <see cref="PagingOptions"/>, failing the start on a short key.</summary>
internal static class PageCursorsFactory
{
    public static PageCursors Create(IServiceProvider services)
    {
        var options = services.GetRequiredService<IOptions<PagingOptions>>().Value;
        if (string.IsNullOrEmpty(options.CursorKey))
        {
            services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(PageCursorsFactory))
                .LogWarning("Paging:CursorKey is not set: page cursors are signed with a random key and stop working when this process restarts");
            return new PageCursors(RandomNumberGenerator.GetBytes(32));
        }

        var key = Encoding.UTF8.GetBytes(options.CursorKey);
        return key.Length >= 32
            ? new PageCursors(key)
            : throw new OptionsValidationException(
                PagingOptions.SectionName, typeof(PagingOptions), ["Paging:CursorKey must be at least 32 bytes (UTF-8) long."]);
    }
}
