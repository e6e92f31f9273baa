# shellcheck shell=bash
# The large-data settings (deploy/postgres/large-data.conf and migration
# 0011_large_table_storage.sql) measured against their alternatives on the seeded data set, on the
# running server and without a restart: session settings, scratch copies of the users table and a
# scratch index, each dropped again. Sourced by load/bench/scale.sh for --only settings; uses its
# $pg, $bin, $out, $data_dir, $data_users and $settings_seconds (the length of each pgbench run).
# Writes $out/settings.md. shared_buffers needs a restart: it is measured by two scale.sh runs, one
# with --pg-set shared_buffers=128MB (docs/postgres.md).

thousands() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }
seconds() { awk -v ms="$1" 'BEGIN { printf "%.1f s", ms / 1000 }'; }

settings_sql() { PGOPTIONS="-c client_min_messages=warning" psql "$pg" -qXAt -v ON_ERROR_STOP=1 "$@"; }

# SQL: the plan's node lines (generic plan of the prepared statement, as the service runs it), one line
settings_plan() {
  settings_sql -c "$1" | grep -E 'Scan|Join|Nested Loop|Sort|Limit|Result' | sed -E 's/^[ ->]+//; s/  +/ /g; s/ \(.*//' | paste -sd '>' | sed 's/>/ > /g'
}

# SETUP STATEMENT: the milliseconds of STATEMENT, run alone after SETUP in the same session, timed by psql
settings_time() {
  settings_sql -c "$1" -c '\timing on' -c "$2" | awk '/^Time: / { printf "%.0f", $2; exit }'
}

