# Three RavenDB nodes (A, B, C), each with its own EBS data volume and a private
# DNS name <tag>.<internal_domain>. Node A forms the secured cluster at boot and
# creates the kobo-sync database with replication factor 3.

locals {
  node_tags = ["A", "B", "C"]

  node_hosts = [for tag in local.node_tags : "${lower(tag)}.${var.internal_domain}"]
  node_urls  = [for host in local.node_hosts : "https://${host}:443"]

  ravendb_platform = var.arch == "arm64" ? "linux-arm64" : "linux-x64"
}

data "aws_region" "current" {}

data "aws_caller_identity" "current" {}

data "aws_partition" "current" {}

data "aws_ssm_parameter" "ubuntu_ami" {
  name = "/aws/service/canonical/ubuntu/server/24.04/stable/current/${var.arch == "arm64" ? "arm64" : "amd64"}/hvm/ebs-gp3/ami-id"
}

# ---------------------------------------------------------------------------
# Security group: no inline rules; every rule is its own resource below.
# ---------------------------------------------------------------------------

resource "aws_security_group" "ravendb" {
  name_prefix = "${var.name_prefix}-ravendb-"
  description = "RavenDB nodes: HTTPS from SyncApi, load generator and peers; cluster TCP from peers only"
  vpc_id      = var.vpc_id

  tags = {
    Name = "${var.name_prefix}-ravendb"
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "https_from_syncapi" {
  security_group_id            = aws_security_group.ravendb.id
  description                  = "RavenDB HTTPS from the SyncApi instances"
  ip_protocol                  = "tcp"
  from_port                    = 443
  to_port                      = 443
  referenced_security_group_id = var.syncapi_security_group_id
}

resource "aws_vpc_security_group_ingress_rule" "https_from_loadgen" {
  security_group_id            = aws_security_group.ravendb.id
  description                  = "RavenDB HTTPS from the load generator (raw database baseline runs)"
  ip_protocol                  = "tcp"
  from_port                    = 443
  to_port                      = 443
  referenced_security_group_id = var.loadgen_security_group_id
}

resource "aws_vpc_security_group_ingress_rule" "https_from_peers" {
  security_group_id            = aws_security_group.ravendb.id
  description                  = "RavenDB HTTPS between cluster nodes"
  ip_protocol                  = "tcp"
  from_port                    = 443
  to_port                      = 443
  referenced_security_group_id = aws_security_group.ravendb.id
}

resource "aws_vpc_security_group_ingress_rule" "cluster_tcp_from_peers" {
  security_group_id            = aws_security_group.ravendb.id
  description                  = "RavenDB cluster and replication TCP between nodes"
  ip_protocol                  = "tcp"
  from_port                    = 38888
  to_port                      = 38888
  referenced_security_group_id = aws_security_group.ravendb.id
}

resource "aws_vpc_security_group_ingress_rule" "ssh_from_admin" {
  for_each = toset(var.admin_cidrs)

  security_group_id = aws_security_group.ravendb.id
  description       = "SSH from an admin network"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = each.value
}

resource "aws_vpc_security_group_egress_rule" "all_outbound" {
  security_group_id = aws_security_group.ravendb.id
  description       = "Outbound: peers, package mirrors, RavenDB download, Secrets Manager (through the NAT gateway)"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
}

# ---------------------------------------------------------------------------
# IAM: the nodes may read exactly three secrets, plus one public parameter.
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
    sid     = "ReadRavenDbSecrets"
    actions = ["secretsmanager:GetSecretValue"]
    resources = [
      var.ravendb_license_secret_arn,
      var.ravendb_cluster_certificate_secret_arn,
      var.ravendb_admin_certificate_secret_arn,
    ]
  }
}

# Public half of the SyncApi client certificate (not a secret): node A reads it
# to register the certificate. The service's private key stays readable by the
# SyncApi instances only.
data "aws_iam_policy_document" "read_client_certificate_public" {
  statement {
    sid       = "ReadSyncApiClientCertificatePublicHalf"
    actions   = ["ssm:GetParameter"]
    resources = ["arn:${data.aws_partition.current.partition}:ssm:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:parameter/${trimprefix(var.syncapi_client_certificate_public_parameter, "/")}"]
  }
}

