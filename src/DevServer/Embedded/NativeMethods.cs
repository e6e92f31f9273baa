using System.Runtime.InteropServices;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>Signals for the server process: .NET's Process.Kill sends SIGKILL, PostgreSQL wants SIGINT.</summary>
public static class NativeMethods
{
    public const int SigInt = 2;
    public const int SigKill = 9;

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int Kill(int pid, int signal);

    public static bool Signal(int pid, int signal) => Kill(pid, signal) == 0;

    /// <summary>Whether a process with this id exists (signal 0 checks without sending anything).</summary>
    public static bool IsAlive(int pid) => pid > 0 && (Kill(pid, 0) == 0 || Marshal.GetLastPInvokeError() == 1 /* EPERM */);
}
