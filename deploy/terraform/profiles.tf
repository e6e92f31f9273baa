# Hardware profiles. Both keep the full data set on every node (replication
# factor 3); deploy/README.md explains the sizes and the monthly cost of each.
locals {
  profiles = {
    "budget-arm" = {
      ravendb_instance_type  = "m6g.large" # 2 ARM cores, 8 GB
      ravendb_arch           = "arm64"
      ravendb_data_volume_gb = 1000        # expected footprint about 350 GB, room for a full compaction copy; grows online
      syncapi_instance_type  = "m6g.large" # scale out, not up: 2 in two zones, up to 6
      syncapi_arch           = "arm64"
      syncapi_min_size       = 2
      syncapi_max_size       = 6
      syncapi_desired_size   = 2
      loadgen_instance_type  = "m5a.2xlarge" # 8 cores, as in the published runs
      loadgen_arch           = "x86_64"
    }
    "high-perf" = {
      ravendb_instance_type  = "m5a.8xlarge" # 32 cores, 128 GB
      ravendb_arch           = "x86_64"
      ravendb_data_volume_gb = 1500          # the 985 GB logical set fits even uncompressed, with 50% headroom
      syncapi_instance_type  = "m5a.8xlarge" # one web machine, as in the published runs
      syncapi_arch           = "x86_64"
      syncapi_min_size       = 1
      syncapi_max_size       = 3
      syncapi_desired_size   = 1
      loadgen_instance_type  = "m5a.2xlarge"
      loadgen_arch           = "x86_64"
    }
  }

  selected = local.profiles[var.profile]
}
