output "ravendb_node_urls" {
  description = "HTTPS URLs of RavenDB nodes A, B and C by private DNS name (reachable inside the VPC only)."
  value       = module.ravendb.node_urls
}

output "ravendb_private_ips" {
  description = "Private IPv4 addresses of RavenDB nodes A, B and C."
  value       = module.ravendb.private_ips
}

output "service_rest_endpoint" {
  description = "Base URL of the SyncApi REST API through the load balancer (HTTPS)."
  value       = module.syncapi.rest_endpoint
}

output "service_grpc_endpoint" {
  description = "Address of the SyncApi gRPC API through the load balancer (HTTPS, HTTP/2)."
  value       = module.syncapi.grpc_endpoint
}

output "lb_dns_name" {
  description = "DNS name of the load balancer (point service_hostname at it when DNS is managed elsewhere)."
  value       = module.syncapi.lb_dns_name
}

output "loadgen_address" {
  description = "Public and private address of the load generator, for SSH and for reading results."
  value = {
    public_ip  = module.loadgen.public_ip
    public_dns = module.loadgen.public_dns
    private_ip = module.loadgen.private_ip
  }
}

output "ravendb_data_volume_ids" {
  description = "EBS data volume ids of RavenDB nodes A, B and C (snapshot them before a destroy to keep the seeded data set)."
  value       = module.ravendb.data_volume_ids
}
