namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Stands between ASP.NET Core's loggers and Serilog, for what <see cref="SensitiveDataRedactor"/>
/// cannot reach: an exception's own text. Kestrel, with its logs turned up, puts a request line it
/// refused into its exception (<c>Invalid request line: 'GET /kobo/{secret}/...'</c>), and Serilog
/// writes an exception as it is. An exception whose text carries a Kobo link's path is replaced by
/// <see cref="RedactedException"/>, which keeps its type, message (secret cut out) and stack trace.
/// </summary>
internal sealed class RedactingLoggerProvider(ILoggerProvider inner) : ILoggerProvider
{
    public ILogger CreateLogger(string categoryName) => new RedactingLogger(inner.CreateLogger(categoryName));

    public void Dispose() => inner.Dispose();

    private sealed class RedactingLogger(ILogger inner) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => inner.BeginScope(state);

        public bool IsEnabled(LogLevel logLevel) => inner.IsEnabled(logLevel);

        public void Log<TState>(
            LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            inner.Log(logLevel, eventId, state, exception is null ? null : RedactedException.Of(exception), formatter);
    }
}

/// <summary>An exception as logged once a Kobo link's secret was cut out of its text.</summary>
internal sealed class RedactedException(string text) : Exception(text)
{
    /// <summary><paramref name="exception"/> itself, or its redacted copy when its text names a Kobo link's path.</summary>
    public static Exception Of(Exception exception)
    {
        var text = exception.ToString();
        return text.Contains("/kobo/", StringComparison.Ordinal)
            ? new RedactedException(SensitiveDataRedactor.RedactKoboSecrets(text))
            : exception;
    }

    public override string ToString() => Message;
}
