using System.Buffers;
using System.Buffers.Text;
using System.Text;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Performance;

/// <summary>
/// One measured request kind: <see cref="SendNext"/> sends the next request of a rotation over every
/// user of <see cref="AllocationService"/> (each with a device token of its own, as the wrk driver
/// <c>load/wrk/device-reads.lua</c> does) and checks its answer, allocating nothing itself.
/// </summary>
internal sealed class HotRequest
{
    public required string Key { get; init; }

    /// <summary>What the figure measures, for messages.</summary>
    public required string Description { get; init; }

    public required int RequestsPerRun { get; init; }

    public required Action<RawHttpConnection> SendNext { get; init; }

    /// <summary>Checks what the requests sent so far stored (the push); reads store nothing.</summary>
    public Func<AllocationService, Task> VerifyStoredAsync { get; init; } = _ => Task.CompletedTask;
}

/// <summary>The three hot reads and the push, as pre-built HTTP/1.1 requests.</summary>
internal static class HotRequests
{
    public static HotRequest[] All(Uri address) =>
    [
        Read("userById", "user by id (GET /v1/users/{n})", address, user => $"/v1/users/{user}", "\"userNo\":"u8.ToArray()),
        Read("highlightsByUser", "a user's highlights, first page (GET /v1/users/{n}/highlights)", address, user => $"/v1/users/{user}/highlights", "\"nextCursor\":\""u8.ToArray()),
        Read("highlightsByUserAndBook", "a user's highlights in one book, first page (GET /v1/users/{n}/books/{b}/highlights)", address, user => $"/v1/users/{user}/books/{1 + (user % AllocationService.HighlightBooks)}/highlights", "\"nextCursor\":\""u8.ToArray()),
        new PushRotation(address).Request,
    ];

    /// <summary>Reads answer 200 with <paramref name="expected"/> in the body (a user; a page with a next one).</summary>
    private static HotRequest Read(string key, string description, Uri address, Func<int, string> path, byte[] expected)
    {
        var requests = Enumerable.Range(1, AllocationService.Users)
            .Select(user => Encoding.ASCII.GetBytes(
                $"GET {path(user)} HTTP/1.1\r\nHost: {address.Authority}\r\nAuthorization: Bearer {TestTokens.For(user, AllocationService.Device)}\r\n\r\n"))
            .ToArray();
        var next = 0;
        return new HotRequest
        {
            Key = key,
            Description = description,
            RequestsPerRun = 2_000,
            SendNext = connection =>
            {
                var request = requests[next];
                next = (next + 1) % requests.Length;
                var status = connection.Send(request);
                if (status != 200 || connection.Body.IndexOf(expected) < 0)
                {
                    throw new InvalidOperationException(
                        $"{description}: {Encoding.ASCII.GetString(request).Split('\r')[0]} answered {status} {Encoding.UTF8.GetString(connection.Body)}");
                }
            },
        };
    }

    /// <summary>
    /// Pushes of <see cref="Changes"/> upserts of the same keys of book 4, each with a later device time
    /// and a new text than the user's last push, so every change of every push is applied and stored. The
    /// time and a counter in the text are written into each user's request bytes in place.
    /// </summary>
    private sealed class PushRotation
    {
        public const int Changes = 10;
        public const long Book = 4;
        private const string TimeMark = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
        private const string CounterMark = "########";
        private static readonly StandardFormat CounterFormat = new('D', 8);

        private readonly byte[][] _requests;
        private readonly int[][] _timeOffsets;
        private readonly int[][] _counterOffsets;
        private readonly int[] _pushes;
        private readonly DateTimeOffset _start = DateTimeOffset.UtcNow.AddDays(-20);
        private int _next;

        public PushRotation(Uri address)
        {
            _requests = new byte[AllocationService.Users][];
            _timeOffsets = new int[AllocationService.Users][];
            _counterOffsets = new int[AllocationService.Users][];
            _pushes = new int[AllocationService.Users];
            for (var i = 0; i < AllocationService.Users; i++)
            {
                var user = i + 1;
                var changes = Enumerable.Range(0, Changes).Select(k =>
                    $$"""{"op":"upsert","bookNo":"{{Book}}","key":"p{{k}}","text":"pushed {{CounterMark}} to p{{k}} of reader {{user}}","start":{{20 * k}},"length":15,"color":"blue","modifiedAt":"{{TimeMark}}"}""");
                var body = $$"""{"changes":[{{string.Join(',', changes)}}]}""";
                var head = $"POST /v1/users/{user}/changes HTTP/1.1\r\nHost: {address.Authority}\r\nAuthorization: Bearer {TestTokens.For(user, AllocationService.Device)}\r\nContent-Type: application/json\r\nContent-Length: {Encoding.UTF8.GetByteCount(body)}\r\n\r\n";
                var text = head + body;
                _requests[i] = Encoding.UTF8.GetBytes(text);
                _timeOffsets[i] = Offsets(_requests[i], TimeMark);
                _counterOffsets[i] = Offsets(_requests[i], CounterMark);
            }

            Request = new HotRequest
            {
                Key = "push10Changes",
                Description = $"a push of {Changes} highlight changes (POST /v1/users/{{n}}/changes)",
                RequestsPerRun = 1_000,
                SendNext = Send,
                VerifyStoredAsync = VerifyStoredAsync,
            };
        }

        public HotRequest Request { get; }

        /// <summary>Every pushed user's highlight p0 holds the text of that user's last push.</summary>
        private async Task VerifyStoredAsync(AllocationService service)
        {
            var stored = await service.StoredTextsAsync(Book, "p0");
            for (var i = 0; i < _pushes.Length; i++)
            {
                if (_pushes[i] > 0)
                {
                    var user = i + 1;
                    var expected = $"pushed {_pushes[i].ToString("D8", System.Globalization.CultureInfo.InvariantCulture)} to p0 of reader {user}";
                    Assert.True(stored.TryGetValue(user, out var text) && text == expected, $"reader {user}'s p0 holds \"{text}\" after {_pushes[i]} pushes, not \"{expected}\"");
                }
            }
        }

        private void Send(RawHttpConnection connection)
        {
            var i = _next;
            _next = (_next + 1) % _requests.Length;
            var pushes = ++_pushes[i];
            var request = _requests[i];
            // One second later per push: a later device time than the stored one on every field.
            var at = _start.AddSeconds(pushes);
            foreach (var offset in _timeOffsets[i])
            {
                if (!Utf8Formatter.TryFormat(at, request.AsSpan(offset, TimeMark.Length), out var written, new StandardFormat('O')) || written != TimeMark.Length)
                {
                    throw new InvalidOperationException("A device time that does not fill its place in the request.");
                }
            }

            foreach (var offset in _counterOffsets[i])
            {
                Utf8Formatter.TryFormat(pushes, request.AsSpan(offset, CounterMark.Length), out _, CounterFormat);
            }

            var status = connection.Send(request);
            if (status != 200 || connection.Body.Count("\"status\":\"applied\""u8) != Changes)
            {
                throw new InvalidOperationException(
                    $"{Request.Description}: push {pushes} of reader {i + 1} answered {status} {Encoding.UTF8.GetString(connection.Body)}");
            }
        }

        private static int[] Offsets(byte[] request, string mark)
        {
            var marker = Encoding.ASCII.GetBytes(mark);
            var offsets = new List<int>();
            var from = 0;
            int found;
            while ((found = request.AsSpan(from).IndexOf(marker)) >= 0)
            {
                offsets.Add(from + found);
                from += found + marker.Length;
            }

            return [.. offsets];
        }
    }
}
