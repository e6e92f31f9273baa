using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.Queries;

/// <summary>The application rules of the device reads, with a list-backed store (storage itself is tested on PostgreSQL).</summary>
public sealed class DeviceReadsTests
{
    private static readonly UserNo User = new(12);
    private static readonly DeviceCaller Caller = new(User, "dev-1");
    private readonly ListStore _store = new();
    private readonly DeviceReads _reads;

    public DeviceReadsTests() =>
        _reads = new DeviceReads(_store, new PageCursors(Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long")), PageBudget.Default);

    [Fact]
    public async Task WalkingNextCursorReturnsEveryHighlightOnceInIdOrder()
    {
        _store.AddHighlights(User, 25);
        var seen = new List<string>();
        string? cursor = null;
        do
        {
            var page = await _reads.ListUserHighlightsAsync(Caller, User, 7, cursor, CancellationToken.None);
            seen.AddRange(page.Items.Select(h => h.Id));
            cursor = page.NextCursor;
        }
        while (cursor is not null);

        Assert.Equal(_store.Highlights.Select(h => h.Id).Order(StringComparer.Ordinal), seen);
    }

    [Fact]
    public async Task AFullLastPageHasNoNextCursor()
    {
        _store.AddHighlights(User, 10);
        var page = await _reads.ListUserHighlightsAsync(Caller, User, null, null, CancellationToken.None);
        Assert.Equal(10, page.Items.Count);
        Assert.Null(page.NextCursor);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(101)]
    [InlineData(-1)]
    public async Task APageSizeOutOfRangeIsRejected(int size)
    {
        var error = await Assert.ThrowsAsync<InvalidRequestException>(() =>
            _reads.ListUserHighlightsAsync(Caller, User, size, null, CancellationToken.None));
        Assert.Equal("pageSize", error.Field);
    }

    [Fact]
    public async Task ADeviceCannotReadAnotherUser() =>
        await Assert.ThrowsAsync<AccessDeniedException>(() =>
            _reads.GetUserAsync(Caller, new UserNo(123), CancellationToken.None));

    [Fact]
    public async Task AnUnknownUserIsNotFound() =>
        await Assert.ThrowsAsync<ResourceNotFoundException>(() =>
            _reads.ListUserHighlightsAsync(new DeviceCaller(new UserNo(99), "d"), new UserNo(99), null, null, CancellationToken.None));

    private sealed class ListStore : IDeviceReadStore
    {
        public List<HighlightView> Highlights { get; } = [];

        public void AddHighlights(UserNo user, int count)
        {
            for (var i = 0; i < count; i++)
            {
                var id = new HighlightId(user, new BookNo(1 + (i % 3)), HighlightKey.Parse($"k{i}")).ToString();
                Highlights.Add(new HighlightView(id, 1 + (i % 3), "text", 0, 1, "yellow", null, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch));
            }
        }

        public Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken) =>
            Task.FromResult(user == User ? new UserView(user.Value, "Reader", DateTimeOffset.UnixEpoch, null) : null);

        public Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(
            UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken) =>
            Task.FromResult<IReadOnlyList<HighlightView>?>(user != User
                ? null
                : Highlights.Where(h => range.Contains(h.Id)).OrderBy(h => h.Id, StringComparer.Ordinal).Take(limit).ToList());
    }
}
