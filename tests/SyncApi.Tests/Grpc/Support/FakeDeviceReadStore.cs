using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// The read port in memory, for testing the gRPC adapter alone (storage has its own tests on a real
/// PostgreSQL). User 1 has highlights in books 10 and 20; user 2 exists with none; user
/// <see cref="SlowUser"/> never answers until its call is cancelled.
/// </summary>
public sealed class FakeDeviceReadStore : IDeviceReadStore
{
    public const long SlowUser = 9;
    public static readonly DateTimeOffset Created = new(2026, 1, 2, 3, 4, 5, TimeSpan.Zero);

    private readonly Dictionary<long, UserView> _users = new()
    {
        [1] = new UserView(1, "Ada Lovelace", Created, "GB"),
        [2] = new UserView(2, "Bob", Created, null),
        [SlowUser] = new UserView(SlowUser, "Slow", Created, null),
    };

    private readonly List<HighlightView> _highlights =
    [
        .. Enumerable.Range(1, 12).Select(i => Highlight(1, 10, i, note: i == 1 ? "first note" : null)),
        .. Enumerable.Range(1, 3).Select(i => Highlight(1, 20, i, note: null)),
    ];

    public TaskCompletionSource<bool> SlowCallCancelled { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public bool Ready { get; set; } = true;

    public async Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken)
    {
        await WaitIfSlowAsync(user, cancellationToken);
        return _users.GetValueOrDefault(user.Value);
    }

    public async Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(
        UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken)
    {
        await WaitIfSlowAsync(user, cancellationToken);
        if (!_users.ContainsKey(user.Value))
        {
            return null;
        }

        return [.. _highlights.Where(h => range.Contains(h.Id)).OrderBy(h => h.Id, StringComparer.Ordinal).Take(limit)];
    }

    private async Task WaitIfSlowAsync(UserNo user, CancellationToken cancellationToken)
    {
        if (user.Value != SlowUser)
        {
            return;
        }

        try
        {
            await Task.Delay(Timeout.Infinite, cancellationToken);
        }
        catch (OperationCanceledException)
        {
            SlowCallCancelled.TrySetResult(true);
            throw;
        }
    }

    private static HighlightView Highlight(long user, long book, int n, string? note) => new(
        $"{HighlightId.BookPrefix(new UserNo(user), new BookNo(book))}h{n:D4}",
        book,
        $"Highlighted text {n} in book {book}",
        n * 100,
        42,
        "yellow",
        note,
        Created.AddMinutes(n),
        Created.AddMinutes(n + 1));
}
