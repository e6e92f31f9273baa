output "lb_dns_name" {
  description = "DNS name of the load balancer."
  value       = aws_lb.this.dns_name
}

output "rest_endpoint" {
  description = "Base URL of the REST API (HTTPS through the load balancer)."
  value       = "https://${local.public_host}"
}

output "grpc_endpoint" {
  description = "Address of the gRPC API (HTTPS, HTTP/2 through the load balancer)."
  value       = "https://${local.public_host}:443"
}

output "security_group_id" {
  description = "Security group of the SyncApi instances."
  value       = aws_security_group.syncapi.id
}

output "lb_security_group_id" {
  description = "Security group of the load balancer."
  value       = aws_security_group.lb.id
}

output "autoscaling_group_name" {
  description = "Name of the SyncApi auto scaling group."
  value       = aws_autoscaling_group.syncapi.name
}
