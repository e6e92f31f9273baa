output "node_names" {
  description = "Patroni and etcd member names of the nodes, in order."
  value       = local.node_names
}

output "node_hosts" {
  description = "Private DNS name of each node (a, b, c)."
  value       = local.node_hosts
}

output "private_ips" {
  description = "Static private IPv4 address of each node (a, b, c)."
  value       = local.node_ips
}

output "postgres_hosts" {
  description = "host:port of PostgreSQL on each node, in order: the host list of the service's multi-host connection strings."
  value       = [for ip in local.node_ips : "${ip}:${local.postgres_port}"]
}

output "database_name" {
  description = "Database of the service."
  value       = var.database_name
}

output "app_user" {
  description = "Login role of the service."
  value       = var.app_user
}

output "security_group_id" {
  description = "Security group of the database nodes."
  value       = aws_security_group.database.id
}

output "instance_ids" {
  description = "EC2 instance id of each node (a, b, c)."
  value       = aws_instance.node[*].id
}

output "data_volume_ids" {
  description = "EBS data volume id of each node (a, b, c)."
  value       = aws_ebs_volume.data[*].id
}

output "backup_bucket" {
  description = "S3 bucket of the pgBackRest repository (path backup_repo_path inside it)."
  value       = aws_s3_bucket.backup.bucket
}

output "backup_repo_path" {
  description = "pgBackRest's repo1-path inside the backup bucket."
  value       = "/${local.backup_repo_path}"
}
