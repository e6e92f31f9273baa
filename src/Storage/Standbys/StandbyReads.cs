using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Telemetry;
using Npgsql;

namespace Kobo.Sync.Storage.Standbys;

/// <summary>
/// Where a device's pull, Kobo library sync or reading-state read is answered: from the standbys
/// (<c>Storage:ReadConnectionString</c>) when the one that answers shows it has the user's last write
/// this instance knows of (<see cref="RecentWrites"/>) and does not lag by more than it may; otherwise
/// from the primary. The standby proves it in the read itself: the read's first statement
/// (<see cref="ChangeSeqQueries.CommittedSeqOnStandby"/>) returns the user's change sequence there and
/// whether the standby lags, so the check costs no round trip of its own. A user's writes commit in the
/// order of their sequence numbers under the user's row lock, and a standby replays commits in that
/// order, so a standby whose sequence for the user has reached the write has replayed that write and
/// every earlier one of the user's.
/// <para>
/// A standby that is behind costs the read twice: once refused there, once on the primary. That happens
/// to the first read after a device's own write (until the standbys replay it, milliseconds) and while a
/// standby lags. With no read string, or <c>Storage:DeviceReadsFromStandbys</c> false, every read is on
/// the primary, as before.
/// </para>
/// </summary>
public sealed class StandbyReads
{
    private readonly NpgsqlDataSource _primary;
    private readonly NpgsqlDataSource? _standbys;
    private readonly TimeSpan _maxLag;
    private readonly StorageMetrics? _metrics;

    /// <param name="standbys">The read source; null keeps every read on <paramref name="primary"/>.</param>
    public StandbyReads(
        NpgsqlDataSource primary, NpgsqlDataSource? standbys, RecentWrites? writes, TimeSpan maxLag, StorageMetrics? metrics = null)
    {
        _primary = primary;
        _standbys = standbys;
        Writes = standbys is null ? null : writes ?? throw new ArgumentNullException(nameof(writes));
        _maxLag = maxLag;
        _metrics = metrics;
    }

    /// <summary>The users' last writes, when reads go to standbys (they are not kept otherwise).</summary>
    public RecentWrites? Writes { get; }

    /// <summary>Every read on the primary.</summary>
    public static StandbyReads PrimaryOnly(NpgsqlDataSource primary) => new(primary, null, null, TimeSpan.Zero);

    /// <summary>
    /// Runs <paramref name="read"/> on a standby with a check it must put first (<see cref="StandbyCheck"/>),
    /// and again on the primary (with none) when the check refused the standby's answer. The standby must
    /// have the user's last write this instance knows of, and at least <paramref name="written"/> (one the
    /// device told of: its token). With no standbys, <paramref name="read"/> runs on the primary alone,
    /// with nothing in between. <paramref name="state"/> is passed to <paramref name="read"/> as given.
    /// </summary>
    public Task<T> ReadAsync<TState, T>(
        UserNo user,
        long written,
        TState state,
        Func<NpgsqlDataSource, StandbyCheck?, TState, CancellationToken, Task<T>> read,
        CancellationToken cancellationToken) =>
        _standbys is null
            ? read(_primary, null, state, cancellationToken)
            : ReadOnStandbyAsync(_standbys, Check(user, written), state, read, cancellationToken);

