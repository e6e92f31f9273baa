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

/// <summary>A theory that is skipped, saying why, when a command-line tool it needs is not installed.</summary>
public sealed class TheoryWhenOnPathAttribute : TheoryAttribute
{
    public TheoryWhenOnPathAttribute(params string[] tools)
    {
        var missing = tools.Where(tool => !ProcessRunner.IsOnPath(tool)).ToList();
        if (missing.Count > 0)
        {
            Skip = $"not on PATH on this machine: {string.Join(", ", missing)}.";
        }
    }
}
