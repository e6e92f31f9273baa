namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>
/// The one key the page cursors, the device list's cursors and the sync tokens are signed with
/// (<c>Paging:CursorKey</c>, or a random key for the process when it is not set), derived once per
/// service (<see cref="SignerFactory.CreateKey"/>): one secret to manage; their tags are
/// domain-separated, so none of them passes for another.
/// </summary>
internal sealed record CursorKey(byte[] Bytes);
