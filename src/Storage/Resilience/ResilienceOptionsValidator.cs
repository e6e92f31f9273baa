using Microsoft.Extensions.Options;

namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// The rule a whole-number range cannot say (the integer keys' ranges are DataAnnotations on
/// <see cref="ResilienceOptions"/>): the breaker's failure ratio lies in (0, 1]. Fails the start naming the key.
/// </summary>
public sealed class ResilienceOptionsValidator : IValidateOptions<ResilienceOptions>
{
    public ValidateOptionsResult Validate(string? name, ResilienceOptions options) =>
        options.BreakerFailureRatio is <= 0 or > 1
            ? ValidateOptionsResult.Fail(
                $"{ResilienceOptions.SectionName}:{nameof(ResilienceOptions.BreakerFailureRatio)} must be above 0 and at most 1 (was " +
                $"{options.BreakerFailureRatio}).")
            : ValidateOptionsResult.Success;
}
