using System.Runtime.Versioning;

// The tests run a real PostgreSQL server (the service tests' one per run), supported on Linux only.
[assembly: SupportedOSPlatform("linux")]
