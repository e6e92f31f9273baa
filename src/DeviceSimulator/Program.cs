using Kobo.Sync.DeviceSimulator.Cli;

return await SimulatorCommands.Build().Parse(args).InvokeAsync();
