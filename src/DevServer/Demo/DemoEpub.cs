using System.IO.Compression;
using System.Security;
using System.Text;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DevServer.Demo;

/// <summary>
/// A small, valid EPUB 3 for a demo book, made from its catalogue entry: the <c>mimetype</c> entry
/// first and stored (the EPUB container rule readers check at byte 30), <c>META-INF/container.xml</c>,
/// a package document, a navigation document and one chapter with the title and author. The same
/// bytes on every run and every machine: fixed entry times and no compression (a deflater's output
/// may change between runtimes), so the size the demo seeder states for it is the size served.
/// </summary>
public static class DemoEpub
{
    public const string MediaType = "application/epub+zip";

    /// <summary>The entries' time: fixed, so the archive does not depend on when it is made.</summary>
    private static readonly DateTimeOffset EntryTime = new(2024, 1, 1, 0, 0, 0, TimeSpan.Zero);

    public static byte[] Build(long bookNo, string title, string author, string language)
    {
        var id = "urn:uuid:" + BookUuid.Format(new BookNo(bookNo));
        title = SecurityElement.Escape(title);
        author = SecurityElement.Escape(author);
        language = SecurityElement.Escape(language);
        using var stream = new MemoryStream();
        using (var zip = new ZipArchive(stream, ZipArchiveMode.Create, leaveOpen: true))
        {
            Add(zip, "mimetype", MediaType);
            Add(zip, "META-INF/container.xml", """
                <?xml version="1.0" encoding="UTF-8"?>
                <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
                  <rootfiles>
                    <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
                  </rootfiles>
                </container>
                """);
            Add(zip, "OEBPS/content.opf", $"""
                <?xml version="1.0" encoding="UTF-8"?>
                <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="{language}">
                  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                    <dc:identifier id="book-id">{id}</dc:identifier>
                    <dc:title>{title}</dc:title>
                    <dc:creator>{author}</dc:creator>
                    <dc:language>{language}</dc:language>
                    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
                  </metadata>
                  <manifest>
                    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
                    <item id="chapter" href="chapter.xhtml" media-type="application/xhtml+xml"/>
                  </manifest>
                  <spine>
                    <itemref idref="chapter"/>
                  </spine>
                </package>
                """);
            Add(zip, "OEBPS/nav.xhtml", $"""
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE html>
                <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="{language}" lang="{language}">
                  <head><title>{title}</title></head>
                  <body>
                    <nav epub:type="toc" id="toc"><ol><li><a href="chapter.xhtml">{title}</a></li></ol></nav>
                  </body>
                </html>
                """);
            Add(zip, "OEBPS/chapter.xhtml", $"""
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE html>
                <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="{language}" lang="{language}">
                  <head><title>{title}</title></head>
                  <body>
                    <h1>{title}</h1>
                    <p>by {author}</p>
                    <p>A demo book of Kobo.Sync, number {bookNo}: its library entry, reading state and highlights sync with every device of its reader.</p>
                  </body>
                </html>
                """);
        }

        return stream.ToArray();
    }

    private static void Add(ZipArchive zip, string name, string text)
    {
        var entry = zip.CreateEntry(name, CompressionLevel.NoCompression);
        entry.LastWriteTime = EntryTime;
        using var body = entry.Open();
        body.Write(Encoding.UTF8.GetBytes(text));
    }
}
