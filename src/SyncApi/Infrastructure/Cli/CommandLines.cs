using System.CommandLine;

namespace Kobo.Sync.SyncApi.Infrastructure.Cli;

/// <summary>
/// Runs one of the service's commands (System.CommandLine, as the simulator's): <c>--help</c> answers at
/// once; an argument that is missing, unknown or out of range stops it with exit code 2, the error
/// naming the option, and the usage line.
/// </summary>
internal static class CommandLines
{
    public const int BadArguments = 2;

    public static RootCommand Root(Command command) =>
        new("Kobo.Sync: the sync service. With a command, runs the command instead of the service.") { command };

    public static int Invoke(RootCommand root, string[] args, TextWriter output, TextWriter error, string usage)
    {
        var parse = root.Parse(args);
        return parse.Errors.Count > 0
            ? Refuse(parse, error, usage)
            : parse.Invoke(new InvocationConfiguration { Output = output, Error = error });
    }

    public static Task<int> InvokeAsync(
        RootCommand root, string[] args, TextWriter output, TextWriter error, string usage, CancellationToken cancellationToken)
    {
        var parse = root.Parse(args);
        return parse.Errors.Count > 0
            ? Task.FromResult(Refuse(parse, error, usage))
            : parse.InvokeAsync(new InvocationConfiguration { Output = output, Error = error }, cancellationToken);
    }

    /// <summary>A refusal found while running: the message and the usage line.</summary>
    public static int Usage(TextWriter error, string usage, string message)
    {
        error.WriteLine(message);
        error.WriteLine(usage);
        return BadArguments;
    }

    private static int Refuse(ParseResult parse, TextWriter error, string usage)
    {
        foreach (var problem in parse.Errors)
        {
            error.WriteLine(problem.Message);
        }

        error.WriteLine(usage);
        return BadArguments;
    }
}
