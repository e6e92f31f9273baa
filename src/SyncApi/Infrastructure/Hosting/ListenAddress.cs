using System.Diagnostics.CodeAnalysis;
using System.Net;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>A plain-HTTP listen address parsed from configuration: a host (IP, <c>localhost</c> or <c>*</c>) and a port.</summary>
internal sealed record ListenAddress(string Host, int Port)
{
    public static bool TryParse(string? url, [NotNullWhen(true)] out ListenAddress? address, out string error)
    {
        address = null;
        if (!Uri.TryCreate(url?.Replace("://*:", "://0.0.0.0:", StringComparison.Ordinal), UriKind.Absolute, out var uri))
        {
            error = $"'{url}' is not an absolute URL such as http://127.0.0.1:5080.";
            return false;
        }

        if (uri.Scheme != Uri.UriSchemeHttp)
        {
            error = $"'{url}' must use http:// (TLS ends at the load balancer).";
            return false;
        }

        if (uri.AbsolutePath != "/" || uri.Query.Length > 0 || uri.UserInfo.Length > 0)
        {
            error = $"'{url}' must be a scheme, host and port only, such as http://127.0.0.1:5080.";
            return false;
        }

        var host = uri.Host.Trim('[', ']');
        if (host != "localhost" && !IPAddress.TryParse(host, out _))
        {
            error = $"'{url}' must name an IP address or localhost, not a host name to resolve.";
            return false;
        }

        address = new ListenAddress(host, uri.Port);
        error = string.Empty;
        return true;
    }

    public bool IsLocalhost => Host == "localhost";

    public IPAddress IpAddress => IPAddress.Parse(Host);
}
