# Inputs of the Kobo.Sync deployment. Secrets never appear here: only the ARNs
# of Secrets Manager secrets that the instances read at boot through their IAM roles.

variable "profile" {
  description = "Hardware profile from profiles.tf: \"budget-arm\" (3 x r6g.large database nodes, arm64) or \"high-perf\" (3 x r6i.8xlarge database nodes and the published runs' m5a.8xlarge web machines)."
  type        = string

  validation {
    condition     = contains(["budget-arm", "high-perf"], var.profile)
    error_message = "The profile must be \"budget-arm\" or \"high-perf\" (see profiles.tf)."
  }
}

variable "region" {
  description = "AWS region to deploy into. The cost tables in deploy/README.md use us-east-1 prices."
  type        = string
  default     = "us-east-1"

  validation {
    condition     = can(regex("^[a-z]{2}(-[a-z]+)+-[0-9]$", var.region))
    error_message = "The region must be an AWS region name such as \"us-east-1\"."
  }
}

variable "name_prefix" {
  description = "Prefix of every resource name (load balancer, target groups, roles, instances). Lowercase letters, digits and dashes, at most 20 characters so that derived names stay within AWS limits."
  type        = string
  default     = "kobo-sync"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,19}$", var.name_prefix))
    error_message = "The name_prefix must start with a lowercase letter and hold 2 to 20 lowercase letters, digits or dashes."
  }
}

variable "single_az" {
  description = "false (default): the three database nodes are spread over three availability zones. true: all three nodes and the SyncApi instances go into the first zone, for parity with the published benchmark (no cross-zone latency, no zone resilience)."
  type        = bool
  default     = false
}

variable "vpc_cidr" {
  description = "IPv4 CIDR of the VPC. Each of the six subnets (three private, three public) is one sixteenth of it, a /20 of a /16; the prefix must be between /16 and /20."
  type        = string
  default     = "10.40.0.0/16"

  validation {
    condition     = can(cidrhost(var.vpc_cidr, 0)) && can(regex("^[0-9.]+/([0-9]+)$", var.vpc_cidr)) && try(tonumber(split("/", var.vpc_cidr)[1]) >= 16 && tonumber(split("/", var.vpc_cidr)[1]) <= 20, false)
    error_message = "The vpc_cidr must be an IPv4 CIDR with a prefix between /16 and /20, e.g. \"10.40.0.0/16\"."
  }
}

variable "admin_cidrs" {
  description = "CIDRs allowed to reach SSH (22) on the database nodes, the SyncApi instances and the load generator, e.g. your VPN range or your own /32. Empty (default) opens SSH to nobody."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.admin_cidrs : can(cidrhost(cidr, 0)) && !endswith(cidr, "/0")])
    error_message = "Every admin_cidrs entry must be a valid CIDR and none may be open to the whole internet (\"0.0.0.0/0\" or \"::/0\")."
  }
}

variable "monitoring_cidrs" {
  description = "CIDRs of the Prometheus servers allowed to scrape the database nodes: Patroni (8008), the PostgreSQL exporter (9187) and the node exporter (9100). Empty (default) opens them to nobody."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.monitoring_cidrs : can(cidrhost(cidr, 0)) && !endswith(cidr, "/0")])
    error_message = "Every monitoring_cidrs entry must be a valid CIDR and none may be open to the whole internet."
  }
}

variable "ssh_key_name" {
  description = "Name of an existing EC2 key pair installed on every instance for SSH through admin_cidrs. null (default) installs no key."
  type        = string
  default     = null
}

variable "postgres_superuser_password_secret_arn" {
  description = "ARN of the Secrets Manager secret whose SecretString is the password of the postgres superuser (at least 16 letters and digits). Read by the database nodes only."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", var.postgres_superuser_password_secret_arn))
    error_message = "The postgres_superuser_password_secret_arn must be the full ARN of a Secrets Manager secret (arn:aws:secretsmanager:REGION:ACCOUNT:secret:postgres_superuser_password_secret_arn-XXXXXX)."
  }
}

variable "postgres_replication_password_secret_arn" {
  description = "ARN of the Secrets Manager secret whose SecretString is the password of the replicator role the standbys stream with (at least 16 letters and digits). Read by the database nodes only."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", var.postgres_replication_password_secret_arn))
    error_message = "The postgres_replication_password_secret_arn must be the full ARN of a Secrets Manager secret (arn:aws:secretsmanager:REGION:ACCOUNT:secret:postgres_replication_password_secret_arn-XXXXXX)."
  }
}

variable "postgres_app_password_secret_arn" {
  description = "ARN of the Secrets Manager secret whose SecretString is the password of the service's role kobo (at least 16 letters and digits). Read by the database nodes (to set it) and the SyncApi instances (to connect)."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", var.postgres_app_password_secret_arn))
    error_message = "The postgres_app_password_secret_arn must be the full ARN of a Secrets Manager secret (arn:aws:secretsmanager:REGION:ACCOUNT:secret:postgres_app_password_secret_arn-XXXXXX)."
  }
}

