using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Infrastructure.Cli;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;

var builder = ServiceSettings.CreateBuilder(args);
if (KoboLinkCommand.IsRequested(args))
{
    return await KoboLinkCommand.RunAsync(builder.Configuration, args, Console.Out, Console.Error);
}

if (TokenCommand.IsRequested(args))
{
    return TokenCommand.Run(builder.Configuration, args, Console.Out, Console.Error);
}

builder.AddServiceDefaults();
builder.AddTelemetry();
builder.AddResilience();
builder.AddStorage();
builder.AddDeviceAuth();
builder.AddAdmissionControl();
builder.AddDeviceApis();
builder.AddKobo();
builder.AddKoreader();
builder.AddLivePull();
builder.AddSyncGrpc();

var app = builder.Build();
app.UseClientAddresses();
app.UseTelemetry();
app.UseServiceDefaults();
app.UseDeviceAuth();
app.UseDeviceShares();
app.UseAnswerBuffering();
app.UseBodyArrival();
app.UseResilience();
app.UseAdmissionControl();
app.UseSyncGrpc();
app.MapServiceDefaults();
app.MapTelemetry();
app.MapDeviceApis();
app.MapKobo();
app.MapKoreader();
app.MapSyncGrpc();

app.Run();
return 0;

/// <summary>Entry point, visible to the in-process test host.</summary>
public partial class Program;
