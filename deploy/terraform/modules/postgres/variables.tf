variable "name_prefix" {
  description = "Prefix of the names of the database resources."
  type        = string
}

variable "vpc_id" {
  description = "Id of the VPC that holds the nodes."
  type        = string
}

variable "placement_subnet_ids" {
  description = "Private subnet of node a, b and c, in that order (three distinct subnets, or one subnet three times for a single-zone cluster)."
  type        = list(string)

  validation {
    condition     = length(var.placement_subnet_ids) == 3
    error_message = "Exactly three placement subnets are needed, one per node."
  }
}

variable "placement_availability_zones" {
  description = "Availability zone of each placement subnet, in the same order; the data volumes are created there."
  type        = list(string)

  validation {
    condition     = length(var.placement_availability_zones) == 3
    error_message = "Exactly three availability zones are needed, one per node."
  }
}

variable "private_zone_id" {
  description = "Private Route53 zone in which a, b and c.<internal_domain> are created."
  type        = string
}

variable "internal_domain" {
  description = "Name of the private zone; the nodes are a, b and c.<internal_domain>."
  type        = string
}

variable "instance_type" {
  description = "EC2 instance type of each node (from the selected profile)."
  type        = string
}

variable "arch" {
  description = "CPU architecture of instance_type: \"arm64\" or \"x86_64\". Selects the Debian 12 image."
  type        = string

  validation {
    condition     = contains(["arm64", "x86_64"], var.arch)
    error_message = "The arch must be \"arm64\" or \"x86_64\"."
  }
}

variable "root_volume_gb" {
  description = "Size of each node's root volume in GB (OS, PostgreSQL binaries, logs)."
  type        = number
  default     = 30
}

variable "data_volume_gb" {
  description = "Size of each node's data volume in GB; every node holds the whole database, its WAL and its etcd member."
  type        = number

  validation {
    condition     = var.data_volume_gb >= 100 && var.data_volume_gb <= 16384
    error_message = "The data_volume_gb must be between 100 and 16384."
  }
}

variable "data_volume_type" {
  description = "EBS type of the data volumes: \"gp3\" or \"io2\"."
  type        = string

  validation {
    condition     = contains(["gp3", "io2"], var.data_volume_type)
    error_message = "The data_volume_type must be \"gp3\" or \"io2\"."
  }
}

variable "data_volume_iops" {
  description = "Provisioned IOPS of each data volume."
  type        = number
}

variable "data_volume_throughput" {
  description = "Throughput of each gp3 data volume in MB/s (not used for io2)."
  type        = number
}

variable "placement_subnet_cidrs" {
  description = "CIDR of each placement subnet, in the same order; node N gets the address cidrhost(cidr, 10 + N)."
  type        = list(string)

  validation {
    condition     = length(var.placement_subnet_cidrs) == 3 && alltrue([for cidr in var.placement_subnet_cidrs : can(cidrhost(cidr, 12))])
    error_message = "Exactly three subnet CIDRs are needed, one per node, each with room for host 12."
  }
}

variable "client_cidr" {
  description = "Network from which pg_hba.conf accepts password logins (the VPC); the security group narrows it to the SyncApi instances and the peers."
  type        = string

  validation {
    condition     = can(cidrhost(var.client_cidr, 0))
    error_message = "The client_cidr must be an IPv4 CIDR."
  }
}

variable "cluster_name" {
  description = "Patroni scope of the cluster (its etcd key prefix is /<cluster_name>/)."
  type        = string
  default     = "kobo-sync"
}

variable "database_name" {
  description = "Database of the service, created with its owner app_user once the cluster has a leader and a synchronous standby."
  type        = string
  default     = "kobo_sync"

  validation {
    condition     = can(regex("^[a-z_][a-z0-9_]{0,62}$", var.database_name))
    error_message = "The database_name must be a lowercase PostgreSQL identifier."
  }
}

