output "database_nodes" {
  description = "Private DNS name and static private IPv4 address of database nodes a, b and c (reachable inside the VPC only)."
  value       = zipmap(module.postgres.node_hosts, module.postgres.private_ips)
}

output "database_hosts" {
  description = "host:port of PostgreSQL on the three nodes: the host list of the service's two connection strings."
  value       = module.postgres.postgres_hosts
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

output "database_data_volume_ids" {
  description = "EBS data volume ids of database nodes a, b and c (snapshot them before a destroy to keep the seeded data set)."
  value       = module.postgres.data_volume_ids
}

output "backup_bucket" {
  description = "S3 bucket of the database's pgBackRest repository (pgbackrest info on any database node lists its backups)."
  value       = module.postgres.backup_bucket
}
