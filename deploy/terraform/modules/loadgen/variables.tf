variable "name_prefix" {
  description = "Prefix of the names of the load generator resources."
  type        = string
}

variable "vpc_id" {
  description = "Id of the VPC."
  type        = string
}

variable "subnet_id" {
  description = "Public subnet of the load generator: the one in node a's availability zone."
  type        = string
}

variable "instance_type" {
  description = "EC2 instance type of the load generator (from the selected profile)."
  type        = string
}

variable "arch" {
  description = "CPU architecture of instance_type: \"x86_64\" (profiles) or \"arm64\"."
  type        = string

  validation {
    condition     = contains(["arm64", "x86_64"], var.arch)
    error_message = "The arch must be \"arm64\" or \"x86_64\"."
  }
}

variable "root_volume_gb" {
  description = "Root volume size in GB (SDK, repository, seeding files, load reports)."
  type        = number
  default     = 50
}

variable "source_repository_url" {
  description = "Git URL of the Kobo.Sync repository cloned to /opt/kobo-sync at boot; empty to clone nothing."
  type        = string
  default     = ""
}

variable "admin_cidrs" {
  description = "CIDRs allowed to SSH to the load generator (one rule each); empty means none."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.admin_cidrs : !endswith(cidr, "/0")])
    error_message = "No admin CIDR may be open to the whole internet."
  }
}

variable "ssh_key_name" {
  description = "EC2 key pair installed on the load generator, or null for none."
  type        = string
  default     = null
}
