namespace Kobo.Sync.Domain.Requests;

/// <summary>The one page-size rule of every paged read: absent means the read's default, else 1 to its maximum.</summary>
public static class PageSizes
{
    /// <summary>The page size to use, or an <see cref="InvalidRequestException"/> for field <c>pageSize</c> naming the range.</summary>
    public static int Resolve(int? pageSize, int defaultSize, int maxSize)
    {
        var size = pageSize ?? defaultSize;
        return size is >= 1 && size <= maxSize
            ? size
            : throw new InvalidRequestException("pageSize", $"pageSize must be from 1 to {maxSize}; it was {size}.");
    }
}
