using System.Globalization;
using System.Net;
using System.Text;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>A line chart as inline SVG: no script, no CDN, so the report opens anywhere, offline.</summary>
public static class SvgChart
{
    private const int Width = 920;
    private const int PlotHeight = 300;
    private const int LegendLine = 16;
    private const int Left = 64;
    private const int Right = 250;
    private const int Top = 34;
    private const int Bottom = 40;
    private static readonly string[] Palette =
    [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    ];

    /// <param name="Colour">Index into the palette, to draw related series (a shard's p50 and p99) alike; null for the series' own.</param>
    public sealed record Series(string Name, IReadOnlyList<(double X, double Y)> Points, bool Dashed = false, int? Colour = null);

    /// <param name="xTicks">Labels of the x axis at given x values; null for numeric ticks.</param>
    public static string Lines(
        string title, string xLabel, string yLabel, IReadOnlyList<Series> series, IReadOnlyList<(double X, string Label)>? xTicks = null)
    {
        var c = CultureInfo.InvariantCulture;

        // The chart grows to fit its legend, one line per series, beside the plot.
        var height = Math.Max(PlotHeight, Top + 8 + (series.Count * LegendLine) + Bottom);
        var points = series.SelectMany(s => s.Points).ToList();
        var xMin = points.Count == 0 ? 0 : points.Min(p => p.X);
        var xMax = points.Count == 0 ? 1 : Math.Max(points.Max(p => p.X), xMin + 1e-9);
        var yMax = points.Count == 0 ? 1 : NiceCeiling(points.Max(p => p.Y));
        double X(double x) => Left + ((x - xMin) / (xMax - xMin) * (Width - Left - Right));
        double Y(double y) => height - Bottom - (y / yMax * (height - Top - Bottom));

        var svg = new StringBuilder();
        svg.Append(
            c,
            $"<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {Width} {height}\" width=\"{Width}\" " +
            $"height=\"{height}\" role=\"img\" aria-label=\"{Esc(title)}\">");
        svg.Append(c, $"<text x=\"{Left}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{Esc(title)}</text>");
        for (var i = 0; i <= 4; i++)
        {
            var v = yMax * i / 4;
            svg.Append(c, $"<line x1=\"{Left}\" x2=\"{Width - Right}\" y1=\"{Y(v):F1}\" y2=\"{Y(v):F1}\" stroke=\"#ddd\"/>");
            svg.Append(c, $"<text x=\"{Left - 6}\" y=\"{Y(v) + 4:F1}\" font-size=\"11\" text-anchor=\"end\">{v:0.##}</text>");
        }

        var ticks = xTicks
            ?? Enumerable.Range(0, 6).Select(i => xMin + ((xMax - xMin) * i / 5)).Select(x => (x, x.ToString("0.#", c))).ToList();
        foreach (var (x, label) in ticks)
        {
            svg.Append(
                c, $"<text x=\"{X(x):F1}\" y=\"{height - Bottom + 16}\" font-size=\"11\" text-anchor=\"middle\">{Esc(label)}</text>");
        }

        svg.Append(
            c, $"<text x=\"{(Left + Width - Right) / 2}\" y=\"{height - 6}\" font-size=\"12\" text-anchor=\"middle\">{Esc(xLabel)}</text>");
        svg.Append(
            c,
            $"<text x=\"14\" y=\"{(Top + height - Bottom) / 2}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 " +
            $"{(Top + height - Bottom) / 2})\">{Esc(yLabel)}</text>");
        svg.Append(
            c,
            $"<rect x=\"{Left}\" y=\"{Top}\" width=\"{Width - Left - Right}\" height=\"{height - Top - Bottom}\" fill=\"none\" " +
            $"stroke=\"#999\"/>");

        for (var i = 0; i < series.Count; i++)
        {
            var s = series[i];
            var color = Palette[(s.Colour ?? i) % Palette.Length];
            if (s.Points.Count > 0)
            {
                var path = string.Join(' ', s.Points.Select(p => string.Create(c, $"{X(p.X):F1},{Y(p.Y):F1}")));
                svg.Append(
                    c,
                    $"<polyline class=\"series\" fill=\"none\" stroke=\"{color}\" " +
                    $"stroke-width=\"2\"{(s.Dashed ? " stroke-dasharray=\"5 3\"" : string.Empty)} points=\"{path}\"/>");
            }

            var ly = Top + 8 + (i * LegendLine);
            svg.Append(
                c,
                $"<line x1=\"{Width - Right + 10}\" x2=\"{Width - Right + 28}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{color}\" " +
                $"stroke-width=\"2\"{(s.Dashed ? " stroke-dasharray=\"5 3\"" : string.Empty)}/>");
            svg.Append(c, $"<text x=\"{Width - Right + 32}\" y=\"{ly + 4}\" font-size=\"11\">{Esc(s.Name)}</text>");
        }

        svg.Append("</svg>");
        return svg.ToString();
    }

    private static double NiceCeiling(double value)
    {
        if (value <= 0)
        {
            return 1;
        }

        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(value)));
        foreach (var step in new[] { 1, 2, 2.5, 5, 10 })
        {
            if (step * magnitude >= value)
            {
                return step * magnitude;
            }
        }

        return 10 * magnitude;
    }

    private static string Esc(string text) => WebUtility.HtmlEncode(text);
}