settings_measure() {
  local md="$out/settings.md" heavy books book chosen_rpc chosen_ecs chosen_mwm
  read -r heavy _ books < <(grep -v '^#' "$data_dir/heaviest-$data_users.tsv" | head -1)
  book=${books%%,*}
  chosen_rpc=$(settings_sql -c "SHOW random_page_cost") chosen_ecs=$(settings_sql -c "SHOW effective_cache_size")
  chosen_mwm=$(settings_sql -c "SHOW maintenance_work_mem")
  {
    echo "## PostgreSQL settings against their alternatives ($(thousands "$data_users") users, the heaviest user $heavy)"
    echo
  } >"$md"

  # 1. random_page_cost and effective_cache_size decide the plans: the three reads' generic plans at
  #    PostgreSQL's defaults and at the chosen values.
  log "settings: plans of the three reads at the defaults and at random_page_cost=$chosen_rpc, effective_cache_size=$chosen_ecs"
  local prepare="SET plan_cache_mode = force_generic_plan;
    PREPARE find_user(bigint) AS SELECT name, country, created_at FROM users WHERE user_no = \$1;
    PREPARE list(bigint, text, text, int) AS SELECT h.id, h.book_no, h.text FROM users u LEFT JOIN LATERAL (
      SELECT id, book_no, text FROM highlights WHERE id > \$2 AND id < \$3 AND user_no + 0 = u.user_no AND deleted_at IS NULL
      ORDER BY id LIMIT \$4) h ON true WHERE u.user_no = \$1;"
  local -a names=("user by id" "highlights by user" "highlights by user and book")
  local -a runs=("EXECUTE find_user($heavy)" "EXECUTE list($heavy, 'highlights/users$heavy-', 'highlights/users$heavy.', 11)"
    "EXECUTE list($heavy, 'highlights/users$heavy-ebooks/$book/', 'highlights/users$heavy-ebooks/${book}0', 11)")
  {
    echo "### Plans (generic, as a prepared statement runs) at PostgreSQL's defaults and at the chosen settings"
    echo
    echo "| read | random_page_cost=4, effective_cache_size=4GB | random_page_cost=$chosen_rpc, effective_cache_size=$chosen_ecs | same |"
    echo "|---|---|---|---|"
  } >>"$md"
  local i defaults chosen
  for i in 0 1 2; do
    defaults=$(settings_plan "SET random_page_cost = 4; SET effective_cache_size = '4GB'; $prepare EXPLAIN (COSTS OFF) ${runs[$i]}")
    chosen=$(settings_plan "$prepare EXPLAIN (COSTS OFF) ${runs[$i]}")
    echo "| ${names[$i]} | $defaults | $chosen | $([ "$defaults" = "$chosen" ] && echo yes || echo no) |" >>"$md"
  done

  # 2. maintenance_work_mem: the pull's index on the largest table, built at the default and at the chosen size.
  log "settings: the index (user_no, seq, id) on highlights built with maintenance_work_mem 64MB and $chosen_mwm"
  local small large
  settings_sql -c "DROP INDEX IF EXISTS scale_settings_changes"
  small=$(settings_time "SET maintenance_work_mem = '64MB'" "CREATE INDEX scale_settings_changes ON highlights (user_no, seq, id)")
  settings_sql -c "DROP INDEX scale_settings_changes"
  large=$(settings_time "SELECT 1" "CREATE INDEX scale_settings_changes ON highlights (user_no, seq, id)")
  settings_sql -c "DROP INDEX scale_settings_changes"
  {
    echo
    echo "### maintenance_work_mem: building the pull's index on highlights ($(settings_sql -c "SELECT to_char(reltuples, 'FM999,999,999,999') FROM pg_class WHERE relname = 'highlights'") rows)"
    echo
    echo "| maintenance_work_mem | build |"
    echo "|---|---|"
    echo "| 64MB (default) | $(seconds "$small") |"
    echo "| $chosen_mwm | $(seconds "$large") |"
  } >>"$md"

  # 3. Fill factor of users: one push updates the user's counters (unindexed columns); the update is HOT
  #    only when the row's page has room. A million users (at most) copied at fill factor 100 and at 90,
  #    then a push's updates of random users from 8 clients.
  log "settings: users' fill factor 100 against 90 under the push's counter update"
  local copy ff script copied=$((data_users < 1000000 ? data_users : 1000000))
  script=$(mktemp)
  {
    echo
    echo "### users' fill factor: a push's two updates of its user's row, on $(thousands "$copied") users, 8 clients, $settings_seconds s"
    echo
    echo "| fill factor | row updates | HOT | table growth | primary key growth |"
    echo "|---|---|---|---|---|"
  } >>"$md"
  for ff in 100 90; do
    copy=scale_settings_users_$ff
    settings_sql -c "DROP TABLE IF EXISTS $copy" -c "CREATE TABLE $copy (LIKE users INCLUDING ALL) WITH (fillfactor = $ff)" \
      -c "INSERT INTO $copy SELECT * FROM users WHERE user_no <= $copied" -c "VACUUM ANALYZE $copy"
    # a push's two updates of its user's row, in one transaction: the change number, then the holdings
    printf '%s\n' "\\set u random(1, $copied)" 'BEGIN;' "UPDATE $copy SET change_seq = change_seq + 1 WHERE user_no = :u;" \
      "UPDATE $copy SET highlight_count = highlight_count + 1, highlight_bytes = highlight_bytes + 100 WHERE user_no = :u;" 'END;' >"$script"
    local before_heap before_index
    before_heap=$(settings_sql -c "SELECT pg_relation_size('$copy')") before_index=$(settings_sql -c "SELECT pg_relation_size('${copy}_pkey')")
    "$bin/pgbench" -n -M prepared -c 8 -j 2 -T "$settings_seconds" -f "$script" "$pg" >"$out/settings-ff$ff.log" 2>&1
    sleep 1 # the statistics of the last transactions
    settings_sql -c "SELECT '| $ff | ' || to_char(n_tup_upd, 'FM999,999,999') || ' | ' || round(100.0 * n_tup_hot_upd / greatest(n_tup_upd, 1), 1) || '% | ' ||
        round(100.0 * (pg_relation_size('$copy') - $before_heap) / $before_heap, 1) || '% | ' ||
        round(100.0 * (pg_relation_size('${copy}_pkey') - $before_index) / $before_index, 1) || '% |' FROM pg_stat_user_tables WHERE relname = '$copy'" >>"$md"
  done

  # 4. wal_compression: WAL bytes per update right after a checkpoint (every first change of a page
  #    writes its full image), off and on, twice each on the fill factor 90 copy.
  log "settings: WAL per update with wal_compression off and on"
  {
    echo
    echo "### wal_compression: WAL per push (its two updates of the user's row) after a checkpoint (8 clients, $settings_seconds s each, alternately)"
    echo
    echo "| wal_compression | pushes | WAL bytes per push |"
    echo "|---|---|---|"
  } >>"$md"
  local setting start_lsn updates
  for setting in off on off on; do
    settings_sql -c "CHECKPOINT"
    start_lsn=$(settings_sql -c "SELECT pg_current_wal_lsn()")
    PGOPTIONS="-c wal_compression=$setting" "$bin/pgbench" -n -M prepared -c 8 -j 2 -T "$settings_seconds" -f "$script" "$pg" >"$out/settings-wal-$setting.log" 2>&1
    updates=$(awk '/number of transactions actually processed/ { print $NF }' "$out/settings-wal-$setting.log" | cut -d/ -f1)
    settings_sql -c "SELECT '| $setting | ' || to_char($updates, 'FM999,999,999') || ' | ' || round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$start_lsn') / greatest($updates, 1)) || ' |'" >>"$md"
  done
  rm -f "$script"

  # 5. autovacuum_vacuum_cost_limit: the first vacuum of a freshly loaded copy of every user (it dirties
  #    every page), throttled as autovacuum throttles it (cost delay 2 ms), at the default limit and at the chosen one.
  log "settings: a vacuum throttled as autovacuum is, cost limit 200 against $(settings_sql -c "SHOW autovacuum_vacuum_cost_limit")"
  local limit vac ms
  {
    echo
    echo "### autovacuum_vacuum_cost_limit: the first vacuum of a fresh copy of the users table ($(settings_sql -c "SELECT pg_size_pretty(pg_relation_size('users'))")), throttled with a cost delay of 2 ms"
    echo
    echo "| cost limit | vacuum |"
    echo "|---|---|"
  } >>"$md"
  for limit in 200 "$(settings_sql -c "SHOW autovacuum_vacuum_cost_limit")"; do
    vac=scale_settings_vacuum_$limit
    settings_sql -c "DROP TABLE IF EXISTS $vac" -c "CREATE TABLE $vac WITH (autovacuum_enabled = off) AS SELECT * FROM users"
    ms=$(settings_time "SET vacuum_cost_delay = '2ms'; SET vacuum_cost_limit = $limit" "VACUUM $vac")
    echo "| $limit | $(seconds "$ms") |" >>"$md"
    settings_sql -c "DROP TABLE $vac"
  done

  # 6. track_io_timing: what one clock read costs on this machine (two per block read).
  {
    echo
    echo "### track_io_timing: the cost of a clock read here (pg_test_timing)"
    echo
    echo "$("$bin/pg_test_timing" -d 1 | grep -i 'per loop')"
    echo
    echo "### Checkpoints and WAL since this server was initialised"
    echo
    settings_sql -c "SELECT 'checkpoints: ' || checkpoints_timed || ' on time, ' || checkpoints_req || ' requested (max_wal_size reached, or a CHECKPOINT command: the settle step and the WAL measurement above issue some); ' ||
      'WAL written: ' || pg_size_pretty(w.wal_bytes) || ', ' || w.wal_fpi || ' full-page images' FROM pg_stat_bgwriter, pg_stat_wal w"
  } >>"$md"
  settings_sql -c "DROP TABLE scale_settings_users_100, scale_settings_users_90" # the WAL runs used the second
  cat "$md"
}
