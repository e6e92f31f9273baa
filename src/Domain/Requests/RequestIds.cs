using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Requests;

/// <summary>Turns the ids a caller sends (path segments or message fields) into typed ids, or a precise rejection.</summary>
public static class RequestIds
{
    public static UserNo User(ReadOnlySpan<char> text) =>
        UserNo.TryParse(text, out var user) ? user : throw Invalid("userNo", text.ToString());

    public static UserNo User(long value) =>
        value > 0 ? new UserNo(value) : throw Invalid("userNo", value.ToString(System.Globalization.CultureInfo.InvariantCulture));

    public static BookNo Book(ReadOnlySpan<char> text) =>
        BookNo.TryParse(text, out var book) ? book : throw Invalid("bookNo", text.ToString());

    public static BookNo Book(long value) =>
        value > 0 ? new BookNo(value) : throw Invalid("bookNo", value.ToString(System.Globalization.CultureInfo.InvariantCulture));

    private static InvalidRequestException Invalid(string field, string value) =>
        new(
            field,
            $"'{Truncate(value)}' is not a valid {field}: expected a whole number from 1 to 18 digits, without a sign or leading zero.");

    private static string Truncate(string value) => value.Length <= 40 ? value : value[..40] + "...";
}
