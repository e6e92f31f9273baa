using System.Reflection;
using ArchUnitNET.Loader;

namespace Kobo.Sync.Architecture.Tests;

/// <summary>The product's assemblies as built, loaded once for every rule.</summary>
internal static class ProductAssemblies
{
    public static Assembly DomainAssembly { get; } = typeof(global::Kobo.Sync.Domain.Ids.UserNo).Assembly;

    public static Assembly ContractsAssembly { get; } = typeof(global::Kobo.Sync.Contracts.Tokens.DeviceTokenSigner).Assembly;

    public static Assembly StorageAssembly { get; } = typeof(global::Kobo.Sync.Storage.StorageOptions).Assembly;

    public static Assembly DevServerAssembly { get; } = typeof(global::Kobo.Sync.DevServer.DevelopmentServerExtensions).Assembly;

    public static Assembly WebHostAssembly { get; } = typeof(global::Kobo.Sync.SyncApi.Extensions.StorageExtensions).Assembly;

    public static Assembly DeviceSimulatorAssembly { get; } = typeof(global::Kobo.Sync.DeviceSimulator.Devices.DeviceTokens).Assembly;

    /// <summary>Every product assembly with its project's folder under <c>src/</c>.</summary>
    public static IReadOnlyList<(string Project, Assembly Assembly)> All { get; } =
    [
        ("Domain", DomainAssembly), ("Contracts", ContractsAssembly), ("Storage", StorageAssembly), ("DevServer", DevServerAssembly), ("SyncApi", WebHostAssembly), ("DeviceSimulator", DeviceSimulatorAssembly),
    ];

    public static ArchUnitNET.Domain.Architecture Product { get; } =
        new ArchLoader().LoadAssemblies([.. All.Select(a => a.Assembly), typeof(ProductAssemblies).Assembly]).Build();
}
