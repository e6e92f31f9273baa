"""Prints, as JSON, the YAML content of one file a rendered cloud-config writes (write_files).

usage: file_as_json.py <rendered cloud-config> <path on the instance>
Exits 1 when the cloud-config writes no such file.
"""
import json
import sys

import yaml


def main() -> int:
    source, wanted = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    for entry in config.get("write_files") or []:
        if entry.get("path") == wanted:
            print(json.dumps(yaml.safe_load(entry.get("content") or "")))
            return 0
    print(f"{wanted} is not written by {source}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
