variable "name_prefix" {
  description = "Prefix of the names of the RavenDB resources."
  type        = string
}

variable "vpc_id" {
  description = "Id of the VPC that holds the nodes."
  type        = string
}

variable "placement_subnet_ids" {
  description = "Private subnet of node A, B and C, in that order (three distinct subnets, or one subnet three times for a single-zone cluster)."
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
  description = "Name of the private zone; node URLs are https://<tag>.<internal_domain>:443."
  type        = string
}

variable "instance_type" {
  description = "EC2 instance type of each node (from the selected profile)."
  type        = string
}

variable "arch" {
  description = "CPU architecture of instance_type: \"arm64\" or \"x86_64\". Selects the Ubuntu image and the RavenDB tarball."
  type        = string

  validation {
    condition     = contains(["arm64", "x86_64"], var.arch)
    error_message = "The arch must be \"arm64\" or \"x86_64\"."
  }
}

variable "root_volume_gb" {
  description = "Size of each node's root volume in GB (OS, RavenDB binaries, logs)."
  type        = number
  default     = 30
}

variable "data_volume_gb" {
  description = "Size of each node's data volume in GB; every node holds the whole database."
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

variable "ravendb_version" {
  description = "Exact RavenDB server version to install, e.g. \"7.2.1\"."
  type        = string

  validation {
    condition     = can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+$", var.ravendb_version))
    error_message = "The ravendb_version must be MAJOR.MINOR.PATCH."
  }
}

variable "database_name" {
  description = "Name of the database that node A creates with replication factor 3."
  type        = string
  default     = "kobo-sync"
}

variable "ravendb_license_secret_arn" {
  description = "ARN of the secret holding the RavenDB license JSON."
  type        = string
}

variable "ravendb_cluster_certificate_secret_arn" {
  description = "ARN of the secret holding the base64 PFX of the cluster server certificate."
  type        = string
}

variable "ravendb_admin_certificate_secret_arn" {
  description = "ARN of the secret holding the base64 PFX of the admin client certificate."
  type        = string
}

variable "syncapi_client_certificate_public_parameter" {
  description = "Name of the SSM String parameter holding the base64 DER public half of the SyncApi client certificate; node A registers it with Admin access to the database."
  type        = string
}

variable "syncapi_security_group_id" {
  description = "Security group of the SyncApi instances, allowed to reach RavenDB HTTPS."
  type        = string
}

variable "loadgen_security_group_id" {
  description = "Security group of the load generator, allowed to reach RavenDB HTTPS for raw baseline runs."
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
