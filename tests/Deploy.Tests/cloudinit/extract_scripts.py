"""Writes every shell script a rendered cloud-config installs (write_files with a shell shebang) into a folder.

usage: extract_scripts.py <rendered cloud-config> <output folder>
Prints one line per script written: <output path>\t<path on the instance>.
"""
import os
import sys

import yaml


def main() -> int:
    source, out_dir = sys.argv[1], sys.argv[2]
    with open(source, encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    os.makedirs(out_dir, exist_ok=True)
    for index, entry in enumerate(config.get("write_files") or []):
        content = entry.get("content") or ""
        if not content.startswith("#!") or "sh" not in content.splitlines()[0]:
            continue
        target = os.path.join(out_dir, f"{index:02d}-{os.path.basename(entry['path'])}")
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(content)
        print(f"{target}\t{entry['path']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