variable "syncapi_image" {
  description = "Container image reference of the SyncApi service, e.g. \"123456789012.dkr.ecr.us-east-1.amazonaws.com/kobo-sync:1.0.0\". Images in this account's ECR are pulled with the instance role."
  type        = string

  validation {
    condition     = length(trimspace(var.syncapi_image)) > 0 && can(regex("^[^\\s]+$", var.syncapi_image))
    error_message = "The syncapi_image must be a non-empty image reference without spaces."
  }
}

variable "syncapi_signing_key_secret_arn" {
  description = "ARN of the Secrets Manager secret whose SecretString is the HS256 key device tokens are signed with (one line, at least 32 characters); passed to the service as Auth__SigningKey and used by the device simulator to mint tokens. Only the SyncApi instances can read it."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", var.syncapi_signing_key_secret_arn))
    error_message = "The syncapi_signing_key_secret_arn must be the full ARN of a Secrets Manager secret (arn:aws:secretsmanager:REGION:ACCOUNT:secret:syncapi_signing_key_secret_arn-XXXXXX)."
  }
}

variable "syncapi_cursor_key_secret_arn" {
  description = "ARN of the Secrets Manager secret whose SecretString is the key page cursors and sync tokens are signed with (one line, at least 32 characters); passed as Paging__CursorKey so that every instance accepts the cursors of the others. Only the SyncApi instances can read it."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$", var.syncapi_cursor_key_secret_arn))
    error_message = "The syncapi_cursor_key_secret_arn must be the full ARN of a Secrets Manager secret (arn:aws:secretsmanager:REGION:ACCOUNT:secret:syncapi_cursor_key_secret_arn-XXXXXX)."
  }
}

variable "lb_certificate_arn" {
  description = "ARN of the ACM certificate of the load balancer's HTTPS listener (the ALB serves gRPC only over HTTPS). It must cover service_hostname when that is set."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:acm:[a-z0-9-]+:[0-9]{12}:certificate/[A-Za-z0-9-]+$", var.lb_certificate_arn))
    error_message = "The lb_certificate_arn must be an ACM certificate ARN (arn:aws:acm:REGION:ACCOUNT:certificate/ID)."
  }
}

variable "service_hostname" {
  description = "Public host name of the service that the ACM certificate covers, e.g. \"sync.example.com\". Empty (default): endpoints use the load balancer's own DNS name (TLS name checks then fail unless the client skips them)."
  type        = string
  default     = ""

  validation {
    condition     = var.service_hostname == "" || can(regex("^([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)+[a-z]{2,}$", var.service_hostname))
    error_message = "The service_hostname must be empty or a lowercase DNS name such as \"sync.example.com\"."
  }
}

variable "public_zone_id" {
  description = "Route53 public hosted zone id in which to create the alias record for service_hostname. Empty (default): create no public record (manage DNS elsewhere)."
  type        = string
  default     = ""

  validation {
    condition     = var.public_zone_id == "" || can(regex("^Z[A-Z0-9]+$", var.public_zone_id))
    error_message = "The public_zone_id must be empty or a Route53 hosted zone id such as \"Z0123456789ABCDEFGHIJ\"."
  }
}

variable "internal_domain" {
  description = "Private Route53 zone of the VPC. The database nodes are a.<internal_domain>, b.<internal_domain> and c.<internal_domain>."
  type        = string
  default     = "kobo-sync.internal"

  validation {
    condition     = can(regex("^([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)+[a-z0-9]+$", var.internal_domain))
    error_message = "The internal_domain must be a lowercase DNS name such as \"kobo-sync.internal\"."
  }
}

variable "data_volume_type" {
  description = "EBS type of the database data volumes: \"gp3\" (default, enough for the workload) or \"io2\" (parity with the published benchmark's disks)."
  type        = string
  default     = "gp3"

  validation {
    condition     = contains(["gp3", "io2"], var.data_volume_type)
    error_message = "The data_volume_type must be \"gp3\" or \"io2\"."
  }
}

variable "data_volume_iops" {
  description = "Provisioned IOPS of each database data volume. null (default): the profile's (profiles.tf: 6000 for budget-arm, 16000 for high-perf, from docs/capacity.md). gp3 allows 3000 to 16000."
  type        = number
  default     = null

  validation {
    condition     = var.data_volume_iops == null || try(var.data_volume_iops >= 3000 && var.data_volume_iops <= 64000 && floor(var.data_volume_iops) == var.data_volume_iops, false)
    error_message = "The data_volume_iops must be a whole number between 3000 and 64000 (gp3 stops at 16000)."
  }
}

variable "data_volume_throughput" {
  description = "Throughput in MB/s of each gp3 data volume (ignored for io2). gp3 includes 125 MB/s; 250 gives index builds, base backups and new-device history pulls room."
  type        = number
  default     = 250

  validation {
    condition     = var.data_volume_throughput >= 125 && var.data_volume_throughput <= 1000
    error_message = "The data_volume_throughput must be between 125 and 1000 MB/s."
  }
}

variable "source_repository_url" {
  description = "Git URL of the Kobo.Sync repository, cloned to /opt/kobo-sync on the load generator at boot so the device simulator is ready to run. Empty (default): clone nothing."
  type        = string
  default     = ""

  validation {
    condition     = var.source_repository_url == "" || can(regex("^(https://|git@)[^\\s]+$", var.source_repository_url))
    error_message = "The source_repository_url must be empty or an https:// or git@ URL."
  }
}
