using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>Fails the start with a message that names the configuration key at fault.</summary>
internal sealed class EndpointsOptionsValidator : IValidateOptions<EndpointsOptions>
{
    public ValidateOptionsResult Validate(string? name, EndpointsOptions options)
    {
        var failures = new List<string>();
        var rest = Check($"{EndpointsOptions.SectionName}:{nameof(EndpointsOptions.Rest)}", options.Rest, failures);
        var grpc = Check($"{EndpointsOptions.SectionName}:{nameof(EndpointsOptions.Grpc)}", options.Grpc, failures);

        if (rest is not null && grpc is not null && rest.Port == grpc.Port)
        {
            failures.Add(
                $"{EndpointsOptions.SectionName}:Rest and {EndpointsOptions.SectionName}:Grpc must use different ports (both are " +
                $"{rest.Port}).");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static ListenAddress? Check(string key, string url, List<string> failures)
    {
        if (ListenAddress.TryParse(url, out var address, out var error))
        {
            return address;
        }

        failures.Add($"{key}: {error}");
        return null;
    }
}
