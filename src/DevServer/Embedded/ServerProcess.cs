using System.Diagnostics;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>
/// The server process, started through <c>setpriv --pdeathsig SIGINT</c> from a dedicated thread that
/// lives as long as the server: the kernel sends the death signal when the <em>thread</em> that
/// started the process exits, so a thread-pool thread would stop the server at random. If this
/// process dies (even by SIGKILL) the thread dies with it and the server gets a fast shutdown.
/// </summary>
public sealed class ServerProcess : IDisposable
{
    private const int TailLines = 40;

    private readonly Queue<string> _tail = new();
    private readonly ManualResetEventSlim _release = new();
    private readonly Process _process;

    private ServerProcess(Process process) => _process = process;

    public int Pid => _process.Id;

    public bool HasExited => _process.HasExited;

    public static ServerProcess Start(ProcessStartInfo startInfo)
    {
        var started = new TaskCompletionSource<ServerProcess>(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            ServerProcess server;
            try
            {
                var process = new Process { StartInfo = startInfo, EnableRaisingEvents = true };
                server = new ServerProcess(process);
                process.OutputDataReceived += (_, e) => server.Keep(e.Data);
                process.ErrorDataReceived += (_, e) => server.Keep(e.Data);
                process.Start();
                process.BeginOutputReadLine();
                process.BeginErrorReadLine();
            }
            catch (Exception e)
            {
                started.SetException(e);
                return;
            }

            started.SetResult(server);
            server._release.Wait();
        })
        {
            IsBackground = true,
            Name = "postgres-parent",
        };
        thread.Start();
        return started.Task.GetAwaiter().GetResult();
    }

    /// <summary>The server's last output lines, for error messages.</summary>
    public string Tail()
    {
        lock (_tail)
        {
            return string.Join(Environment.NewLine, _tail);
        }
    }

    public Task WaitForExitAsync(CancellationToken cancellationToken) => _process.WaitForExitAsync(cancellationToken);

    public void Dispose()
    {
        _release.Set();
        _process.Dispose();
        _release.Dispose();
    }

    private void Keep(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_tail)
        {
            _tail.Enqueue(line);
            if (_tail.Count > TailLines)
            {
                _tail.Dequeue();
            }
        }
    }
}
