# The load generator: one x86_64 machine in a public subnet of node a's zone
# (parity with the published runs), with the .NET SDK, git and wrk installed so
# the device simulator can seed the database and run against the service.

data "aws_ssm_parameter" "ubuntu_ami" {
  name = "/aws/service/canonical/ubuntu/server/24.04/stable/current/${var.arch == "arm64" ? "arm64" : "amd64"}/hvm/ebs-gp3/ami-id"
}

resource "aws_security_group" "loadgen" {
  name_prefix = "${var.name_prefix}-loadgen-"
  description = "Load generator: SSH from admin networks only; outbound to anywhere"
  vpc_id      = var.vpc_id

  tags = {
    Name = "${var.name_prefix}-loadgen"
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "ssh_from_admin" {
  for_each = toset(var.admin_cidrs)

  security_group_id = aws_security_group.loadgen.id
  description       = "SSH from an admin network"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = each.value
}

resource "aws_vpc_security_group_egress_rule" "all_outbound" {
  security_group_id = aws_security_group.loadgen.id
  description       = "Outbound: the service endpoints, database nodes, package mirrors, NuGet, git"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_instance" "loadgen" {
  ami                         = data.aws_ssm_parameter.ubuntu_ami.value
  instance_type               = var.instance_type
  subnet_id                   = var.subnet_id
  vpc_security_group_ids      = [aws_security_group.loadgen.id]
  associate_public_ip_address = true
  key_name                    = var.ssh_key_name
  ebs_optimized               = true
  user_data_replace_on_change = true

  user_data = templatefile("${path.module}/templates/loadgen-cloud-init.yaml.tftpl", {
    source_repository_url = var.source_repository_url
  })

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
    Name = "${var.name_prefix}-loadgen"
    Role = "loadgen"
  }

  lifecycle {
    ignore_changes = [ami]
  }
}
