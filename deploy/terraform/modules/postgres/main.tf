# Three database nodes (a, b, c), one per placement subnet, each running
# PostgreSQL 15 under Patroni and one member of a three-member etcd cluster,
# all from Debian 12 packages. Every node has its own EBS data volume, a static
# private address (so that etcd and Patroni know their peers before any node
# exists) and a private DNS name <name>.<internal_domain>.

locals {
  node_names = ["a", "b", "c"]

  # Deterministic addresses: the 11th, 12th and 13th host of each node's subnet
  # (AWS reserves the first four), distinct even when single_az puts all three
  # nodes in one subnet.
  node_ips   = [for i, name in local.node_names : cidrhost(var.placement_subnet_cidrs[i], 10 + i)]
  node_hosts = [for name in local.node_names : "${name}.${var.internal_domain}"]

  etcd_initial_cluster = join(",", [for i, name in local.node_names : "${name}=http://${local.node_ips[i]}:${local.etcd_peer_port}"])
  etcd_endpoints       = join(",", [for ip in local.node_ips : "${ip}:${local.etcd_client_port}"])

  postgres_port    = 5432
  patroni_api_port = 8008
  etcd_client_port = 2379
  etcd_peer_port   = 2380
}

data "aws_region" "current" {}

# Debian 12 carries exactly the stack verified in deploy/local-cluster:
# postgresql-15, patroni 3.0.2 and etcd-server 3.4.
data "aws_ssm_parameter" "debian_ami" {
  name = "/aws/service/debian/release/12/latest/${var.arch == "arm64" ? "arm64" : "amd64"}"
}

# ---------------------------------------------------------------------------
# Security group: no inline rules; every rule is its own resource below.
# ---------------------------------------------------------------------------

