namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>How a step's arrivals are spaced: exponential gaps, like independent devices, or equal gaps, like wrk2.</summary>
public enum ArrivalSpacing
{
    Poisson,
    Uniform,
}
