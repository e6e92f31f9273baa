variable "name_prefix" {
  description = "Prefix of the names of the SyncApi resources (load balancer and target group names derive from it)."
  type        = string
}

variable "vpc_id" {
  description = "Id of the VPC."
  type        = string
}

variable "instance_subnet_ids" {
  description = "Private subnets of the SyncApi instances (duplicates are ignored, so a single-zone placement list works)."
  type        = list(string)

  validation {
    condition     = length(var.instance_subnet_ids) > 0
    error_message = "At least one private subnet is needed."
  }
}

variable "lb_subnet_ids" {
  description = "Public subnets of the load balancer, in at least two availability zones."
  type        = list(string)

  validation {
    condition     = length(var.lb_subnet_ids) >= 2
    error_message = "An application load balancer needs subnets in at least two availability zones."
  }
}

variable "instance_type" {
  description = "EC2 instance type of the SyncApi instances (from the selected profile)."
  type        = string
}

variable "arch" {
  description = "CPU architecture of instance_type: \"arm64\" or \"x86_64\"; the image must be built for it."
  type        = string

  validation {
    condition     = contains(["arm64", "x86_64"], var.arch)
    error_message = "The arch must be \"arm64\" or \"x86_64\"."
  }
}

variable "min_size" {
  description = "Minimum number of SyncApi instances."
  type        = number
}

variable "max_size" {
  description = "Maximum number of SyncApi instances."
  type        = number
}

variable "desired_size" {
  description = "Desired number of SyncApi instances."
  type        = number
}

variable "root_volume_gb" {
  description = "Root volume size of each SyncApi instance in GB (OS, Docker images, logs)."
  type        = number
  default     = 30
}

variable "image" {
  description = "Container image reference of the SyncApi service."
  type        = string

  validation {
    condition     = length(trimspace(var.image)) > 0
    error_message = "The image must not be empty."
  }
}

variable "app_password_secret_arn" {
  description = "ARN of the secret holding the database password of app_user; the only secret the instances can read. It is put into the connection strings at each start of the service, never into Terraform's text."
  type        = string
}

variable "postgres_hosts" {
  description = "host:port of PostgreSQL on the three database nodes: the host list of Storage__ConnectionString (primary) and Storage__ReadConnectionString (standbys first)."
  type        = list(string)

  validation {
    condition     = length(var.postgres_hosts) == 3
    error_message = "Exactly three database hosts are expected."
  }
}

variable "database_name" {
  description = "Database of the service."
  type        = string
}

variable "app_user" {
  description = "Login role of the service."
  type        = string
}

variable "signing_key_secret_arn" {
  description = "ARN of the secret holding the HS256 device-token key, passed as Auth__SigningKey at each start of the service."
  type        = string
}

variable "cursor_key_secret_arn" {
  description = "ARN of the secret holding the page-cursor key, passed as Paging__CursorKey at each start of the service."
  type        = string
}

variable "lb_certificate_arn" {
  description = "ACM certificate of the HTTPS listener."
  type        = string
}

variable "service_hostname" {
  description = "Public host name covered by the certificate; empty to use the load balancer's DNS name in the endpoints."
  type        = string
  default     = ""
}

variable "public_zone_id" {
  description = "Public Route53 zone for the service_hostname alias record; empty for none."
  type        = string
  default     = ""
}

variable "loadgen_security_group_id" {
  description = "Security group of the load generator, allowed to reach ports 5080 and 5081 directly."
  type        = string
}

variable "admin_cidrs" {
  description = "CIDRs allowed to SSH to the instances (one rule each); empty means none."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.admin_cidrs : !endswith(cidr, "/0")])
    error_message = "No admin CIDR may be open to the whole internet."
  }
}

variable "ssh_key_name" {
  description = "EC2 key pair installed on the instances, or null for none."
  type        = string
  default     = null
}