    private async Task<T> ReadOnStandbyAsync<TState, T>(
        NpgsqlDataSource standbys,
        StandbyCheck check,
        TState state,
        Func<NpgsqlDataSource, StandbyCheck?, TState, CancellationToken, Task<T>> read,
        CancellationToken cancellationToken)
    {
        var answer = await read(standbys, check, state, cancellationToken).ConfigureAwait(false);
        _metrics?.RecordStandbyRead(check.Verdict switch
        {
            StandbyVerdict.Served => "served",
            StandbyVerdict.Behind => "behind",
            StandbyVerdict.Lagging => "lagging",
            _ => "unknown_user",
        });
        return check.Verdict == StandbyVerdict.Served
            ? answer
            : await read(_primary, null, state, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Where the user's change sequence stands (null: no such user), read as <see cref="ReadAsync"/> reads: one indexed read.
    /// </summary>
    public Task<long?> ReadCommittedSeqAsync(UserNo user, long written, CancellationToken cancellationToken) =>
        ReadAsync(user, written, user, static (source, check, user, ct) => check is null
            ? ChangeSequences.ReadCommittedAsync(source, user, ct)
            : ReadCommittedOnStandbyAsync(source, check, user, ct), cancellationToken);

    private static async Task<long?> ReadCommittedOnStandbyAsync(
        NpgsqlDataSource source, StandbyCheck check, UserNo user, CancellationToken cancellationToken)
    {
        await using var connection = await source.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        await using var batch = new NpgsqlBatch(connection) { BatchCommands = { StandbyCheck.FirstCommand(check, user) } };
        await using var reader = await batch.ExecutePreparedReaderAsync(cancellationToken).ConfigureAwait(false);
        return await StandbyCheck.ReadFirstAsync(reader, check, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// What the standby must show: the user's last write this instance knows of, or <paramref name="written"/>
    /// if later; and a lag of at most <c>Storage:StandbyMaxLagMs</c>, never more than the time back to which
    /// every write is still held (after a start, the time since; see <see cref="RecentWrites"/>).
    /// </summary>
    private StandbyCheck Check(UserNo user, long written)
    {
        var (lastWrite, covered) = Writes!.Lookup(user.Value);
        return new StandbyCheck(Math.Max(written, lastWrite), (covered < _maxLag ? covered : _maxLag).TotalMilliseconds);
    }
}

/// <summary>
/// What a standby's answer must show: the user's sequence at <see cref="LastWrite"/> or past it, and a lag
/// within <see cref="AllowedLagMs"/>; and, once the read's first statement is read, what it showed
/// (<see cref="Verdict"/>). A read that finds it refused stops there: its result is not used.
/// </summary>
public sealed class StandbyCheck(long lastWrite, double allowedLagMs)
{
    public long LastWrite { get; } = lastWrite;

    public double AllowedLagMs { get; } = allowedLagMs;

    public StandbyVerdict Verdict { get; private set; }

    /// <summary>The standby's answer is not to be used (read again on the primary).</summary>
    public bool Refused => Verdict != StandbyVerdict.Served;

    /// <summary>
    /// A read's first statement: the user's committed sequence (column 0), and on a standby (a
    /// <paramref name="check"/>) whether it lags (column 1). No row when the user does not exist there.
    /// </summary>
    public static NpgsqlBatchCommand FirstCommand(StandbyCheck? check, UserNo user) => check is not null
        ? new(ChangeSeqQueries.CommittedSeqOnStandby)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<double> { TypedValue = check.AllowedLagMs },
            },
        }
        : ChangeFeedBatch.OfUser(ChangeSeqQueries.CommittedSeq, user);

    /// <summary>
    /// Reads the first statement's answer: the user's committed sequence (null: no such user), and sets the
    /// <paramref name="check"/>'s verdict. A user the standby does not have yet is refused there: the primary decides.
    /// </summary>
    public static async Task<long?> ReadFirstAsync(NpgsqlDataReader reader, StandbyCheck? check, CancellationToken cancellationToken)
    {
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            check?.Judge(StandbyVerdict.UnknownUser);
            return null;
        }

        var seq = reader.GetInt64(0);
        check?.Judge(reader.GetBoolean(1) ? StandbyVerdict.Lagging : seq < check.LastWrite ? StandbyVerdict.Behind : StandbyVerdict.Served);
        return seq;
    }

    private void Judge(StandbyVerdict verdict) => Verdict = verdict;
}

/// <summary>What became of a read tried on a standby.</summary>
public enum StandbyVerdict
{
    /// <summary>Answered there (or on the primary, where every read is served).</summary>
    Served,

    /// <summary>The standby has not replayed the user's last write: read again on the primary.</summary>
    Behind,

    /// <summary>The standby lags more than it may: read again on the primary.</summary>
    Lagging,

    /// <summary>The standby does not have the user (yet): read again on the primary.</summary>
    UnknownUser,
}
