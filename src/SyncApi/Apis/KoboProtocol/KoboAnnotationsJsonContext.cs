using System.Text.Json;
using System.Text.Json.Serialization;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>Compile-time JSON of the annotation answers that hold no device text verbatim; absent values are left out.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(KoboPatchResponse))]
[JsonSerializable(typeof(IReadOnlyList<string>))]
internal sealed partial class KoboAnnotationsJsonContext : JsonSerializerContext;
