output "vpc_id" {
  description = "Id of the VPC."
  value       = aws_vpc.this.id
}

output "availability_zones" {
  description = "The three availability zones in use, in subnet order."
  value       = local.azs
}

output "private_subnet_ids" {
  description = "Private subnet ids, one per availability zone, in zone order."
  value       = aws_subnet.private[*].id
}

output "public_subnet_ids" {
  description = "Public subnet ids, one per availability zone, in zone order."
  value       = aws_subnet.public[*].id
}

output "private_subnet_ids_by_az" {
  description = "Private subnet id keyed by availability zone name."
  value       = { for s in aws_subnet.private : s.availability_zone => s.id }
}

output "public_subnet_ids_by_az" {
  description = "Public subnet id keyed by availability zone name."
  value       = { for s in aws_subnet.public : s.availability_zone => s.id }
}

output "placement_subnet_ids" {
  description = "Subnets for database nodes a, b and c: three distinct private subnets, or the first private subnet three times when single_az is true."
  value       = var.single_az ? [for i in range(3) : aws_subnet.private[0].id] : aws_subnet.private[*].id
}

output "placement_subnet_cidrs" {
  description = "CIDR of each entry of placement_subnet_ids, in the same order (the database nodes take fixed addresses in them)."
  value       = var.single_az ? [for i in range(3) : aws_subnet.private[0].cidr_block] : aws_subnet.private[*].cidr_block
}

output "placement_availability_zones" {
  description = "Availability zone of each entry of placement_subnet_ids (node a is always in the first zone)."
  value       = var.single_az ? [for i in range(3) : local.azs[0]] : local.azs
}

output "private_zone_id" {
  description = "Id of the private Route53 zone named internal_domain."
  value       = aws_route53_zone.internal.zone_id
}

output "private_zone_name" {
  description = "Name of the private Route53 zone."
  value       = aws_route53_zone.internal.name
}
