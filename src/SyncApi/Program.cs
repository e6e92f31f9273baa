using Kobo.Sync.SyncApi.Extensions;

var builder = WebApplication.CreateBuilder(args);
builder.AddServiceDefaults();

var app = builder.Build();
app.UseServiceDefaults();
app.MapServiceDefaults();

app.Run();

/// <summary>Entry point, visible to the in-process test host.</summary>
public partial class Program;
