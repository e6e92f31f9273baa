using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoboProtocol;

namespace Kobo.Sync.Domain.Tests.KoboProtocol;

public sealed class KoboAnnotationMappingTests
{
    private const string Id = "ede9e626-23d2-45da-864e-5d1b253cdc79";
    private const string SamePath = """{"span":{"startPath":"span#kobo\\.30\\.1","endPath":"span#kobo\\.30\\.1","startChar":3,"endChar":64}}""";
    private static readonly BookNo Book = new(56717);

    private static KoboAnnotation Annotation(
        string? id = Id, string? type = "highlight", string? text = "If something is true", string? note = null, string? color = "#E8AFCF",
        string? at = "2021-11-01T13:10:10Z", string? location = SamePath, bool isObject = true, string? malformed = null) =>
        new(id, type, text, note, color, at, location, isObject, malformed);

    [Fact]
    public void AHighlightBecomesAnUpsertKeyedByItsIdWithItsLocationAsSent()
    {
        var change = KoboAnnotationMapping.ToChange(Book, Annotation(note: "mine", type: "Note"), out var withheld);

        Assert.Null(withheld);
        Assert.NotNull(change);
        Assert.Equal(
            (ChangeValidation.Upsert, "56717", Id, "If something is true", "pink", "mine", SamePath, (string?)null),
            (change.Op, change.BookNo, change.Key, change.Text, change.Color, change.Note, change.Location, change.BaseVersion));
    }

    [Fact]
    public void TheRangeIsTheSpansCharactersWithinOneElementAndTheTextsLengthAcrossElements()
    {
        var within = KoboAnnotationMapping.ToChange(Book, Annotation(), out _)!;
        var across = KoboAnnotationMapping.ToChange(
            Book, Annotation(location: """{"span":{"startPath":"a","endPath":"b","startChar":7,"endChar":2}}"""), out _)!;
        var noSpan = KoboAnnotationMapping.ToChange(Book, Annotation(location: "{}"), out _)!;

        Assert.Equal((3, 61), (within.Start, within.Length));
        Assert.Equal((7, "If something is true".Length), (across.Start, across.Length));
        Assert.Equal((0, "If something is true".Length), (noSpan.Start, noSpan.Length));
    }

    [Theory]
    [InlineData("not-a-uuid", "highlight", "text", true, "id:")]
    [InlineData(Id, "markup", "text", true, "type:")]
    [InlineData(Id, "dogear", "text", true, "type:")]
    [InlineData(Id, "highlight", "  ", true, "highlightedText:")]
    [InlineData(Id, "highlight", "text", false, "location:")]
    public void WhatTheServiceCannotHoldIsWithheldWithTheFieldNamed(string id, string type, string text, bool isObject, string field)
    {
        var change = KoboAnnotationMapping.ToChange(Book, Annotation(id: id, type: type, text: text, isObject: isObject), out var withheld);

        Assert.Null(change);
        Assert.StartsWith(field, withheld, StringComparison.Ordinal);
    }

    [Fact]
    public void AMissingTimeOrAWronglyTypedMemberIsWithheld()
    {
        Assert.Null(KoboAnnotationMapping.ToChange(Book, Annotation(at: null), out var noTime));
        Assert.Null(KoboAnnotationMapping.ToChange(Book, Annotation(malformed: "noteText"), out var malformed));
        Assert.StartsWith("clientLastModifiedUtc:", noTime, StringComparison.Ordinal);
        Assert.StartsWith("noteText:", malformed, StringComparison.Ordinal);
    }

    [Fact]
    public void ADeletionIsTimedWhenReceivedAndAnIdThatIsNoUuidDeletesNothing()
    {
        var at = new DateTimeOffset(2026, 11, 24, 1, 0, 0, TimeSpan.Zero);
        var deletion = KoboAnnotationMapping.ToDeletion(Book, Id, at)!;

        Assert.Equal((ChangeValidation.Delete, Id), (deletion.Op, deletion.Key));
        Assert.True(deletion.ModifiedAt!.Value.TryResolve(out var resolved, out _));
        Assert.Equal(at, resolved);
        Assert.Null(KoboAnnotationMapping.ToDeletion(Book, "x", at));
    }

    [Theory]
    [InlineData("#F6F3B3", "yellow")]
    [InlineData("#e8afcf", "pink")]
    [InlineData("#B2E1E8", "blue")]
    [InlineData("#C6E09E", "green")]
    [InlineData("Green", "green")]
    [InlineData("#A0A0A0", "yellow")]
    [InlineData("#123456", "yellow")]
    [InlineData(null, "yellow")]
    public void KoboColoursMapToTheServicesFour(string? wire, string color)
    {
        Assert.Equal(color, KoboColors.ToService(wire));
    }

    [Fact]
    public void EachServiceColourGoesBackAsTheDevicesOwnSwatch()
    {
        Assert.Equal(
            [KoboColors.YellowHex, KoboColors.PinkHex, KoboColors.BlueHex, KoboColors.GreenHex],
            new[] { "yellow", "pink", "blue", "green" }.Select(KoboColors.ToWire));
    }

    [Fact]
    public void AnETagIsOursOnlyForItsUserAndBookAndChangesWithTheSet()
    {
        var user = new UserNo(12);
        var state = new KoboBookState(new BookNo(3), true, true, false, 41, 2);
        var etag = KoboAnnotationETags.For(user, state);

        Assert.Equal("W/\"kobosync-12-3-41-2\"", etag);
        Assert.True(KoboAnnotationETags.IsOurs(user, new BookNo(3), etag));
        Assert.False(KoboAnnotationETags.IsOurs(new UserNo(1), new BookNo(3), etag));
        Assert.False(KoboAnnotationETags.IsOurs(user, new BookNo(31), etag));
        Assert.False(KoboAnnotationETags.IsOurs(user, new BookNo(3), "W/\"A:1408092558-7Uhimw6qgE+J7JpyxBiziA\""));
        Assert.NotEqual(etag, KoboAnnotationETags.For(user, state with { LastSeq = 42 }));
        Assert.NotEqual(etag, KoboAnnotationETags.For(user, state with { Located = 3 }));
    }
}
