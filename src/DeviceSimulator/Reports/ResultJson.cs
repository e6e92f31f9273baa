using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>Reads and writes <c>result.json</c>.</summary>
public static class ResultJson
{
    private static readonly JsonSerializerOptions Options = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = false,
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
        Converters = { new JsonStringEnumConverter(JsonNamingPolicy.KebabCaseLower) },
    };

    public static string Serialize(RunResult result) => JsonSerializer.Serialize(result, Options);

    public static RunResult Read(string path) =>
        JsonSerializer.Deserialize<RunResult>(File.ReadAllText(path), Options)
        ?? throw new FormatException($"{path} holds no run result.");
}
