using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Hosting;

/// <summary>
/// The one way a settings section becomes options: bound from configuration, checked by its
/// DataAnnotations (a key's own range) and, where given, by an <see cref="IValidateOptions{TOptions}"/>
/// (rules across keys), at start, so a bad setting stops the start with a message that names the key.
/// </summary>
public static class OptionsExtensions
{
    /// <summary>
    /// Binds and validates <typeparamref name="TOptions"/> from <paramref name="section"/>. Each registration
    /// that reads a section calls this next to its own services; the second call for the same options
    /// binds nothing again, so a section read by several parts is validated once, whichever is added.
    /// </summary>
    public static OptionsBuilder<TOptions> AddValidatedOptions<TOptions>(this IServiceCollection services, string section)
        where TOptions : class
    {
        var builder = services.AddOptions<TOptions>();
        if (services.Any(d => d.ServiceType == typeof(BoundSection<TOptions>)))
        {
            return builder;
        }

        services.AddSingleton(new BoundSection<TOptions>(section));
        return builder
            .BindConfiguration(section)
            .ValidateDataAnnotations()
            .ValidateOnStart();
    }

    /// <summary>
    /// As <see cref="AddValidatedOptions{TOptions}(IServiceCollection, string)"/>, with the rules across keys in
    /// <typeparamref name="TValidator"/>.
    /// </summary>
    public static OptionsBuilder<TOptions> AddValidatedOptions<TOptions, TValidator>(this IServiceCollection services, string section)
        where TOptions : class
        where TValidator : class, IValidateOptions<TOptions>
    {
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<TOptions>, TValidator>());
        return services.AddValidatedOptions<TOptions>(section);
    }

    /// <summary>Marks a section as bound, so that binding it again is a no-op.</summary>
    private sealed record BoundSection<TOptions>(string Section);
}
