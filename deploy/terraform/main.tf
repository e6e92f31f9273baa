# Kobo.Sync on AWS: network, a 3-node PostgreSQL 15 + Patroni + etcd cluster, the SyncApi tier
# behind a load balancer, and a load generator. Instance types and sizes come
# from the selected profile (profiles.tf).

module "network" {
  source = "./modules/network"

  name_prefix     = var.name_prefix
  vpc_cidr        = var.vpc_cidr
  single_az       = var.single_az
  internal_domain = var.internal_domain
}

module "postgres" {
  source = "./modules/postgres"

  name_prefix                  = var.name_prefix
  vpc_id                       = module.network.vpc_id
  placement_subnet_ids         = module.network.placement_subnet_ids
  placement_subnet_cidrs       = module.network.placement_subnet_cidrs
  placement_availability_zones = module.network.placement_availability_zones
  private_zone_id              = module.network.private_zone_id
  internal_domain              = var.internal_domain
  client_cidr                  = var.vpc_cidr

  instance_type          = local.selected.database_instance_type
  arch                   = local.selected.database_arch
  postgres_parameters    = local.postgres_parameters
  data_volume_gb         = local.selected.database_data_volume_gb
  data_volume_type       = var.data_volume_type
  data_volume_iops       = coalesce(var.data_volume_iops, local.selected.database_data_iops)
  data_volume_throughput = var.data_volume_throughput

  superuser_password_secret_arn   = var.postgres_superuser_password_secret_arn
  replication_password_secret_arn = var.postgres_replication_password_secret_arn
  app_password_secret_arn         = var.postgres_app_password_secret_arn

  syncapi_security_group_id = module.syncapi.security_group_id
  loadgen_security_group_id = module.loadgen.security_group_id
  admin_cidrs               = var.admin_cidrs
  monitoring_cidrs          = var.monitoring_cidrs
  ssh_key_name              = var.ssh_key_name
}

module "syncapi" {
  source = "./modules/syncapi"

  name_prefix         = var.name_prefix
  vpc_id              = module.network.vpc_id
  instance_subnet_ids = module.network.placement_subnet_ids
  lb_subnet_ids       = module.network.public_subnet_ids

  instance_type = local.selected.syncapi_instance_type
  arch          = local.selected.syncapi_arch
  min_size      = local.selected.syncapi_min_size
  max_size      = local.selected.syncapi_max_size
  desired_size  = local.selected.syncapi_desired_size

  image                   = var.syncapi_image
  app_password_secret_arn = var.postgres_app_password_secret_arn
  postgres_hosts          = module.postgres.postgres_hosts
  database_name           = module.postgres.database_name
  app_user                = module.postgres.app_user
  signing_key_secret_arn  = var.syncapi_signing_key_secret_arn
  cursor_key_secret_arn   = var.syncapi_cursor_key_secret_arn

  lb_certificate_arn = var.lb_certificate_arn
  service_hostname   = var.service_hostname
  public_zone_id     = var.public_zone_id

  loadgen_security_group_id = module.loadgen.security_group_id
  admin_cidrs               = var.admin_cidrs
  ssh_key_name              = var.ssh_key_name
}

module "loadgen" {
  source = "./modules/loadgen"

  name_prefix = var.name_prefix
  vpc_id      = module.network.vpc_id
  # Same zone as database node a, as in the published runs.
  subnet_id = module.network.public_subnet_ids_by_az[module.network.placement_availability_zones[0]]

  instance_type         = local.selected.loadgen_instance_type
  arch                  = local.selected.loadgen_arch
  source_repository_url = var.source_repository_url
  admin_cidrs           = var.admin_cidrs
  ssh_key_name          = var.ssh_key_name
}
