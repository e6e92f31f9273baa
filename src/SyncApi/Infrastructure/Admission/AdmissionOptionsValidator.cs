using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>Fails the start with a message that names the key at fault.</summary>
internal sealed class AdmissionOptionsValidator : IValidateOptions<AdmissionOptions>
{
    public ValidateOptionsResult Validate(string? name, AdmissionOptions options)
    {
        var failures = new List<string>();
        AtLeast(failures, nameof(AdmissionOptions.ConcurrencyLimit), options.ConcurrencyLimit, 1);
        AtLeast(failures, nameof(AdmissionOptions.QueueLimit), options.QueueLimit, 0);
        AtLeast(failures, nameof(AdmissionOptions.PerDeviceRequestsPerSecond), options.PerDeviceRequestsPerSecond, 1);
        AtLeast(failures, nameof(AdmissionOptions.PerDeviceBurst), options.PerDeviceBurst, 1);
        AtLeast(failures, nameof(AdmissionOptions.OverloadRetryAfterMs), options.OverloadRetryAfterMs, 1);
        AtLeast(failures, nameof(AdmissionOptions.PerKoboLinkRequestsPerSecond), options.PerKoboLinkRequestsPerSecond, 1);
        AtLeast(failures, nameof(AdmissionOptions.PerKoboLinkBurst), options.PerKoboLinkBurst, 1);
        AtLeast(failures, nameof(AdmissionOptions.PerDeviceConcurrentRequests), options.PerDeviceConcurrentRequests, 1);
        AtLeast(failures, nameof(AdmissionOptions.PerDeviceBodyBytes), options.PerDeviceBodyBytes, 64 * 1024);
        AtLeast(failures, nameof(AdmissionOptions.BodyBytes), options.BodyBytes, options.PerDeviceBodyBytes);
        AtLeast(failures, nameof(AdmissionOptions.AnswerWriteGraceMs), options.AnswerWriteGraceMs, 1);
        AtLeast(failures, nameof(AdmissionOptions.AnswerMinBytesPerSecond), options.AnswerMinBytesPerSecond, 1);
        AtLeast(failures, nameof(AdmissionOptions.HealthWatchLimit), options.HealthWatchLimit, 0);
        AtLeast(failures, nameof(AdmissionOptions.HealthWatchMaxSeconds), options.HealthWatchMaxSeconds, 1);
        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void AtLeast(List<string> failures, string key, long value, long min)
    {
        if (value < min)
        {
            failures.Add($"{AdmissionOptions.SectionName}:{key} must be at least {min} (was {value}).");
        }
    }
}
