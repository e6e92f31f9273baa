# Hardware profiles. Every database node holds the full data set (a leader and
# two streaming standbys); deploy/README.md explains the sizes and the monthly
# cost of each. PostgreSQL wants memory for its buffers and the page cache, so
# the database nodes are memory-optimised (8 GiB per vCPU).
locals {
  profiles = {
    "budget-arm" = {
      database_instance_type        = "r6g.large" # 2 ARM cores, 16 GB
      database_arch                 = "arm64"
      database_shared_buffers       = "4GB"       # a quarter of the memory
      database_effective_cache_size = "12GB"      # buffers + page cache
      database_data_volume_gb       = 1500        # the 985 GB logical set plus indexes and WAL; grows online
      syncapi_instance_type         = "m6g.large" # scale out, not up: 2 in two zones, up to 6
      syncapi_arch                  = "arm64"
      syncapi_min_size              = 2
      syncapi_max_size              = 6
      syncapi_desired_size          = 2
      loadgen_instance_type         = "m5a.2xlarge" # 8 cores, as in the published runs
      loadgen_arch                  = "x86_64"
    }
    "high-perf" = {
      database_instance_type        = "r6i.8xlarge" # 32 cores, 256 GB
      database_arch                 = "x86_64"
      database_shared_buffers       = "64GB"
      database_effective_cache_size = "192GB"
      database_data_volume_gb       = 2000          # the whole set with 50% headroom
      syncapi_instance_type         = "m5a.8xlarge" # one web machine, as in the published runs
      syncapi_arch                  = "x86_64"
      syncapi_min_size              = 1
      syncapi_max_size              = 3
      syncapi_desired_size          = 1
      loadgen_instance_type         = "m5a.2xlarge"
      loadgen_arch                  = "x86_64"
    }
  }

  selected = local.profiles[var.profile]
}
