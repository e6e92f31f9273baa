output "node_tags" {
  description = "Cluster tags of the nodes, in order."
  value       = local.node_tags
}

output "node_urls" {
  description = "HTTPS URL of each node by its private DNS name (A, B, C)."
  value       = local.node_urls
}

output "security_group_id" {
  description = "Security group of the RavenDB nodes."
  value       = aws_security_group.ravendb.id
}

output "private_ips" {
  description = "Private IPv4 address of each node (A, B, C)."
  value       = aws_instance.node[*].private_ip
}

output "instance_ids" {
  description = "EC2 instance id of each node (A, B, C)."
  value       = aws_instance.node[*].id
}

output "data_volume_ids" {
  description = "EBS data volume id of each node (A, B, C)."
  value       = aws_ebs_volume.data[*].id
}
