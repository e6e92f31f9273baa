namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>
/// A stretch of the run: <see cref="Rate"/> syncs per second for <see cref="DurationSeconds"/>, or a
/// linear ramp from <see cref="Rate"/> to <see cref="RampTo"/> when that is set.
/// </summary>
public sealed record LoadStep
{
    public double Rate { get; init; }

    public double? RampTo { get; init; }

    public double DurationSeconds { get; init; }
}
