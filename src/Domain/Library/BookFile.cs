namespace Kobo.Sync.Domain.Library;

/// <summary>
/// The file of a book a reading device downloads, as the catalogue states it: its format (the Kobo
/// store's name, <see cref="Kepub"/> or <see cref="Epub3"/>) and its size in bytes. Kept in the
/// catalogue so that listing a library never asks the content origin.
/// </summary>
public sealed record BookFile(string Format, long Size)
{
    /// <summary>Kobo's own EPUB flavour, which its e-readers render natively; preferred when a book has one.</summary>
    public const string Kepub = "KEPUB";

    /// <summary>A plain EPUB (2 or 3); what a book without a KEPUB is downloaded as.</summary>
    public const string Epub3 = "EPUB3";
}
