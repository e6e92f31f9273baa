output "public_ip" {
  description = "Public IPv4 address of the load generator (SSH through admin_cidrs)."
  value       = aws_instance.loadgen.public_ip
}

output "public_dns" {
  description = "Public DNS name of the load generator."
  value       = aws_instance.loadgen.public_dns
}

output "private_ip" {
  description = "Private IPv4 address of the load generator."
  value       = aws_instance.loadgen.private_ip
}

output "security_group_id" {
  description = "Security group of the load generator (trusted by the SyncApi and database tiers)."
  value       = aws_security_group.loadgen.id
}

output "availability_zone" {
  description = "Availability zone of the load generator (node A's zone)."
  value       = aws_instance.loadgen.availability_zone
}
