using System.Runtime.Versioning;

// The tests run a real PostgreSQL server from the machine's binaries, which the launcher supports on Linux only.
[assembly: SupportedOSPlatform("linux")]
