using System.Text.Json;
using System.Text.RegularExpressions;

namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>The repository's Dockerfile as a list of instructions (continuations joined, comments dropped), split into stages.</summary>
public sealed class Dockerfile
{
    private Dockerfile(IReadOnlyList<Instruction> instructions) => Instructions = instructions;

    public static Dockerfile Current { get; } = Parse(File.ReadAllText(Repository.PathOf("Dockerfile")));

    public IReadOnlyList<Instruction> Instructions { get; }

    /// <summary>Each stage's instructions, its FROM first.</summary>
    public IReadOnlyList<IReadOnlyList<Instruction>> Stages
    {
        get
        {
            var stages = new List<List<Instruction>>();
            foreach (var instruction in Instructions.SkipWhile(i => i.Keyword != "FROM"))
            {
                if (instruction.Keyword == "FROM")
                {
                    stages.Add([]);
                }

                stages[^1].Add(instruction);
            }

            return stages;
        }
    }

    public IReadOnlyList<Instruction> FinalStage => Stages[^1];

    public static Dockerfile Parse(string text)
    {
        var instructions = new List<Instruction>();
        var logical = string.Empty;
        foreach (var raw in text.Split('\n'))
        {
            var line = raw.TrimEnd('\r');
            if (logical.Length == 0 && (line.TrimStart().StartsWith('#') || string.IsNullOrWhiteSpace(line)))
            {
                continue;
            }

            if (line.EndsWith('\\'))
            {
                logical += line[..^1].Trim() + " ";
                continue;
            }

            logical += line.Trim();
            var space = logical.IndexOf(' ', StringComparison.Ordinal);
            instructions.Add(new Instruction(logical[..space].ToUpperInvariant(), Regex.Replace(logical[(space + 1)..], @"\s+", " ").Trim()));
            logical = string.Empty;
        }

        return new Dockerfile(instructions);
    }

    public sealed record Instruction(string Keyword, string Arguments)
    {
        /// <summary>The words of an exec-form (JSON array) argument, after an optional leading keyword such as CMD.</summary>
        public IReadOnlyList<string> ExecForm()
        {
            var start = Arguments.IndexOf('[', StringComparison.Ordinal);
            return start < 0
                ? throw new InvalidOperationException($"{Keyword} {Arguments} is not in exec form")
                : JsonSerializer.Deserialize<string[]>(Arguments[start..])!;
        }

        /// <summary>The KEY=value pairs of an ENV instruction.</summary>
        public IEnumerable<KeyValuePair<string, string>> EnvPairs() =>
            Arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries)
                .Select(pair => pair.Split('=', 2))
                .Select(kv => KeyValuePair.Create(kv[0], kv[1]));
    }
}
