using Kobo.Sync.Domain.KoreaderProtocol;

namespace Kobo.Sync.Domain.Tests.KoreaderProtocol;

/// <summary>The identifier lists of KOSyncIdentifiers.lua, checked as koreader-sync-server lib/identifiers.lua checks them.</summary>
public sealed class KoreaderIdentifiersTests
{
    // KOSyncIdentifiers.query: "type:value,type:value", strongest first.
    [Fact]
    public void AQueryListIsReadInTheDevicesOrder()
    {
        var list = KoreaderIdentifiers.ParseQuery("content:C1,structure:S1,filename:F1", "F1", out var valid);

        Assert.True(valid);
        Assert.Equal(["content", "structure", "filename"], list!.Select(i => i.Type));
        Assert.Equal("content:C1,structure:S1,filename:F1", KoreaderIdentifiers.Encode(list!));
    }

    [Theory]
    [InlineData("content")]
    [InlineData("content:C1:x")]
    [InlineData("content:C1,content:C2")]
    [InlineData("Content:C1")]
    [InlineData("content:")]
    [InlineData(":C1")]
    [InlineData("content:C1,structure:S1")]
    [InlineData("a:1,b:2,c:3,d:4,e:5,f:6,g:7,h:8,i:DOC")]
    public void AMalformedQueryOrOneWithoutTheDocumentIsRefused(string raw)
    {
        Assert.Null(KoreaderIdentifiers.ParseQuery(raw, "DOC", out var valid));
        Assert.False(valid);
    }

    [Fact]
    public void NoQueryIsNoListAndNoRefusal()
    {
        Assert.Null(KoreaderIdentifiers.ParseQuery(null, "DOC", out var valid));
        Assert.True(valid);
    }

    // Identifiers.common: the reader's own label of the first of its identifiers the writer also held.
    [Fact]
    public void WhatTheReaderSharesWithTheWriterIsNamedInTheReadersWords()
    {
        KoreaderIdentifier[] writer = [new("content", "C1"), new("structure", "S1"), new("filename", "F1")];

        Assert.Equal("structure", KoreaderIdentifiers.Common([new("content", "C2"), new("structure", "S1"), new("filename", "F1")], writer));
        Assert.Equal("name", KoreaderIdentifiers.Common([new("content", "C2"), new("name", "F1")], writer));
        Assert.Null(KoreaderIdentifiers.Common([new("content", "C2")], writer));
    }
}
