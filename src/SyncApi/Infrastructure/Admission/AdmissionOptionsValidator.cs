using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The rule across keys (each key's own range is a DataAnnotation on <see cref="AdmissionOptions"/>):
/// the instance's body budget holds at least one device's share. Fails the start naming the key.
/// </summary>
internal sealed class AdmissionOptionsValidator : IValidateOptions<AdmissionOptions>
{
    public ValidateOptionsResult Validate(string? name, AdmissionOptions options) =>
        options.BodyBytes < options.PerDeviceBodyBytes
            ? ValidateOptionsResult.Fail(
                $"{AdmissionOptions.SectionName}:{nameof(AdmissionOptions.BodyBytes)} must be at least {options.PerDeviceBodyBytes} (was {options.BodyBytes}).")
            : ValidateOptionsResult.Success;
}
