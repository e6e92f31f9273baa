# The SyncApi tier: an auto scaling group of Docker hosts running the service
# image behind an internet-facing application load balancer. REST (HTTP/1.1,
# port 5080) and gRPC (HTTP/2 cleartext, port 5081) share the HTTPS listener;
# the gRPC method paths are routed to their own target group.

locals {
  # One subnet per zone normally; a single zone when the cluster is single-AZ.
  instance_subnet_ids = distinct(var.instance_subnet_ids)

  public_host = var.service_hostname != "" ? var.service_hostname : aws_lb.this.dns_name

  image_registry = split("/", var.image)[0]
  image_from_ecr = can(regex("^[0-9]{12}\\.dkr\\.ecr\\.[a-z0-9-]+\\.amazonaws\\.com$", local.image_registry))
}

data "aws_region" "current" {}

# The load balancer's subnets: the instances believe X-Forwarded-For only from these addresses.
data "aws_subnet" "lb" {
  for_each = toset(var.lb_subnet_ids)
  id       = each.value
}

data "aws_ssm_parameter" "ubuntu_ami" {
  name = "/aws/service/canonical/ubuntu/server/24.04/stable/current/${var.arch == "arm64" ? "arm64" : "amd64"}/hvm/ebs-gp3/ami-id"
}

# ---------------------------------------------------------------------------
# Security groups: no inline rules; every rule is its own resource below.
# ---------------------------------------------------------------------------

resource "aws_security_group" "lb" {
  name_prefix = "${var.name_prefix}-lb-"
  description = "SyncApi load balancer: HTTPS and HTTP (redirect) from the internet"
  vpc_id      = var.vpc_id

  tags = {
    Name = "${var.name_prefix}-lb"
  }

  lifecycle {
    create_before_destroy = true
  }
}

# The only ingress open to the internet in the whole deployment.
resource "aws_vpc_security_group_ingress_rule" "lb_https_from_internet" {
  security_group_id = aws_security_group.lb.id
  description       = "HTTPS (REST and gRPC) from devices"
  ip_protocol       = "tcp"
  from_port         = 443
  to_port           = 443
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_vpc_security_group_ingress_rule" "lb_http_from_internet" {
  security_group_id = aws_security_group.lb.id
  description       = "HTTP from devices, redirected to HTTPS"
  ip_protocol       = "tcp"
  from_port         = 80
  to_port           = 80
  cidr_ipv4         = "0.0.0.0/0"
}

resource "aws_vpc_security_group_egress_rule" "lb_rest_to_instances" {
  security_group_id            = aws_security_group.lb.id
  description                  = "REST traffic and health checks to the SyncApi instances"
  ip_protocol                  = "tcp"
  from_port                    = 5080
  to_port                      = 5080
  referenced_security_group_id = aws_security_group.syncapi.id
}

resource "aws_vpc_security_group_egress_rule" "lb_grpc_to_instances" {
  security_group_id            = aws_security_group.lb.id
  description                  = "gRPC traffic and health checks to the SyncApi instances"
  ip_protocol                  = "tcp"
  from_port                    = 5081
  to_port                      = 5081
  referenced_security_group_id = aws_security_group.syncapi.id
}

