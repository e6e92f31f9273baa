using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.ReadingStates;

/// <summary>
/// A user's reading state of one book, in three groups that devices write independently, each with the
/// device time of its last accepted write (the last-writer-wins clock of <see cref="ReadingStateRules"/>):
/// where the reader is (<see cref="Position"/>), what the book is to them (<see cref="Status"/>) and how
/// long they have read it (<see cref="Statistics"/>). A group never written is null. Devices receive it
/// as JSON in this shape (REST, and the <c>readingState</c> change of the pull).
/// </summary>
public sealed record ReadingState(
    [property: JsonIgnore] BookNo Book, ReadingPosition? Position, ReadingStatusMark? Status, ReadingStatistics? Statistics)
{
    /// <summary>The book, as sync's JSON writes book numbers: a string.</summary>
    [JsonPropertyName("bookNo")]
    [JsonPropertyOrder(-1)]
    public string BookNumber => Book.ToString();

    /// <summary>The latest device time of the groups; null when no group was ever written.</summary>
    public DateTimeOffset? ModifiedAt
    {
        get
        {
            DateTimeOffset? latest = null;
            foreach (var at in new[] { Position?.ModifiedAt, Status?.ModifiedAt, Statistics?.ModifiedAt })
            {
                if (at is { } time && (latest is null || time > latest))
                {
                    latest = time;
                }
            }

            return latest;
        }
    }

    /// <summary>The state of a book no device has written yet: no group at all.</summary>
    public static ReadingState Empty(BookNo book) => new(book, null, null, null);
}

/// <summary>
/// Where the reader is: <see cref="Percent"/> of the book (0 to 100) and, optionally, an opaque
/// <see cref="Location"/> a reading application understands (kept exactly as sent).
/// </summary>
public sealed record ReadingPosition(double Percent, string? Location, DateTimeOffset ModifiedAt);

/// <summary>What the book is to the reader: <c>ready</c>, <c>reading</c> or <c>finished</c> (<see cref="ReadingStatuses"/>).</summary>
public sealed record ReadingStatusMark(string Value, DateTimeOffset ModifiedAt);

/// <summary>How long the reader has spent in the book, in whole minutes.</summary>
public sealed record ReadingStatistics(int TimeSpentMinutes, DateTimeOffset ModifiedAt);

/// <summary>The reading statuses a device may set.</summary>
public static class ReadingStatuses
{
    public const string Ready = "ready";
    public const string Reading = "reading";
    public const string Finished = "finished";

    public static bool IsKnown(string? value) => value is Ready or Reading or Finished;
}
