# syntax=docker/dockerfile:1
# Kobo.Sync service image: REST on 5080 (HTTP/1.1), gRPC on 5081 (HTTP/2 cleartext).
# Multi-arch: docker buildx build --platform linux/amd64,linux/arm64 -t kobo-sync:TAG .
# The build stage runs on the builder's own architecture and produces portable IL
# (framework-dependent, no native host), which the per-architecture runtime image runs.
# All configuration comes from environment variables (ASP.NET Core's Section__Key form).

ARG DOTNET_VERSION=10.0

FROM --platform=$BUILDPLATFORM mcr.microsoft.com/dotnet/sdk:${DOTNET_VERSION} AS build
WORKDIR /src

# Restore first, from the project files and lock files only, so source edits keep the cached layer.
# Restore sees the development server's project (so one lock file serves every build); the publish leaves
# it out, and the image carries no embedded PostgreSQL server and no demo data (src/SyncApi/SyncApi.csproj).
COPY global.json Directory.Build.props Directory.Packages.props .editorconfig ./
COPY src/Domain/Domain.csproj src/Domain/packages.lock.json src/Domain/
COPY src/Contracts/Contracts.csproj src/Contracts/packages.lock.json src/Contracts/
COPY src/Storage/Storage.csproj src/Storage/packages.lock.json src/Storage/
COPY src/DevServer/DevServer.csproj src/DevServer/packages.lock.json src/DevServer/
COPY src/SyncApi/SyncApi.csproj src/SyncApi/packages.lock.json src/SyncApi/
RUN dotnet restore src/SyncApi/SyncApi.csproj --locked-mode

COPY src/Domain/ src/Domain/
COPY src/Contracts/ src/Contracts/
COPY src/Storage/ src/Storage/
COPY src/SyncApi/ src/SyncApi/
RUN dotnet publish src/SyncApi/SyncApi.csproj \
      --configuration Release \
      --no-restore \
      --output /app \
      -p:UseAppHost=false

FROM mcr.microsoft.com/dotnet/aspnet:${DOTNET_VERSION} AS runtime

# curl only serves the container health check below.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY --from=build --chown=root:root /app ./

ENV ASPNETCORE_ENVIRONMENT=Production \
    Endpoints__Rest=http://0.0.0.0:5080 \
    Endpoints__Grpc=http://0.0.0.0:5081

EXPOSE 5080 5081

# The image's unprivileged "app" user (uid 1654); the application files stay owned by root.
USER 1654:1654

HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["curl", "--fail", "--silent", "--show-error", "--max-time", "2", "http://127.0.0.1:5080/healthz/live"]

ENTRYPOINT ["dotnet", "Kobo.Sync.SyncApi.dll"]
