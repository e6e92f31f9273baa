namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>How a read reaches the data: the service over REST or gRPC, or PostgreSQL directly (the baseline).</summary>
public enum Transport
{
    Rest,
    Grpc,
    Postgres,
}