resource "aws_security_group" "syncapi" {
  name_prefix = "${var.name_prefix}-syncapi-"
  description = "SyncApi instances: REST and gRPC from the load balancer and the load generator only"
  vpc_id      = var.vpc_id

  tags = {
    Name = "${var.name_prefix}-syncapi"
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "rest_from_lb" {
  security_group_id            = aws_security_group.syncapi.id
  description                  = "REST (HTTP/1.1) from the load balancer"
  ip_protocol                  = "tcp"
  from_port                    = 5080
  to_port                      = 5080
  referenced_security_group_id = aws_security_group.lb.id
}

resource "aws_vpc_security_group_ingress_rule" "grpc_from_lb" {
  security_group_id            = aws_security_group.syncapi.id
  description                  = "gRPC (HTTP/2 cleartext) from the load balancer"
  ip_protocol                  = "tcp"
  from_port                    = 5081
  to_port                      = 5081
  referenced_security_group_id = aws_security_group.lb.id
}

resource "aws_vpc_security_group_ingress_rule" "rest_from_loadgen" {
  security_group_id            = aws_security_group.syncapi.id
  description                  = "REST from the load generator (direct runs without the load balancer)"
  ip_protocol                  = "tcp"
  from_port                    = 5080
  to_port                      = 5080
  referenced_security_group_id = var.loadgen_security_group_id
}

resource "aws_vpc_security_group_ingress_rule" "grpc_from_loadgen" {
  security_group_id            = aws_security_group.syncapi.id
  description                  = "gRPC from the load generator (direct runs without the load balancer)"
  ip_protocol                  = "tcp"
  from_port                    = 5081
  to_port                      = 5081
  referenced_security_group_id = var.loadgen_security_group_id
}

resource "aws_vpc_security_group_ingress_rule" "ssh_from_admin" {
  for_each = toset(var.admin_cidrs)

  security_group_id = aws_security_group.syncapi.id
  description       = "SSH from an admin network"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = each.value
}

resource "aws_vpc_security_group_egress_rule" "syncapi_all_outbound" {
  security_group_id = aws_security_group.syncapi.id
  description       = "Outbound: database nodes, image registry, Secrets Manager"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
}

# ---------------------------------------------------------------------------
# IAM: the instances may read the service's three secrets (database password,
# token key, cursor key) and nothing else (plus read-only image pulls when the
# image lives in this account's ECR).
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

data "aws_iam_policy_document" "read_service_secrets" {
  statement {
    sid     = "ReadServiceSecrets"
    actions = ["secretsmanager:GetSecretValue"]
    resources = [
      var.app_password_secret_arn,
      var.signing_key_secret_arn,
      var.cursor_key_secret_arn,
    ]
  }
}

resource "aws_iam_role" "syncapi" {
  name_prefix        = "${var.name_prefix}-syncapi-"
  description        = "SyncApi instances of ${var.name_prefix}: read the service's secrets"
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
}

resource "aws_iam_role_policy" "read_service_secrets" {
  name   = "read-syncapi-secrets"
  role   = aws_iam_role.syncapi.id
  policy = data.aws_iam_policy_document.read_service_secrets.json
}

resource "aws_iam_role_policy_attachment" "ecr_read_only" {
  count = local.image_from_ecr ? 1 : 0

  role       = aws_iam_role.syncapi.name
  policy_arn = "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly"
}

resource "aws_iam_instance_profile" "syncapi" {
  name_prefix = "${var.name_prefix}-syncapi-"
  role        = aws_iam_role.syncapi.name
}

# ---------------------------------------------------------------------------
# Launch template and auto scaling group.
# ---------------------------------------------------------------------------

data "cloudinit_config" "syncapi" {
  gzip          = true
  base64_encode = true

  part {
    content_type = "text/cloud-config"
    filename     = "syncapi-cloud-init.yaml"
    content = templatefile("${path.module}/templates/syncapi-cloud-init.yaml.tftpl", {
      image                   = var.image
      image_registry          = local.image_registry
      image_from_ecr          = local.image_from_ecr
      region                  = data.aws_region.current.name
      app_password_secret_arn = var.app_password_secret_arn
      postgres_hosts          = var.postgres_hosts
      database_name           = var.database_name
      app_user                = var.app_user
      signing_key_secret_arn  = var.signing_key_secret_arn
      cursor_key_secret_arn   = var.cursor_key_secret_arn
      lb_subnet_cidrs         = sort(distinct([for subnet in data.aws_subnet.lb : subnet.cidr_block]))
      instances               = var.max_size
    })
  }
}

resource "aws_launch_template" "syncapi" {
  name_prefix            = "${var.name_prefix}-syncapi-"
  description            = "Kobo.Sync SyncApi Docker host"
  image_id               = data.aws_ssm_parameter.ubuntu_ami.value
  instance_type          = var.instance_type
  key_name               = var.ssh_key_name
  vpc_security_group_ids = [aws_security_group.syncapi.id]
  user_data              = data.cloudinit_config.syncapi.rendered
  update_default_version = true
  ebs_optimized          = true

  iam_instance_profile {
    arn = aws_iam_instance_profile.syncapi.arn
  }

  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  block_device_mappings {
    device_name = "/dev/sda1"

    ebs {
      volume_type           = "gp3"
      volume_size           = var.root_volume_gb
      encrypted             = true
      delete_on_termination = true
    }
  }

  tag_specifications {
    resource_type = "instance"

    tags = {
      Name = "${var.name_prefix}-syncapi"
      Role = "syncapi"
    }
  }

  tag_specifications {
    resource_type = "volume"

    tags = {
      Name = "${var.name_prefix}-syncapi"
    }
  }
}

resource "aws_autoscaling_group" "syncapi" {
  name_prefix               = "${var.name_prefix}-syncapi-"
  vpc_zone_identifier       = local.instance_subnet_ids
  min_size                  = var.min_size
  max_size                  = var.max_size
  desired_capacity          = var.desired_size
  health_check_type         = "ELB"
  health_check_grace_period = 300
  target_group_arns         = [aws_lb_target_group.rest.arn, aws_lb_target_group.grpc.arn]

  launch_template {
    id      = aws_launch_template.syncapi.id
    version = aws_launch_template.syncapi.latest_version
  }

  instance_refresh {
    strategy = "Rolling"

    preferences {
      min_healthy_percentage = 50
    }
  }

  tag {
    key                 = "Name"
    value               = "${var.name_prefix}-syncapi"
    propagate_at_launch = true
  }

  lifecycle {
    precondition {
      condition     = var.min_size <= var.desired_size && var.desired_size <= var.max_size
      error_message = "The SyncApi sizes must satisfy min_size <= desired_size <= max_size."
    }
  }
}

# ---------------------------------------------------------------------------
# Load balancer, target groups, listeners.
# ---------------------------------------------------------------------------

resource "aws_lb" "this" {
  name                       = "${var.name_prefix}-alb"
  load_balancer_type         = "application"
  internal                   = false
  subnets                    = var.lb_subnet_ids
  security_groups            = [aws_security_group.lb.id]
  drop_invalid_header_fields = true
  # The device's address is appended to X-Forwarded-For; the instances read that last entry only.
  xff_header_processing_mode = "append"
  # Above the longest REST live pull (wait=60 sends nothing until it answers); gRPC watches send
  # heartbeats (docs/operations.md, "Live pull").
  idle_timeout = 75
}

resource "aws_lb_target_group" "rest" {
  name                 = "${var.name_prefix}-rest"
  vpc_id               = var.vpc_id
  target_type          = "instance"
  port                 = 5080
  protocol             = "HTTP"
  protocol_version     = "HTTP1"
  deregistration_delay = 30

  health_check {
    path                = "/healthz/ready"
    protocol            = "HTTP"
    matcher             = "200"
    interval            = 10
    timeout             = 5
    healthy_threshold   = 2
    unhealthy_threshold = 3
  }
}

resource "aws_lb_target_group" "grpc" {
  name                 = "${var.name_prefix}-grpc"
  vpc_id               = var.vpc_id
  target_type          = "instance"
  port                 = 5081
  protocol             = "HTTP"
  protocol_version     = "GRPC"
  deregistration_delay = 30

  health_check {
    path                = "/grpc.health.v1.Health/Check"
    protocol            = "HTTP"
    matcher             = "0"
    interval            = 10
    timeout             = 5
    healthy_threshold   = 2
    unhealthy_threshold = 3
  }
}

resource "aws_lb_listener" "https" {
  load_balancer_arn = aws_lb.this.arn
  port              = 443
  protocol          = "HTTPS"
  ssl_policy        = "ELBSecurityPolicy-TLS13-1-2-2021-06"
  certificate_arn   = var.lb_certificate_arn

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.rest.arn
  }
}

resource "aws_lb_listener_rule" "grpc" {
  listener_arn = aws_lb_listener.https.arn
  priority     = 10

  action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.grpc.arn
  }

  condition {
    path_pattern {
      values = ["/kobo.sync.v1.SyncService/*", "/grpc.health.v1.Health/*"]
    }
  }
}

# /metrics shares the REST port and needs no token (it shows the database nodes' addresses):
# the internet gets a 404; Prometheus scrapes each instance's private address on 5080.
resource "aws_lb_listener_rule" "metrics_not_public" {
  listener_arn = aws_lb_listener.https.arn
  priority     = 5

  action {
    type = "fixed-response"

    fixed_response {
      content_type = "text/plain"
      message_body = "Not Found"
      status_code  = "404"
    }
  }

  condition {
    path_pattern {
      values = ["/metrics", "/metrics/*"]
    }
  }
}

resource "aws_lb_listener" "http_redirect" {
  load_balancer_arn = aws_lb.this.arn
  port              = 80
  protocol          = "HTTP"

  default_action {
    type = "redirect"

    redirect {
      protocol    = "HTTPS"
      port        = "443"
      status_code = "HTTP_301"
    }
  }
}

resource "aws_route53_record" "service" {
  count = var.service_hostname != "" && var.public_zone_id != "" ? 1 : 0

  zone_id = var.public_zone_id
  name    = var.service_hostname
  type    = "A"

  alias {
    name                   = aws_lb.this.dns_name
    zone_id                = aws_lb.this.zone_id
    evaluate_target_health = true
  }
}
