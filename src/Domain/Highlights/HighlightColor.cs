namespace Kobo.Sync.Domain.Highlights;

/// <summary>The colours an e-reader offers for highlighting; stored and sent as lower-case names.</summary>
public static class HighlightColor
{
    public const string Yellow = "yellow";
    public const string Pink = "pink";
    public const string Blue = "blue";
    public const string Green = "green";

    public static IReadOnlyList<string> All { get; } = [Yellow, Pink, Blue, Green];

    public static bool IsKnown(string? color) => color is Yellow or Pink or Blue or Green;
}
