namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>A book's file as a device is told to download it: the Kobo format, the size in bytes, and the URL.</summary>
internal sealed record BookDownload(string Format, long Size, string Url);
