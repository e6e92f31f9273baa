namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>A fact that is skipped, saying why, when a command-line tool it needs is not installed.</summary>
public sealed class FactWhenOnPathAttribute : FactAttribute
{
    public FactWhenOnPathAttribute(params string[] tools) => Skip = MissingTools.SkipReason(tools);
}

/// <summary>A theory that is skipped, saying why, when a command-line tool it needs is not installed.</summary>
public sealed class TheoryWhenOnPathAttribute : TheoryAttribute
{
    public TheoryWhenOnPathAttribute(params string[] tools) => Skip = MissingTools.SkipReason(tools);
}

internal static class MissingTools
{
    /// <summary>Null when every tool is on PATH; otherwise the reason the test is skipped.</summary>
    public static string? SkipReason(IEnumerable<string> tools)
    {
        var missing = tools.Where(tool => !ProcessRunner.IsOnPath(tool)).ToList();
        return missing.Count == 0
            ? null
            : $"not on PATH on this machine: {string.Join(", ", missing)} (.ci/run installs cloud-init and shellcheck from Debian; Terraform is not a Debian package and is used only where the machine has it).";
    }
}
