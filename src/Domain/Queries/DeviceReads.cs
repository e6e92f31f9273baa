using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Queries;

/// <summary>
/// The three hot device reads, shared by REST and gRPC: authorisation of the caller against the
/// path's user, page-size and cursor rules, then one store call each. A page also ends before its
/// size when the next highlight would take it past the <see cref="PageBudget"/>.
/// </summary>
public sealed class DeviceReads(IDeviceReadStore store, PageCursors cursors, PageBudget budget)
{
    public const int DefaultPageSize = 10;
    public const int MaxPageSize = 100;

    public async Task<UserView> GetUserAsync(DeviceCaller caller, UserNo user, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        return await store.FindUserAsync(user, cancellationToken) ?? throw ResourceNotFoundException.UnknownUser(user);
    }

    /// <summary>A page of the user's highlights across all books.</summary>
    public Task<HighlightPage> ListUserHighlightsAsync(
        DeviceCaller caller, UserNo user, int? pageSize, string? cursor, CancellationToken cancellationToken) =>
        ListAsync(caller, user, HighlightId.UserPrefix(user), pageSize, cursor, cancellationToken);

    /// <summary>A page of the user's highlights in one book.</summary>
    public Task<HighlightPage> ListBookHighlightsAsync(
        DeviceCaller caller, UserNo user, BookNo book, int? pageSize, string? cursor, CancellationToken cancellationToken) =>
        ListAsync(caller, user, HighlightId.BookPrefix(user, book), pageSize, cursor, cancellationToken);

    private async Task<HighlightPage> ListAsync(
        DeviceCaller caller, UserNo user, string scope, int? pageSize, string? cursor, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var size = PageSizes.Resolve(pageSize, DefaultPageSize, MaxPageSize);

        var range = HighlightRange.OfPrefix(scope);
        if (!string.IsNullOrEmpty(cursor))
        {
            range = range.ResumeAfter(cursors.Resolve(scope, cursor));
        }

        // One row more than the page tells whether another page follows, without a count.
        var rows = await store.ListHighlightsAsync(user, range, size + 1, cancellationToken)
            ?? throw ResourceNotFoundException.UnknownUser(user);
        var fill = budget.Start();
        while (fill.Count < rows.Count && fill.Count < size && fill.TryTake(rows[fill.Count].PageBytes()))
        {
            // Each highlight that fits the budget joins the page, in order.
        }

        var taken = fill.Count;

        if (taken == rows.Count)
        {
            return new HighlightPage(rows, null);
        }

        var items = rows.Take(taken).ToArray();
        return new HighlightPage(items, cursors.Issue(scope, items[^1].Id));
    }

}
