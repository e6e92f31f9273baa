using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>How much work the service takes on at once, and how fast one device may call (section <c>Admission</c>).</summary>
public sealed class AdmissionOptions
{
    public const string SectionName = "Admission";

    /// <summary>Device requests served at the same time by this instance.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:ConcurrencyLimit must be at least {1}.")]
    public int ConcurrencyLimit { get; set; } = 128;

    /// <summary>
    /// Requests that may wait for a free slot, oldest first; beyond that they are refused at once
    /// (503), so memory and queueing delay stay bounded under overload.
    /// </summary>
    [Range(0, int.MaxValue, ErrorMessage = "Admission:QueueLimit must be at least {1}.")]
    public int QueueLimit { get; set; } = 128;

    /// <summary>Sustained requests per second one device (token <c>did</c>) may make...</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:PerDeviceRequestsPerSecond must be at least {1}.")]
    public int PerDeviceRequestsPerSecond { get; set; } = 10;

    /// <summary>...and the burst it may make above that.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:PerDeviceBurst must be at least {1}.")]
    public int PerDeviceBurst { get; set; } = 20;

    /// <summary>
    /// Sustained requests per second one Kobo link may make: a Kobo e-reader pulls its library in pages
    /// of 100 back to back (600 pages for 60,000 books), so it has a bucket of its own...
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:PerKoboLinkRequestsPerSecond must be at least {1}.")]
    public int PerKoboLinkRequestsPerSecond { get; set; } = 50;

    /// <summary>...and the burst it may make above that.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:PerKoboLinkBurst must be at least {1}.")]
    public int PerKoboLinkBurst { get; set; } = 100;

    /// <summary>
    /// The least <c>Retry-After</c> given when the service as a whole is over capacity; each refusal gets
    /// a random time from it to twice it, so that devices refused together do not come back together.
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:OverloadRetryAfterMs must be at least {1}.")]
    public int OverloadRetryAfterMs { get; set; } = 1000;

    /// <summary>
    /// Requests one device may have in progress at once, from the first byte of its body to the last
    /// byte of its answer (a live pull included, a gRPC <c>WatchChanges</c> stream not); beyond that it
    /// is refused at once (429), so one device's slow network can only hold its own share.
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:PerDeviceConcurrentRequests must be at least {1}.")]
    public int PerDeviceConcurrentRequests { get; set; } = 8;

    /// <summary>
    /// Bytes of request bodies one device may have held by this instance at once, while they arrive and
    /// until their request ends: at least the largest body an endpoint accepts (Kestrel's 30,000,000 bytes
    /// for a REST push), so any single request fits.
    /// </summary>
    [Range(typeof(long), "65536", "9223372036854775807", ErrorMessage = "Admission:PerDeviceBodyBytes must be at least {1}.")]
    public long PerDeviceBodyBytes { get; set; } = 32L * 1024 * 1024;

    /// <summary>
    /// Bytes of request bodies beyond their first 64 KiB (<see cref="SmallBodyBytes"/>) this instance holds at
    /// once for all devices; past it a large body is refused (503). Small bodies never need it.
    /// </summary>
    public long BodyBytes { get; set; } = 256L * 1024 * 1024;

    /// <summary>
    /// Bytes of request bodies one user may have held by this instance at once, all their devices and Kobo
    /// links together; past it 429. At least <see cref="PerDeviceBodyBytes"/>, so any one request fits.
    /// </summary>
    [Range(typeof(long), "65536", "9223372036854775807", ErrorMessage = "Admission:PerUserBodyBytes must be at least {1}.")]
    public long PerUserBodyBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// A reserve of its own for the first 64 KiB of every body, which is every read's and most writes' whole
    /// body: a small body never waits on the large ones filling <see cref="BodyBytes"/>. A first chunk finds
    /// room in <see cref="BodyBytes"/> when the reserve is full.
    /// </summary>
    [Range(typeof(long), "65536", "9223372036854775807", ErrorMessage = "Admission:SmallBodyBytes must be at least {1}.")]
    public long SmallBodyBytes { get; set; } = 32L * 1024 * 1024;

    /// <summary>
    /// A body that has not ended must bring at least <see cref="BodyProgressMinBytes"/> within every window
    /// of this many milliseconds, or it is cut (408 / DEADLINE_EXCEEDED) and what it held is given back: a
    /// body that stops arriving, or trickles, holds nothing for longer than this, whatever came before.
    /// </summary>
    [Range(1000, 600_000, ErrorMessage = "Admission:BodyProgressWindowMs must be from {1} to {2}.")]
    public int BodyProgressWindowMs { get; set; } = 10_000;

    /// <summary>The least a body must bring within each <see cref="BodyProgressWindowMs"/> (16 KiB: 1.6 KB/s).</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:BodyProgressMinBytes must be at least {1}.")]
    public int BodyProgressMinBytes { get; set; } = 16 * 1024;

    /// <summary>
    /// An answer waits on the device's network outside the admission slots, for at most this long plus
    /// its size at <see cref="AnswerMinBytesPerSecond"/>; a device that takes longer loses the connection
    /// (HTTP/1.1) or the stream (HTTP/2), and the answer's memory is given back.
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:AnswerWriteGraceMs must be at least {1}.")]
    public int AnswerWriteGraceMs { get; set; } = 10_000;

    /// <summary>The slowest a device may take its answer, past <see cref="AnswerWriteGraceMs"/>.</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:AnswerMinBytesPerSecond must be at least {1}.")]
    public int AnswerMinBytesPerSecond { get; set; } = 32 * 1024;

    /// <summary>
    /// Bytes of answers this instance holds at once while devices take them; past it an answer is replaced
    /// by 503 / UNAVAILABLE before anything of it is sent. One answer always goes when none is held.
    /// </summary>
    [Range(typeof(long), "1048576", "9223372036854775807", ErrorMessage = "Admission:AnswerBytes must be at least {1}.")]
    public long AnswerBytes { get; set; } = 256L * 1024 * 1024;

    /// <summary>
    /// Bytes of answers one user's devices and Kobo links together may have waiting to be taken; past it 429 / RESOURCE_EXHAUSTED. One
    /// answer always goes when the user holds none.
    /// </summary>
    [Range(typeof(long), "65536", "9223372036854775807", ErrorMessage = "Admission:PerUserAnswerBytes must be at least {1}.")]
    public long PerUserAnswerBytes { get; set; } = 32L * 1024 * 1024;

    /// <summary>Anonymous health <c>Watch</c> streams open at once on this instance; past it Watch answers RESOURCE_EXHAUSTED.</summary>
    [Range(0, int.MaxValue, ErrorMessage = "Admission:HealthWatchLimit must be at least {1}.")]
    public int HealthWatchLimit { get; set; } = 16;

    /// <summary>The longest a health <c>Watch</c> stream lasts (it ends with DEADLINE_EXCEEDED; the caller watches again).</summary>
    [Range(1, int.MaxValue, ErrorMessage = "Admission:HealthWatchMaxSeconds must be at least {1}.")]
    public int HealthWatchMaxSeconds { get; set; } = 300;
}
