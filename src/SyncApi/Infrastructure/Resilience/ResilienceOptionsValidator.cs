using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>Fails the start with a message that names the key at fault.</summary>
internal sealed class ResilienceOptionsValidator : IValidateOptions<ResilienceOptions>
{
    public ValidateOptionsResult Validate(string? name, ResilienceOptions options)
    {
        var failures = new List<string>();
        Positive(failures, nameof(ResilienceOptions.RequestBudgetMs), options.RequestBudgetMs);
        Positive(failures, nameof(ResilienceOptions.RetryBaseDelayMs), options.RetryBaseDelayMs);
        Positive(failures, nameof(ResilienceOptions.BreakerSamplingMs), options.BreakerSamplingMs, min: 500);
        Positive(failures, nameof(ResilienceOptions.BreakerBreakMs), options.BreakerBreakMs, min: 500);
        Positive(failures, nameof(ResilienceOptions.BreakerMinimumThroughput), options.BreakerMinimumThroughput, min: 2);
        Positive(failures, nameof(ResilienceOptions.ReadinessProbeTimeoutMs), options.ReadinessProbeTimeoutMs);
        Positive(failures, nameof(ResilienceOptions.StartRetryDelayMs), options.StartRetryDelayMs);
        Positive(failures, nameof(ResilienceOptions.ShutdownDrainMs), options.ShutdownDrainMs);
        if (options.RetryAttempts is < 0 or > 5)
        {
            failures.Add($"{ResilienceOptions.SectionName}:{nameof(ResilienceOptions.RetryAttempts)} must be from 0 to 5 (was {options.RetryAttempts}).");
        }

        if (options.BreakerFailureRatio is <= 0 or > 1)
        {
            failures.Add($"{ResilienceOptions.SectionName}:{nameof(ResilienceOptions.BreakerFailureRatio)} must be above 0 and at most 1 (was {options.BreakerFailureRatio}).");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void Positive(List<string> failures, string key, int value, int min = 1)
    {
        if (value < min)
        {
            failures.Add($"{ResilienceOptions.SectionName}:{key} must be at least {min} (was {value}).");
        }
    }
}
