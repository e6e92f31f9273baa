namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>
/// The runs against the real service share one seeded database and service, and run one after the
/// other rather than beside each other and the real-time engine tests: on two cores, parallel runs
/// would measure each other.
/// </summary>
[CollectionDefinition(Name)]
public sealed class EndToEndCollection : ICollectionFixture<SeededServiceFixture>
{
    public const string Name = "simulator runs";
}
