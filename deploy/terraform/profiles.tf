# Hardware profiles. Every database node holds the full data set (a leader and
# two streaming standbys); deploy/README.md explains the sizes and the monthly
# cost of each. PostgreSQL wants memory for its buffers and the page cache, so
# the database nodes are memory-optimised (8 GiB per vCPU).
locals {
  profiles = {
    "budget-arm" = {
      database_instance_type  = "r6g.large" # 2 ARM cores, 16 GB
      database_arch           = "arm64"
      database_memory_mb      = 16384       # the large-data settings' memory shares are of this
      database_data_volume_gb = 500         # 295 GB for the full set with its devices, WAL, bloat, a rebuild (docs/capacity.md); grows online
      database_data_iops      = 6000        # where the primary's disk stops after its CPU (0.018 syncs per device-hour, docs/capacity.md)
      syncapi_instance_type   = "m6g.large" # scale out, not up: 2 in two zones (about 580 syncs/s each), up to 6
      syncapi_arch            = "arm64"
      syncapi_min_size        = 2
      syncapi_max_size        = 6
      syncapi_desired_size    = 2
      loadgen_instance_type   = "m5a.2xlarge" # 8 cores, as in the published runs
      loadgen_arch            = "x86_64"
    }
    "high-perf" = {
      database_instance_type  = "r6i.8xlarge" # 32 cores, 256 GB
      database_arch           = "x86_64"
      database_memory_mb      = 262144
      database_data_volume_gb = 500           # the same data as budget-arm (docs/capacity.md)
      database_data_iops      = 16000         # gp3's maximum: the primary's writes stop it near its CPU (docs/capacity.md)
      syncapi_instance_type   = "m5a.8xlarge" # the published runs' web machine; one carries about 6,960 syncs/s
      syncapi_arch            = "x86_64"
      syncapi_min_size        = 2 # the primary carries about 10,100 syncs/s (docs/capacity.md)
      syncapi_max_size        = 3
      syncapi_desired_size    = 2
      loadgen_instance_type   = "m5a.2xlarge"
      loadgen_arch            = "x86_64"
    }
  }

  selected = local.profiles[var.profile]

  # The PostgreSQL settings for data larger than memory, from the one file the embedded server, the
  # local cluster and load/bench/scale.sh use (docs/postgres.md): "key = value  # why" lines; a value
  # ending in % is that share of the profile's database memory, in whole MB.
  large_data_lines = [
    for line in split("\n", file("${path.module}/../postgres/large-data.conf")) :
    trimspace(split("#", line)[0]) if trimspace(split("#", line)[0]) != ""
  ]
  postgres_parameters = {
    for line in local.large_data_lines :
    trimspace(split("=", line)[0]) => (
      endswith(trimspace(split("=", line)[1]), "%")
      ? "${floor(local.selected.database_memory_mb * tonumber(trimsuffix(trimspace(split("=", line)[1]), "%")) / 100)}MB"
      : trimspace(split("=", line)[1])
    )
  }
}
