using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>Fails the start naming each entry of <c>Proxies:TrustedNetworks</c> that is no address or network.</summary>
internal sealed class ProxiesOptionsValidator : IValidateOptions<ProxiesOptions>
{
    public ValidateOptionsResult Validate(string? name, ProxiesOptions options)
    {
        var failures = new List<string>();
        for (var i = 0; i < options.TrustedNetworks.Length; i++)
        {
            var entry = options.TrustedNetworks[i];
            if (entry is null || !ProxiesOptions.TryParse(entry, out var network))
            {
                failures.Add(
                    $"{ProxiesOptions.SectionName}:{nameof(ProxiesOptions.TrustedNetworks)}:{i}: " +
                    $"'{entry}' is neither an IP address nor a network in CIDR form (10.0.0.0/24).");
            }
            else if (network.PrefixLength == 0)
            {
                failures.Add(
                    $"{ProxiesOptions.SectionName}:{nameof(ProxiesOptions.TrustedNetworks)}:{i}: '{entry}' trusts every address, " +
                    $"so any client could choose its own; name the balancers' networks.");
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
