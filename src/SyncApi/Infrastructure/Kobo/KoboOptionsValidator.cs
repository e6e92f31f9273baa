using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Kobo;

/// <summary>Stops the start on a Kobo URL that is set but is not an absolute http or https URL, naming the key.</summary>
internal sealed class KoboOptionsValidator : IValidateOptions<KoboOptions>
{
    public ValidateOptionsResult Validate(string? name, KoboOptions options)
    {
        var failures = new List<string>();
        if (!string.IsNullOrEmpty(options.PublicBaseUrl) && options.PublicBase is null)
        {
            failures.Add($"Kobo:PublicBaseUrl must be an absolute http or https URL without query or fragment; it was '{options.PublicBaseUrl}'.");
        }

        if (!string.IsNullOrEmpty(options.ContentBaseUrl) && options.ContentBase is null)
        {
            failures.Add($"Kobo:ContentBaseUrl must be an absolute http or https URL without query or fragment; it was '{options.ContentBaseUrl}'.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
