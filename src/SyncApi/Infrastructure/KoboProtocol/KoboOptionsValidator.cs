using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

/// <summary>Stops the start on a Kobo URL that is set but is not an absolute http or https URL, naming the key.</summary>
internal sealed class KoboOptionsValidator : IValidateOptions<KoboOptions>
{
    public ValidateOptionsResult Validate(string? name, KoboOptions options)
    {
        var failures = new List<string>();
        if (!string.IsNullOrEmpty(options.PublicBaseUrl) && options.PublicBase is null)
        {
            failures.Add(
                $"Kobo:PublicBaseUrl must be an absolute http or https URL without query or fragment; it was '{options.PublicBaseUrl}'.");
        }

        if (!string.IsNullOrEmpty(options.ContentBaseUrl) && options.ContentBase is null)
        {
            failures.Add(
                $"Kobo:ContentBaseUrl must be an absolute http or https URL without query or fragment; it was '{options.ContentBaseUrl}'.");
        }

        Range(failures, "LinkLookupConcurrency", options.LinkLookupConcurrency, 1, 1_000);
        Range(failures, "LinkLookupQueue", options.LinkLookupQueue, 0, 100_000);
        Range(failures, "LinkLookupTimeoutMs", options.LinkLookupTimeoutMs, 1, 600_000);
        Range(failures, "RefusedSecretsPerAddressBurst", options.RefusedSecretsPerAddressBurst, 1, 1_000_000);
        Range(failures, "RefusedSecretsPerAddressPerMinute", options.RefusedSecretsPerAddressPerMinute, 1, 6_000_000);
        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void Range(List<string> failures, string key, int value, int least, int most)
    {
        if (value < least || value > most)
        {
            failures.Add($"Kobo:{key} must be from {least} to {most}; it was {value}.");
        }
    }
}
