using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Highlights;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// Compile-time JSON contracts of device sync; absent values (a tombstone's text, an entitlement's highlight fields) are left out.
/// </summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(PushRequest))]
[JsonSerializable(typeof(PushResponse))]
[JsonSerializable(typeof(SyncChangePage))]
[JsonSerializable(typeof(DevicePage))]
[JsonSerializable(typeof(ReadingStatePutJson))]
[JsonSerializable(typeof(ReadingStatePutResponse))]
[JsonSerializable(typeof(Kobo.Sync.Domain.ReadingStates.ReadingState))]
[JsonSerializable(typeof(CollectionPushRequest))]
[JsonSerializable(typeof(CollectionPushResponse))]
[JsonSerializable(typeof(CollectionPage))]
[JsonSerializable(typeof(Kobo.Sync.Domain.Collections.Collection))]
internal sealed partial class SyncJsonContext : JsonSerializerContext;
