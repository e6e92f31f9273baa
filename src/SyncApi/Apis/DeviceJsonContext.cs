using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>Compile-time JSON contracts for the device API: no reflection on the hot path.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(UserView))]
[JsonSerializable(typeof(HighlightPage))]
internal sealed partial class DeviceJsonContext : JsonSerializerContext;
