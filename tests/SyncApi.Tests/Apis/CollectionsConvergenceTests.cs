using System.Globalization;
using System.Net.Http.Json;
using System.Text.Json;
using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// Seeded random collection edits from four devices of one user: two over REST, one over gRPC and a Kobo
/// e-reader. Each keeps a local copy of the live collections, edits it (create, rename, add, remove,
/// delete) with device times up to two minutes off, pushes its queued edits (the Kobo edits online, at
/// server time) and pulls deltas, in a random interleaving of about 200 steps; then each pushes what
/// is left and pulls. Every device must end with exactly the server's collections. The seed is printed on
/// failure; set COLLECTIONS_CONVERGENCE_SEED to replay one.
/// </summary>
public sealed class CollectionsConvergenceTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private const int DefaultSeed = 20_261_125;
    private const int Steps = 200;
    private const int Books = 6;

    private static int Seed => int.TryParse(Environment.GetEnvironmentVariable("COLLECTIONS_CONVERGENCE_SEED"), out var seed) ? seed : DefaultSeed;

    /// <summary>A device's copy: live collections by id, as name and "1,3,5".</summary>
    private abstract class Device(string name)
    {
        public string Name { get; } = name;

        public Dictionary<Guid, (string Name, SortedSet<long> Books)> Local { get; } = [];

        public abstract Task EditAsync(Random random);

        public virtual Task PushAsync() => Task.CompletedTask;

        public abstract Task PullAsync();

        public string Describe() => Show(Local);

        protected static long[] SomeBooks(Random random) =>
            [.. Enumerable.Range(0, random.Next(1, 3)).Select(_ => (long)random.Next(1, Books + 1)).Distinct()];

        protected Guid? Pick(Random random) => Local.Count == 0 ? null : Local.Keys.OrderBy(k => k).ElementAt(random.Next(Local.Count));

        protected void Apply(Guid id, string name, bool deleted, IEnumerable<long> books)
        {
            if (deleted)
            {
                Local.Remove(id);
            }
            else
            {
                Local[id] = (name, new SortedSet<long>(books));
            }
        }
    }

    /// <summary>A device of the native API: edits are queued and pushed in batches; REST or gRPC carries them.</summary>
    private abstract class NativeDevice(string name, long user) : Device(name)
    {
        private readonly List<(string Op, Guid Id, string? Name, long[] Books, DateTimeOffset At)> _queue = [];

        protected long User { get; } = user;

        public override Task EditAsync(Random random)
        {
            // Device clocks disagree by up to two minutes either way.
            var at = DateTimeOffset.UtcNow.AddSeconds(random.Next(-120, 121));
            var target = Pick(random);
            var choice = target is null ? 0 : random.Next(6);
            switch (choice)
            {
                case 0:
                    var id = Guid.NewGuid();
                    var created = "n" + random.Next(4);
                    Local[id] = (created, []);
                    _queue.Add(("upsert", id, created, [], at));
                    break;
                case 1:
                    var renamed = "n" + random.Next(4);
                    Local[target!.Value] = (renamed, Local[target.Value].Books);
                    _queue.Add(("upsert", target.Value, renamed, [], at));
                    break;
                case 2 or 3:
                    var added = SomeBooks(random);
                    Local[target!.Value].Books.UnionWith(added);
                    _queue.Add(("addBooks", target.Value, null, added, at));
                    break;
                case 4:
                    var removed = SomeBooks(random);
                    Local[target!.Value].Books.ExceptWith(removed);
                    _queue.Add(("removeBooks", target.Value, null, removed, at));
                    break;
                default:
                    Local.Remove(target!.Value);
                    _queue.Add(("delete", target.Value, null, [], at));
                    break;
            }

            return Task.CompletedTask;
        }

        public override async Task PushAsync()
        {
            if (_queue.Count == 0)
            {
                return;
            }

            var statuses = await SendAsync(_queue);
            Assert.DoesNotContain("rejected", statuses);
            _queue.Clear();
        }

        protected abstract Task<IReadOnlyList<string>> SendAsync(IReadOnlyList<(string Op, Guid Id, string? Name, long[] Books, DateTimeOffset At)> ops);

        protected void Apply(JsonElement collection) =>
            Apply(Guid.Parse(collection.Str("id")), collection.Str("name"), collection.GetProperty("deleted").GetBoolean(), collection.Books());

        protected void Apply(Kobo.Sync.Contracts.Grpc.V1.Collection collection) =>
            Apply(Guid.Parse(collection.CollectionId), collection.Name, collection.Deleted, collection.BookNos);
    }

    private sealed class RestDevice(string name, long user, HttpClient client) : NativeDevice(name, user)
    {
        private string? _token;

        protected override async Task<IReadOnlyList<string>> SendAsync(IReadOnlyList<(string Op, Guid Id, string? Name, long[] Books, DateTimeOffset At)> ops)
        {
            var changes = ops.Select(o => (object)new
            {
                op = o.Op,
                collectionId = o.Id,
                name = o.Name,
                bookNos = o.Books.Length == 0 ? null : o.Books.Select(b => b.ToString(CultureInfo.InvariantCulture)).ToArray(),
                modifiedAt = o.At,
            }).ToArray();
            return (await client.PushCollectionsAsync(User, changes)).Statuses();
        }

        public override async Task PullAsync()
        {
            var (changes, token) = await client.PullAllAsync(User, _token, pageSize: 3);
            foreach (var change in changes.Where(c => c.Str("kind") == "collection"))
            {
                Apply(change.GetProperty("collection"));
            }

            _token = token;
        }
    }

    private sealed class GrpcDevice(string name, long user, GrpcTestClient client) : NativeDevice(name, user)
    {
        private string _token = string.Empty;

        private Metadata Auth => new() { { "authorization", $"Bearer {TestTokens.For(User, Name)}" } };

        protected override async Task<IReadOnlyList<string>> SendAsync(IReadOnlyList<(string Op, Guid Id, string? Name, long[] Books, DateTimeOffset At)> ops)
        {
            var request = new PushCollectionChangesRequest { UserNo = User };
            foreach (var (op, id, name, books, at) in ops)
            {
                var message = new CollectionOp { Op = op, CollectionId = id.ToString(), Name = name ?? string.Empty, ModifiedAt = Timestamp.FromDateTimeOffset(at) };
                message.BookNos.AddRange(books);
                request.Changes.Add(message);
            }

            var response = await client.Sync.PushCollectionChangesAsync(request, Auth, cancellationToken: TestTimeout.Token);
            return [.. response.Results.Select(r => r.Status)];
        }

        public override async Task PullAsync()
        {
            PullChangesResponse page;
            do
            {
                page = await client.Sync.PullChangesAsync(
                    new PullChangesRequest { UserNo = User, Since = _token, PageSize = 3 }, Auth, cancellationToken: TestTimeout.Token);
                foreach (var change in page.Changes.Where(c => c.ChangeCase == SyncChange.ChangeOneofCase.Collection))
                {
                    Apply(change.Collection.Collection);
                }

                _token = page.SyncToken;
            }
            while (page.HasMore);
        }
    }

    /// <summary>A Kobo e-reader: each edit is its own call at once, at server time; it pulls through library sync.</summary>
    private sealed class KoboDevice(KoboReader kobo) : Device("kobo")
    {
        private string? _token;
        private int _created;

        private static JsonContent Body(object body) => JsonContent.Create(body, options: new JsonSerializerOptions());

        private static object Items(IEnumerable<long> books) =>
            books.Select(b => new { RevisionId = BookUuid.Format(new BookNo(b)), Type = "ProductRevisionTagItem" }).ToArray();

        public override async Task EditAsync(Random random)
        {
            var target = Pick(random);
            var choice = target is null ? 0 : random.Next(6);
            if (choice == 0)
            {
                // Names of its own: a create of a live collection's name would be that collection.
                var name = "kobo-" + _created++;
                var items = SomeBooks(random);
                var id = (await kobo.JsonAsync(HttpMethod.Post, "/v1/library/tags", 201, Body(new { Name = name, Items = Items(items) })))!.Value.GetString()!;
                Local[Guid.Parse(id)] = (name, new SortedSet<long>(items));
                return;
            }

            var tag = target!.Value;
            var books = SomeBooks(random);
            var renamed = "k" + random.Next(4);
            using var response = choice switch
            {
                1 => await kobo.SendAsync(HttpMethod.Put, $"/v1/library/tags/{tag}", Body(new { Name = renamed })),
                2 or 3 => await kobo.SendAsync(HttpMethod.Post, $"/v1/library/tags/{tag}/items", Body(new { Items = Items(books) })),
                4 => await kobo.SendAsync(HttpMethod.Post, $"/v1/library/tags/{tag}/items/delete", Body(new { Items = Items(books) })),
                _ => await kobo.SendAsync(HttpMethod.Delete, $"/v1/library/tags/{tag}"),
            };

            // A tag deleted meanwhile elsewhere is not found: its DeletedTag comes with the next sync.
            var status = (int)response.StatusCode;
            Assert.True(status is 200 or 201 or 404, $"Kobo tag edit {choice} of {tag}: {status}");
            if (status == 404)
            {
                return;
            }

            switch (choice)
            {
                case 1:
                    Local[tag] = (renamed, Local[tag].Books);
                    break;
                case 2 or 3:
                    Local[tag].Books.UnionWith(books);
                    break;
                case 4:
                    Local[tag].Books.ExceptWith(books);
                    break;
                default:
                    Local.Remove(tag);
                    break;
            }
        }

        public override async Task PullAsync()
        {
            var (items, token, _) = await kobo.SyncAsync(_token);
            foreach (var item in items)
            {
                var property = item.EnumerateObject().First();
                if (!property.Name.EndsWith("Tag", StringComparison.Ordinal))
                {
                    continue;
                }

                var tag = property.Value.GetProperty("Tag");
                long[] books = property.Name == "DeletedTag" ? [] : BooksOf(tag);
                Apply(Guid.Parse(tag.Str("Id")), tag.Str("Name"), property.Name == "DeletedTag", books);
            }

            _token = token;
        }

        private static long[] BooksOf(JsonElement body) =>
            [.. body.GetProperty("Items").EnumerateArray().Select(i => BookUuid.TryParse(i.Str("RevisionId"), out var book) ? book.Value : 0)];
    }

    private static string Show(Dictionary<Guid, (string Name, SortedSet<long> Books)> collections) =>
        string.Join("; ", collections.OrderBy(c => c.Key).Select(c => $"{c.Key:N}={c.Value.Name}[{string.Join(',', c.Value.Books)}]"));

    [Fact]
    public async Task EveryDeviceEndsWithTheServersCollections()
    {
        var seed = Seed;
        var random = new Random(seed);
        var user = db.NewUser();
        await db.OwnAsync(user, 1, Books);
        using var grpcHost = new SyncGrpcTestHost(db.ConnectionString);
        using var phone = db.Device(user, "phone");
        using var tablet = db.Device(user, "tablet");
        using var kobo = await db.LinkAsync(user);
        Device[] devices =
        [
            new RestDevice("phone", user, phone),
            new RestDevice("tablet", user, tablet),
            new GrpcDevice("desktop", user, grpcHost.Client),
            new KoboDevice(kobo),
        ];

        var log = new List<string>();
        for (var step = 0; step < Steps; step++)
        {
            var device = devices[random.Next(devices.Length)];
            var action = random.Next(5);
            log.Add($"{step}:{device.Name}:{(action < 3 ? "edit" : action == 3 ? "push" : "pull")}");
            await (action switch
            {
                < 3 => device.EditAsync(random),
                3 => device.PushAsync(),
                _ => device.PullAsync(),
            });
        }

        foreach (var device in devices)
        {
            await device.PushAsync();
        }

        var server = new Dictionary<Guid, (string Name, SortedSet<long> Books)>();
        foreach (var collection in await phone.ListCollectionsAsync(user))
        {
            server[Guid.Parse(collection.Str("id"))] = (collection.Str("name"), new SortedSet<long>(collection.Books()));
        }

        foreach (var device in devices)
        {
            await device.PullAsync();
            Assert.True(
                Show(server) == device.Describe(),
                $"seed {seed} (replay with COLLECTIONS_CONVERGENCE_SEED={seed}): {device.Name} holds\n{device.Describe()}\nbut the server holds\n{Show(server)}\nsteps: {string.Join(' ', log)}");
        }

        Assert.NotEmpty(server);
    }
}
