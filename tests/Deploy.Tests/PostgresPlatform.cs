using System.Runtime.Versioning;

// The image recipe's service runs on a real PostgreSQL server (the service tests' one per run), supported on Linux only.
[assembly: SupportedOSPlatform("linux")]
