variable "name_prefix" {
  description = "Prefix of the names of the network resources."
  type        = string
}

variable "vpc_cidr" {
  description = "IPv4 CIDR of the VPC, /16 to /20; each subnet is one sixteenth of it (a /20 of a /16)."
  type        = string

  validation {
    condition     = can(cidrhost(var.vpc_cidr, 0)) && try(tonumber(split("/", var.vpc_cidr)[1]) >= 16 && tonumber(split("/", var.vpc_cidr)[1]) <= 20, false)
    error_message = "The vpc_cidr must be an IPv4 CIDR with a prefix between /16 and /20."
  }
}

variable "single_az" {
  description = "true: placement_subnet_ids repeats the first private subnet three times so that every node lands in one zone."
  type        = bool
}

variable "internal_domain" {
  description = "Name of the private Route53 zone attached to the VPC."
  type        = string
}
