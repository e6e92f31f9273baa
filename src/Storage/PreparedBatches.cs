using Npgsql;

namespace Kobo.Sync.Storage;

/// <summary>
/// Runs a batch whose rows are read as they arrive with its statements prepared beforehand, in a round
/// trip of their own, never during the run. Every read batch of several statements goes through here.
/// <para>
/// Left to automatic preparation, Npgsql 10 prepares a hot statement inside the run that uses it. When the
/// server fails one statement of the batch (a cancel for the request's budget, a statement timeout) while rows
/// are being read, the later statements stay recorded on the connection as prepared although the server never
/// parsed them, and every later run of them on that pooled connection fails with 26000 (<c>prepared statement
/// "_autoN" does not exist</c>) until it is closed. Explicit preparation takes back whatever it did not finish,
/// so a failure during the run changes nothing recorded. Prepared statements stay on the pooled connection:
/// one round trip per connection and statement, the first time.
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
