namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>A fact that is skipped, saying why, when a command-line tool it needs is not installed.</summary>
public sealed class FactWhenOnPathAttribute : FactAttribute
{
    public FactWhenOnPathAttribute(string tool)
    {
        if (!ProcessRunner.IsOnPath(tool))
        {
            Skip = $"'{tool}' is not on PATH on this machine (it is not a Debian package, so the test run cannot install it).";
        }
    }
}
