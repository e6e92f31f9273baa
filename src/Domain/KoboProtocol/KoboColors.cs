using Kobo.Sync.Domain.Highlights;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// How Kobo devices spell highlight colours: the hex value of each swatch of the colour e-readers, read
/// back from the device's own database (calibre-web-nextgen #1737, Kobo Clara BW 4.45). A greyscale
/// device sends <c>#A0A0A0</c> for every highlight. The four colour swatches map to the service's four
/// colours; grey and anything unknown are stored as yellow (swatch 0, the device's default), so an
/// annotation is never refused for its colour. Names are accepted too, in any case.
/// </summary>
public static class KoboColors
{
    public const string YellowHex = "#F6F3B3";
    public const string PinkHex = "#E8AFCF";
    public const string BlueHex = "#B2E1E8";
    public const string GreenHex = "#C6E09E";
    public const string GreyHex = "#A0A0A0";

    /// <summary>The service's colour for a device's <c>highlightColor</c>.</summary>
    public static string ToService(string? wire) => wire?.Trim().ToUpperInvariant() switch
    {
        PinkHex or "PINK" => HighlightColor.Pink,
        BlueHex or "BLUE" => HighlightColor.Blue,
        GreenHex or "GREEN" => HighlightColor.Green,
        _ => HighlightColor.Yellow,
    };

    /// <summary>The device's spelling of a service colour.</summary>
    public static string ToWire(string? color) => color switch
    {
        HighlightColor.Pink => PinkHex,
        HighlightColor.Blue => BlueHex,
        HighlightColor.Green => GreenHex,
        _ => YellowHex,
    };
}