resource "aws_security_group" "database" {
  name_prefix = "${var.name_prefix}-database-"
  description = "Database nodes: PostgreSQL from SyncApi, load generator and peers; Patroni API and etcd from peers only"
  vpc_id      = var.vpc_id

  tags = {
    Name = "${var.name_prefix}-database"
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "postgres_from_syncapi" {
  security_group_id            = aws_security_group.database.id
  description                  = "PostgreSQL from the SyncApi instances"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = var.syncapi_security_group_id
}

resource "aws_vpc_security_group_ingress_rule" "postgres_from_loadgen" {
  security_group_id            = aws_security_group.database.id
  description                  = "PostgreSQL from the load generator (seeding, raw database baseline runs)"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = var.loadgen_security_group_id
}

resource "aws_vpc_security_group_ingress_rule" "postgres_from_peers" {
  security_group_id            = aws_security_group.database.id
  description                  = "PostgreSQL between nodes: streaming replication, base backups, pg_rewind"
  ip_protocol                  = "tcp"
  from_port                    = 5432
  to_port                      = 5432
  referenced_security_group_id = aws_security_group.database.id
}

resource "aws_vpc_security_group_ingress_rule" "patroni_api_from_peers" {
  security_group_id            = aws_security_group.database.id
  description                  = "Patroni REST API between nodes"
  ip_protocol                  = "tcp"
  from_port                    = 8008
  to_port                      = 8008
  referenced_security_group_id = aws_security_group.database.id
}

resource "aws_vpc_security_group_ingress_rule" "etcd_from_peers" {
  security_group_id            = aws_security_group.database.id
  description                  = "etcd client (2379) and peer (2380) traffic between nodes"
  ip_protocol                  = "tcp"
  from_port                    = 2379
  to_port                      = 2380
  referenced_security_group_id = aws_security_group.database.id
}

# Monitoring: Prometheus (at monitoring_cidrs) scrapes each node's Patroni REST API (8008, /metrics),
# PostgreSQL exporter (9187) and node exporter (9100); docs/operations.md, "Alerts and runbooks".
resource "aws_vpc_security_group_ingress_rule" "metrics_from_monitoring" {
  for_each = { for pair in setproduct(var.monitoring_cidrs, [8008, 9100, 9187]) : "${pair[0]}:${pair[1]}" => pair }

  security_group_id = aws_security_group.database.id
  description       = "Prometheus scrapes of Patroni and the exporters"
  ip_protocol       = "tcp"
  from_port         = each.value[1]
  to_port           = each.value[1]
  cidr_ipv4         = each.value[0]
}

resource "aws_vpc_security_group_ingress_rule" "ssh_from_admin" {
  for_each = toset(var.admin_cidrs)

  security_group_id = aws_security_group.database.id
  description       = "SSH from an admin network"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = each.value
}

resource "aws_vpc_security_group_egress_rule" "all_outbound" {
  security_group_id = aws_security_group.database.id
  description       = "Outbound: peers, Debian mirrors, Secrets Manager (through the NAT gateway)"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
}

# ---------------------------------------------------------------------------
# IAM: the nodes may read exactly the three database passwords (and, in
# backup.tf, use the pgBackRest repository in the backup bucket).
# ---------------------------------------------------------------------------

data "aws_iam_policy_document" "assume_ec2" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

data "aws_iam_policy_document" "read_secrets" {
  statement {
    sid     = "ReadDatabasePasswords"
    actions = ["secretsmanager:GetSecretValue"]
    resources = [
      var.superuser_password_secret_arn,
      var.replication_password_secret_arn,
      var.app_password_secret_arn,
    ]
  }
}

resource "aws_iam_role" "node" {
  name_prefix        = "${var.name_prefix}-database-"
  description        = "Database nodes of ${var.name_prefix}: read the PostgreSQL passwords"
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
}

resource "aws_iam_role_policy" "read_secrets" {
  name   = "read-database-passwords"
  role   = aws_iam_role.node.id
  policy = data.aws_iam_policy_document.read_secrets.json
}

resource "aws_iam_instance_profile" "node" {
  name_prefix = "${var.name_prefix}-database-"
  role        = aws_iam_role.node.name
}

# ---------------------------------------------------------------------------
# Data volumes, nodes, attachments and private DNS names.
# ---------------------------------------------------------------------------

resource "aws_ebs_volume" "data" {
  count = length(local.node_names)

  availability_zone = var.placement_availability_zones[count.index]
  size              = var.data_volume_gb
  type              = var.data_volume_type
  iops              = var.data_volume_iops
  throughput        = var.data_volume_type == "gp3" ? var.data_volume_throughput : null
  encrypted         = true

  tags = {
    Name = "${var.name_prefix}-database-${local.node_names[count.index]}-data"
    Node = local.node_names[count.index]
  }

  lifecycle {
    precondition {
      condition     = var.data_volume_type != "gp3" || var.data_volume_iops <= 16000
      error_message = "gp3 volumes allow at most 16000 IOPS; use io2 for more."
    }
  }
}

data "cloudinit_config" "node" {
  count = length(local.node_names)

  gzip          = true
  base64_encode = true

  part {
    content_type = "text/cloud-config"
    filename     = "postgres-cloud-init.yaml"
    content = templatefile("${path.module}/templates/postgres-cloud-init.yaml.tftpl", {
      node_name                       = local.node_names[count.index]
      node_ip                         = local.node_ips[count.index]
      node_ips                        = local.node_ips
      cluster_name                    = var.cluster_name
      etcd_initial_cluster            = local.etcd_initial_cluster
      etcd_endpoints                  = local.etcd_endpoints
      client_cidr                     = var.client_cidr
      database_name                   = var.database_name
      app_user                        = var.app_user
      postgres_parameters             = var.postgres_parameters
      region                          = data.aws_region.current.name
      data_volume_device              = "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${replace(aws_ebs_volume.data[count.index].id, "-", "")}"
      superuser_password_secret_arn   = var.superuser_password_secret_arn
      replication_password_secret_arn = var.replication_password_secret_arn
      app_password_secret_arn         = var.app_password_secret_arn
      backup_bucket                   = aws_s3_bucket.backup.bucket
      backup_repo_path                = "/${local.backup_repo_path}"
      backup_retention_full           = var.backup_retention_full
      backup_schedule                 = var.backup_schedule
      archive_timeout_seconds         = var.archive_timeout_seconds
    })
  }
}

resource "aws_instance" "node" {
  count = length(local.node_names)

  ami                    = data.aws_ssm_parameter.debian_ami.value
  instance_type          = var.instance_type
  subnet_id              = var.placement_subnet_ids[count.index]
  private_ip             = local.node_ips[count.index]
  vpc_security_group_ids = [aws_security_group.database.id]
  iam_instance_profile   = aws_iam_instance_profile.node.name
  key_name               = var.ssh_key_name
  ebs_optimized          = true
  user_data_base64       = data.cloudinit_config.node[count.index].rendered

  metadata_options {
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  root_block_device {
    volume_type           = "gp3"
    volume_size           = var.root_volume_gb
    encrypted             = true
    delete_on_termination = true
  }

  tags = {
    Name = "${var.name_prefix}-database-${local.node_names[count.index]}"
    Node = local.node_names[count.index]
    Role = "database"
  }

  lifecycle {
    # A newer Debian image or an edited boot script must never replace a
    # database node by surprise: replace one node at a time on purpose with
    # `terraform apply -replace='module.postgres.aws_instance.node[N]'`
    # (docs/operations.md). The replacement keeps the node's address.
    ignore_changes = [ami, user_data_base64]

    precondition {
      condition     = length(var.placement_subnet_ids) == length(local.node_names)
      error_message = "placement_subnet_ids must hold exactly one subnet per node (three)."
    }
  }
}

resource "aws_volume_attachment" "data" {
  count = length(local.node_names)

  device_name                    = "/dev/sdf"
  volume_id                      = aws_ebs_volume.data[count.index].id
  instance_id                    = aws_instance.node[count.index].id
  stop_instance_before_detaching = true
}

resource "aws_route53_record" "node" {
  count = length(local.node_names)

  zone_id = var.private_zone_id
  name    = local.node_hosts[count.index]
  type    = "A"
  ttl     = 60
  records = [aws_instance.node[count.index].private_ip]
}
