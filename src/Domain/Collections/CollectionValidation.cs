using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Domain.Text;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// Checks one operation of a collection push. As in a highlight push, a broken operation is rejected
/// alone, with a reason naming its field; the other operations of the push still apply.
/// </summary>
public static class CollectionValidation
{
    public const string Upsert = "upsert";
    public const string Delete = "delete";
    public const string AddBooks = "addBooks";
    public const string RemoveBooks = "removeBooks";

    /// <summary>The longest name, in UTF-16 code units.</summary>
    public const int MaxNameLength = 256;

    /// <summary>
    /// The valid operation, or null with <paramref name="reason"/> set. <paramref name="id"/> is the collection id whenever it is valid.
    /// </summary>
    public static ValidCollectionOp? Check(
        PushedCollectionOp op, int maxBooks, DateTimeOffset now, TimeSpan maxClockSkew, out string? id, out string? reason)
    {
        id = null;
        reason = null;
        if (!TryParseId(op.CollectionId, out var collectionId))
        {
            reason = "collectionId: expected a UUID (such as 0f8fad5b-d9cb-469f-a165-70867728950e), not the nil UUID.";
            return null;
        }

        id = Format(collectionId);
        CollectionOpKind kind;
        switch (op.Op)
        {
            case Upsert: kind = CollectionOpKind.Upsert; break;
            case Delete: kind = CollectionOpKind.Delete; break;
            case AddBooks: kind = CollectionOpKind.AddBooks; break;
            case RemoveBooks: kind = CollectionOpKind.RemoveBooks; break;
            default:
                reason = $"op: expected '{Upsert}', '{Delete}', '{AddBooks}' or '{RemoveBooks}'.";
                return null;
        }

        string? name = null;
        if (kind == CollectionOpKind.Upsert)
        {
            reason = NameProblem(op.Name);
            if (reason is not null)
            {
                return null;
            }

            name = op.Name;
        }

        IReadOnlyList<BookNo> books = [];
        if (kind is CollectionOpKind.AddBooks or CollectionOpKind.RemoveBooks)
        {
            if (op.BookNos is not { Count: > 0 } sent)
            {
                reason = $"bookNos: required, 1 to {maxBooks} book numbers.";
                return null;
            }

            if (sent.Count > maxBooks)
            {
                reason = $"bookNos: at most {maxBooks} book numbers (a collection holds no more); it has {sent.Count}.";
                return null;
            }

            var distinct = new HashSet<BookNo>();
            for (var i = 0; i < sent.Count; i++)
            {
                if (!BookNo.TryParse(sent[i], out var book))
                {
                    reason = $"bookNos[{i}]: expected a whole number from 1 to 18 digits, without a sign or leading zero.";
                    return null;
                }

                distinct.Add(book);
            }

            books = [.. distinct.OrderBy(b => b.Value)];
        }

        if (op.ModifiedAt is not { } sentAt)
        {
            reason = "modifiedAt: required, the device time of the edit (ISO 8601 with an offset).";
            return null;
        }

        if (!sentAt.TryResolve(out var at, out reason))
        {
            return null;
        }

        // A time too far ahead of the server's clock is replaced by server time, so a fast clock cannot win every later edit.
        return new ValidCollectionOp(kind, collectionId, name, books, at > now + maxClockSkew ? DeviceTime.ToMicroseconds(now) : at);
    }

    /// <summary>
    /// Why a name cannot be a collection's, or null when it can: 1 to 256 UTF-16 code units the store can keep, not only white space (as a
    /// highlight's text).
    /// </summary>
    public static string? NameProblem(string? name)
    {
        if (string.IsNullOrWhiteSpace(name))
        {
            return $"name: required, 1 to {MaxNameLength} characters, not only white space.";
        }

        if (name.Length > MaxNameLength)
        {
            return $"name: at most {MaxNameLength} UTF-16 code units; it has {name.Length}.";
        }

        return StorableText.Problem(name) is { } problem ? $"name: {problem}." : null;
    }

    /// <summary>A collection id: a UUID in any of .NET's standard forms, but not the nil UUID.</summary>
    public static bool TryParseId(string? text, out Guid id)
    {
        id = default;
        return text is { Length: <= 68 } && Guid.TryParse(text, out id) && id != Guid.Empty;
    }

    /// <summary>The canonical form devices receive: lower-case, with hyphens.</summary>
    public static string Format(Guid id) => id.ToString("D");
}
