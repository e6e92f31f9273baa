# The pgBackRest repository: one S3 bucket in the cluster's region. Every node
# archives its WAL there while it leads (archive_command) and the leader takes
# the scheduled backups (systemd timers in the boot script), so the archive
# follows the leader through a failover. pgBackRest expires backups and WAL by
# its own retention (repo1-retention-full); the lifecycle rule only cleans
# what pgBackRest cannot see: unfinished uploads and the versions it deleted.

locals {
  # pgBackRest's repo1-path, without its leading slash (as S3 keys and IAM see it).
  backup_repo_path = "pgbackrest/${var.cluster_name}"
}

resource "aws_s3_bucket" "backup" {
  bucket_prefix = "${var.name_prefix}-pgbackrest-"
  # A database's backups outlive a `terraform destroy` by mistake: emptying the
  # bucket is a deliberate step (docs/operations.md, "Backups and restore").
  force_destroy = false

  tags = {
    Name = "${var.name_prefix}-pgbackrest"
    Role = "database-backup"
  }
}

resource "aws_s3_bucket_public_access_block" "backup" {
  bucket = aws_s3_bucket.backup.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "backup" {
  bucket = aws_s3_bucket.backup.id

  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "backup" {
  bucket = aws_s3_bucket.backup.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

# Versioning keeps what a node (or an operator) deletes for
# backup_noncurrent_days: a repository emptied by mistake can be brought back.
resource "aws_s3_bucket_versioning" "backup" {
  bucket = aws_s3_bucket.backup.id

  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "backup" {
  bucket = aws_s3_bucket.backup.id

  rule {
    id     = "pgbackrest-housekeeping"
    status = "Enabled"

    filter {
      prefix = "${local.backup_repo_path}/"
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }

    noncurrent_version_expiration {
      noncurrent_days = var.backup_noncurrent_days
    }

    expiration {
      expired_object_delete_marker = true
    }
  }

  depends_on = [aws_s3_bucket_versioning.backup]
}

data "aws_iam_policy_document" "backup_bucket" {
  statement {
    sid     = "DenyPlainHttp"
    effect  = "Deny"
    actions = ["s3:*"]
    resources = [
      aws_s3_bucket.backup.arn,
      "${aws_s3_bucket.backup.arn}/*",
    ]

    principals {
      type        = "*"
      identifiers = ["*"]
    }

    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "backup" {
  bucket = aws_s3_bucket.backup.id
  policy = data.aws_iam_policy_document.backup_bucket.json

  depends_on = [aws_s3_bucket_public_access_block.backup]
}

# Least privilege for the database nodes: list the repository's prefix, and
# read, write and delete objects under it (pgBackRest deletes what its
# retention expires). Nothing else in the bucket, no other bucket, no bucket
# configuration.
data "aws_iam_policy_document" "backup_repository" {
  statement {
    sid       = "ListTheRepository"
    actions   = ["s3:ListBucket"]
    resources = [aws_s3_bucket.backup.arn]

    condition {
      test     = "StringLike"
      variable = "s3:prefix"
      values   = ["${local.backup_repo_path}/*", local.backup_repo_path, "${local.backup_repo_path}/"]
    }
  }

  statement {
    sid       = "ReadWriteTheRepository"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"]
    resources = ["${aws_s3_bucket.backup.arn}/${local.backup_repo_path}/*"]
  }
}

resource "aws_iam_role_policy" "backup_repository" {
  name   = "pgbackrest-repository"
  role   = aws_iam_role.node.id
  policy = data.aws_iam_policy_document.backup_repository.json
}
