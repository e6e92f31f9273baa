using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The rules across keys (each key's own range is a DataAnnotation on <see cref="AdmissionOptions"/>): a
/// user's share of bodies holds at least one device's, and the instance's body budget at least one user's.
/// Fails the start naming the key.
/// </summary>
internal sealed class AdmissionOptionsValidator : IValidateOptions<AdmissionOptions>
{
    public ValidateOptionsResult Validate(string? name, AdmissionOptions options)
    {
        var failures = new List<string>();
        if (options.PerUserBodyBytes < options.PerDeviceBodyBytes)
        {
            failures.Add(
                $"{AdmissionOptions.SectionName}:{nameof(AdmissionOptions.PerUserBodyBytes)} must be at least " +
                $"{options.PerDeviceBodyBytes} (Admission:PerDeviceBodyBytes).");
        }

        if (options.BodyBytes < options.PerDeviceBodyBytes)
        {
            failures.Add(
                $"{AdmissionOptions.SectionName}:{nameof(AdmissionOptions.BodyBytes)} must be at least {options.PerDeviceBodyBytes} (was " +
                $"{options.BodyBytes}).");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
