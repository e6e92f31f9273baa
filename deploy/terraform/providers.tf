provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Project   = "kobo-sync"
      Profile   = var.profile
      ManagedBy = "terraform"
    }
  }
}
