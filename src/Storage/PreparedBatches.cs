using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>
/// Runs a batch whose rows are read as they arrive with its statements prepared beforehand, in a round
/// trip of their own, never during the run. Every read batch of several statements goes through here.
/// <para>
/// Left to automatic preparation (<c>Max Auto Prepare</c>), Npgsql 10 prepares a hot statement inside
/// the run that uses it: the Parse of <c>_autoN</c> leaves with the Bind and Execute, and the statement is
/// recorded on the connection as being prepared until the server's ParseComplete is read. When the
/// server fails one statement of a batch (a cancel sent for the request's budget, a statement
/// timeout) it skips every later message up to Sync, so the later statements are never parsed. Npgsql
/// takes their record back when the error arrives between two results (<c>NpgsqlDataReader.NextResult</c>),
/// but not when it arrives while rows are being read (<c>NpgsqlDataReader.Read</c> only marks the reader
/// consumed): the later statements stay recorded as being prepared, the connection goes back to the
/// pool, and every later run of them on it sends a Bind alone to a statement the server never had,
/// which fails with 26000 (<c>prepared statement "_autoN" does not exist</c>) until the connection is
/// closed, minutes later.
/// </para>
/// <para>
/// Explicit preparation reads its answers in a round trip without rows and takes back whatever it did
/// not finish, whatever the failure; the run after it only binds statements the server has, so a
/// failure during the run changes nothing that is recorded. Explicitly prepared statements stay on the
/// pooled connection and are never evicted: one round trip per connection for each statement, the
/// first time, and after that a look-up per statement.
/// </para>
/// </summary>
public static class PreparedBatches
{
    /// <summary>Prepares the batch's statements on its connection, where not done yet, then runs it.</summary>
    public static async Task<NpgsqlDataReader> ExecutePreparedReaderAsync(this NpgsqlBatch batch, CancellationToken cancellationToken)
    {
        await batch.PrepareAsync(cancellationToken).ConfigureAwait(false);
        return await batch.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
    }
}
