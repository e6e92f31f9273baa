namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>The <c>grpc-message</c> of the answers written before a call reaches Grpc.AspNetCore (a refused token or admission).</summary>
[Trait("Category", "Fast")]
public sealed class GrpcStatusMessageTests
{
    [Theory]
    [InlineData("A bearer token is required.", "A bearer token is required.")]
    [InlineData("100% sure", "100%25 sure")]
    [InlineData("Zürich\n", "Z%C3%BCrich%0A")]
    public void MessagesArePercentEncodedOutsidePrintableAscii(string message, string onTheWire) =>
        Assert.Equal(onTheWire, Kobo.Sync.SyncApi.Infrastructure.Wire.GrpcResponses.EncodeMessage(message));
}