variable "app_user" {
  description = "Login role of the service, owner of database_name."
  type        = string
  default     = "kobo"

  validation {
    condition     = can(regex("^[a-z_][a-z0-9_]{0,62}$", var.app_user))
    error_message = "The app_user must be a lowercase PostgreSQL identifier."
  }
}

variable "postgres_parameters" {
  description = "PostgreSQL settings for data larger than memory (the root module renders large-data.conf for the profile's memory), e.g. { shared_buffers = \"4096MB\" }."
  type        = map(string)

  validation {
    condition     = alltrue([for name, value in var.postgres_parameters : can(regex("^[a-z_]+$", name)) && can(regex("^[A-Za-z0-9._]+$", value))])
    error_message = "Each PostgreSQL parameter must be a lowercase setting name with a plain value such as \"4096MB\", \"1.1\" or \"on\"."
  }

  validation {
    condition     = contains(keys(var.postgres_parameters), "shared_buffers") && contains(keys(var.postgres_parameters), "effective_cache_size")
    error_message = "The PostgreSQL parameters must set shared_buffers and effective_cache_size."
  }
}

variable "superuser_password_secret_arn" {
  description = "ARN of the Secrets Manager secret holding the password of the postgres superuser (letters and digits only)."
  type        = string
}

variable "replication_password_secret_arn" {
  description = "ARN of the Secrets Manager secret holding the password of the replicator role (letters and digits only)."
  type        = string
}

variable "app_password_secret_arn" {
  description = "ARN of the Secrets Manager secret holding the password of app_user (letters and digits only); the SyncApi instances read it too."
  type        = string
}

variable "syncapi_security_group_id" {
  description = "Security group of the SyncApi instances, allowed to reach PostgreSQL (5432)."
  type        = string
}

variable "loadgen_security_group_id" {
  description = "Security group of the load generator, allowed to reach PostgreSQL (5432) to seed the data set and for raw baseline runs."
  type        = string
}

variable "admin_cidrs" {
  description = "CIDRs allowed to SSH to the nodes (one rule each); empty means none."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.admin_cidrs : !endswith(cidr, "/0")])
    error_message = "No admin CIDR may be open to the whole internet."
  }
}

variable "ssh_key_name" {
  description = "EC2 key pair installed on the nodes, or null for none."
  type        = string
  default     = null
}

variable "archive_timeout_seconds" {
  description = "PostgreSQL's archive_timeout: a WAL segment is closed and archived at least this often while writes go on, so a restore to the latest point loses no write acknowledged longer ago than this plus the upload (at most 60 s asked of the deployment)."
  type        = number
  default     = 30

  validation {
    condition     = var.archive_timeout_seconds >= 10 && var.archive_timeout_seconds <= 45
    error_message = "archive_timeout_seconds must be 10-45: lower fills the archive with near-empty segments, higher misses the 60 s recovery point objective."
  }
}

variable "backup_retention_full" {
  description = "Full backups pgBackRest keeps (one a week: the restore window is this many weeks); the incremental backups and the WAL go with them."
  type        = number
  default     = 2

  validation {
    condition     = var.backup_retention_full >= 2
    error_message = "Keep at least two full backups: with one, the only backup is gone while the next one runs."
  }
}

variable "backup_noncurrent_days" {
  description = "Days the bucket keeps an object pgBackRest (or someone) deleted or overwrote, before the lifecycle rule removes it for good."
  type        = number
  default     = 14
}

variable "backup_schedule" {
  description = "systemd OnCalendar expressions of the backup timers: full, incr (incremental) and verify."
  type = object({
    full   = string
    incr   = string
    verify = string
  })
  default = {
    full   = "Sun *-*-* 01:10:00"
    incr   = "*-*-* *:40:00"
    verify = "*-*-* 03:25:00"
  }
}

variable "monitoring_cidrs" {
  description = "CIDRs of the Prometheus servers that scrape Patroni (8008), the PostgreSQL exporter (9187) and the node exporter (9100) on each node. Empty: no scrape from outside the nodes."
  type        = list(string)
  default     = []
}
