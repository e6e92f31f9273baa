// Dependencies the rules must refuse, kept in this test assembly only: a layer rule and a cycle rule run against
// them fail, which shows the rules can fail at all.
namespace Kobo.Sync.Architecture.Tests.Broken.Layer
{
    internal static class UsesTheWebHost
    {
        public static Type Host => typeof(SyncApi.Extensions.StorageExtensions);
    }
}

namespace Kobo.Sync.Architecture.Tests.Broken.Left
{
    internal static class UsesRight
    {
        public static Type Other => typeof(Right.UsesLeft);
    }
}

namespace Kobo.Sync.Architecture.Tests.Broken.Right
{
    internal static class UsesLeft
    {
        public static Type Other => typeof(Left.UsesRight);
    }
}
