using System.Text;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

/// <summary>Sync tokens of format 4 carry the collection stream's position; format 3 tokens still resolve, with none seen.</summary>
public sealed class CollectionSyncTokensTests
{
    private static readonly byte[] Key = Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long");
    private static readonly SyncTokens Tokens = new(Key);
    private static readonly UserNo User = new(12);

    [Fact]
    public void ATokenCarriesTheCollectionPosition()
    {
        var position = new SyncPosition(41, "highlights/users12-ebooks/5/k1", 40, 5, 3, 39, 8, CollectionSeq: 37, CollectionId: Guid.NewGuid());

        Assert.Equal(position, Tokens.Resolve(User, Tokens.Issue(User, position)));
        Assert.Equal(37, position.LowestSeq);
    }

    [Fact]
    public void ATokenIssuedBeforeCollectionsStillResolvesAndHasSeenNoCollection()
    {
        var token = FormatTwoTokens.Issue(Key, User, "3|41|40|5|3|39|8|ebooks/5/k1");

        var position = Tokens.Resolve(User, token);

        Assert.Equal(new SyncPosition(41, "highlights/users12-ebooks/5/k1", 40, 5, 3, 39, 8, 0, Guid.Empty), position);
    }
}
