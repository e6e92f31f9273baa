# shellcheck shell=bash
# Renders deploy/postgres/large-data.conf (the settings for data larger
# than memory, the embedded server's own) as "key=value" lines, exactly as the service does
# (LargeDataSettings): a value ending in % is that share of MemTotal divided by SERVERS, in whole MB.
# Sourced by deploy/local-cluster/cluster.sh and load/bench/scale.sh.

# postgres_large_data_settings [SERVERS]: prints key=value lines for one of SERVERS servers on this machine.
postgres_large_data_settings() {
  local conf
  conf="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/large-data.conf"
  awk -v servers="${1:-1}" -v memkb="$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)" '
    { sub(/#.*/, ""); gsub(/^[ \t]+|[ \t]+$/, "") }
    $0 == "" { next }
    {
      eq = index($0, "=")
      key = substr($0, 1, eq - 1); value = substr($0, eq + 1)
      gsub(/[ \t]+$/, "", key); gsub(/^[ \t]+/, "", value)
      if (value ~ /%$/) {
        mb = int(int(memkb * 1024 / servers / 1024 / 1024) * substr(value, 1, length(value) - 1) / 100)
        value = (mb < 1 ? 1 : mb) "MB"
      }
      print key "=" value
    }' "$conf"
}

# postgres_large_data_args [SERVERS]: the same settings as postgres "-c key=value" arguments, one per line pair.
postgres_large_data_args() {
  local line
  while IFS= read -r line; do printf -- '-c\n%s\n' "$line"; done < <(postgres_large_data_settings "${1:-1}")
}
