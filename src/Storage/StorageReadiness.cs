namespace Kobo.Sync.Storage;

/// <summary>How far the storage startup has come; read by the readiness health check.</summary>
public sealed class StorageReadiness
{
    private volatile bool _migrated;
    private volatile bool _seeded;

    public bool Migrated => _migrated;

    /// <summary>True once demo seeding has finished, or at once when it is switched off.</summary>
    public bool Seeded => _seeded;

    public void MarkMigrated() => _migrated = true;

    public void MarkSeeded() => _seeded = true;
}