resource "aws_iam_role" "node" {
  name_prefix        = "${var.name_prefix}-ravendb-"
  description        = "RavenDB nodes of ${var.name_prefix}: read the license and certificate secrets"
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
}

resource "aws_iam_role_policy" "read_secrets" {
  name   = "read-ravendb-secrets"
  role   = aws_iam_role.node.id
  policy = data.aws_iam_policy_document.read_secrets.json
}

resource "aws_iam_role_policy" "read_client_certificate_public" {
  name   = "read-syncapi-client-certificate-public-half"
  role   = aws_iam_role.node.id
  policy = data.aws_iam_policy_document.read_client_certificate_public.json
}

resource "aws_iam_instance_profile" "node" {
  name_prefix = "${var.name_prefix}-ravendb-"
  role        = aws_iam_role.node.name
}

# ---------------------------------------------------------------------------
# Data volumes, nodes, attachments and private DNS names.
# ---------------------------------------------------------------------------

resource "aws_ebs_volume" "data" {
  count = length(local.node_tags)

  availability_zone = var.placement_availability_zones[count.index]
  size              = var.data_volume_gb
  type              = var.data_volume_type
  iops              = var.data_volume_iops
  throughput        = var.data_volume_type == "gp3" ? var.data_volume_throughput : null
  encrypted         = true

  tags = {
    Name = "${var.name_prefix}-ravendb-${lower(local.node_tags[count.index])}-data"
    Node = local.node_tags[count.index]
  }

  lifecycle {
    precondition {
      condition     = var.data_volume_type != "gp3" || var.data_volume_iops <= 16000
      error_message = "gp3 volumes allow at most 16000 IOPS; use io2 for more."
    }
  }
}

data "cloudinit_config" "node" {
  count = length(local.node_tags)

  gzip          = true
  base64_encode = true

  part {
    content_type = "text/cloud-config"
    filename     = "ravendb-cloud-init.yaml"
    content = templatefile("${path.module}/templates/ravendb-cloud-init.yaml.tftpl", {
      node_tag                       = local.node_tags[count.index]
      node_host                      = local.node_hosts[count.index]
      is_bootstrap_node              = count.index == 0
      node_tags                      = local.node_tags
      internal_domain                = var.internal_domain
      database_name                  = var.database_name
      ravendb_version                = var.ravendb_version
      ravendb_platform               = local.ravendb_platform
      region                         = data.aws_region.current.name
      data_volume_device             = "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${replace(aws_ebs_volume.data[count.index].id, "-", "")}"
      license_secret_arn             = var.ravendb_license_secret_arn
      cluster_certificate_secret_arn = var.ravendb_cluster_certificate_secret_arn
      admin_certificate_secret_arn   = var.ravendb_admin_certificate_secret_arn
      client_certificate_parameter   = var.syncapi_client_certificate_public_parameter
    })
  }
}

resource "aws_instance" "node" {
  count = length(local.node_tags)

  ami                    = data.aws_ssm_parameter.ubuntu_ami.value
  instance_type          = var.instance_type
  subnet_id              = var.placement_subnet_ids[count.index]
  vpc_security_group_ids = [aws_security_group.ravendb.id]
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
    Name = "${var.name_prefix}-ravendb-${lower(local.node_tags[count.index])}"
    Node = local.node_tags[count.index]
    Role = "ravendb"
  }

  lifecycle {
    # A newer Ubuntu image or an edited boot script must never replace a
    # database node by surprise: replace one node at a time on purpose with
    # `terraform apply -replace='module.ravendb.aws_instance.node[N]'`.
    ignore_changes = [ami, user_data_base64]

    precondition {
      condition     = length(var.placement_subnet_ids) == length(local.node_tags)
      error_message = "placement_subnet_ids must hold exactly one subnet per node (three)."
    }
  }
}

resource "aws_volume_attachment" "data" {
  count = length(local.node_tags)

  device_name                    = "/dev/sdf"
  volume_id                      = aws_ebs_volume.data[count.index].id
  instance_id                    = aws_instance.node[count.index].id
  stop_instance_before_detaching = true
}

resource "aws_route53_record" "node" {
  count = length(local.node_tags)

  zone_id = var.private_zone_id
  name    = local.node_hosts[count.index]
  type    = "A"
  ttl     = 60
  records = [aws_instance.node[count.index].private_ip]
}
