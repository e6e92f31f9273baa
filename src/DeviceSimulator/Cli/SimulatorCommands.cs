using System.CommandLine;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary>The simulator's command line: one sub-command per job.</summary>
public static class SimulatorCommands
{
    public static RootCommand Build()
    {
        var root = new RootCommand(
            "Kobo.Sync device simulator: seeds a long-tail data set and replays retrying device syncs against the SLA.");
        root.Subcommands.Add(SeedCommand.Create());
        root.Subcommands.Add(RunCommand.Create());
        root.Subcommands.Add(MergeCommand.Create());
        root.Subcommands.Add(VerifyCommand.Create());
        return root;
    }
}
