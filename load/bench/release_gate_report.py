#!/usr/bin/env python3
"""The release gate's summary (summary.md) and samples page (release-gate.html) from its results folder.

usage: release_gate_report.py OUT MERGE_EXIT VERIFY_EXIT

Reads OUT/merged/result.json (the merged shards), OUT/shard-*/result.json (each shard's generator),
OUT/verify.md, OUT/ledger/day-*.json, OUT/profile.json and OUT/samples/{service,postgres,cost}.tsv; writes
OUT/summary.md, OUT/cost.json (the cost per sync over the judged run), OUT/release-gate.html (no script,
no external resource: inline SVG) and each of its charts as OUT/plots/NAME.svg (the p99 of each 10-minute
window against the limit, the service's memory and threads, PostgreSQL's sizes and connections).
"""
import csv
import glob
import html
import json
import os
import sys

def windows(scenario, limit):
    """Each step's 10-minute windows as the gate judged them (the step itself when it fits in one)."""
    rows = []
    for step in scenario.get('steps', []):
        parts = step.get('windows') or [dict(step, window=0)]
        for w in parts:
            first, last = w['fromSecond'], w['toSecond']
            span = f"{first / 60:g}-{last / 60:g} min"
            rows.append((f"step {step['step'] + 1}, {span}", w['syncs'], w['failed'], w['p50'], w['p99'], w['max'], w['p99'] < limit))
    return rows


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [r for r in csv.DictReader(f, delimiter='\t') if r.get('epoch')]


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def svg_chart(title, series, unit, limit=None):
    """series: list of (label, [(x seconds, y)]); one polyline each, and a dashed line at limit when given. A
    standalone SVG document (it also stands inline in the HTML page)."""
    points = [p for _, s in series for p in s if p[1] is not None]
    if not points:
        return None
    w, h, pad, top = 720, 220, 50, 30
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y1 = max([p[1] for p in points] + ([limit] if limit else [])) or 1
    x1 = x1 if x1 > x0 else x0 + 1
    y = lambda v: h - (v / y1) * (h - top)
    colours = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b']
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h + 30}" role="img" aria-label="{html.escape(title)}">',
           f'<text x="{pad}" y="14" font-size="12" font-family="sans-serif">{html.escape(title)}</text>',
           f'<line x1="{pad}" y1="{h}" x2="{w - 10}" y2="{h}" stroke="#888"/><line x1="{pad}" y1="{top}" x2="{pad}" y2="{h}" stroke="#888"/>',
           f'<text x="{pad}" y="{h + 20}" font-size="11" font-family="sans-serif">{x0 / 60:.0f} min</text>'
           f'<text x="{w - 80}" y="{h + 20}" font-size="11" font-family="sans-serif">{x1 / 60:.0f} min</text>',
           f'<text x="2" y="{top + 4}" font-size="11" font-family="sans-serif">{y1:,.0f} {html.escape(unit)}</text>']
    if limit:
        out.append(f'<line x1="{pad}" y1="{y(limit):.1f}" x2="{w - 10}" y2="{y(limit):.1f}" stroke="#888" stroke-dasharray="4 3"/>'
                   f'<text x="{w - 150}" y="{y(limit) - 4:.1f}" font-size="11" font-family="sans-serif" fill="#555">limit {limit:g} {html.escape(unit)}</text>')
    for i, (label, s) in enumerate(series):
        pts = ' '.join(f"{pad + (x - x0) / (x1 - x0) * (w - pad - 10):.1f},{y(v):.1f}" for x, v in s if v is not None)
        out.append(f'<polyline fill="none" stroke="{colours[i % len(colours)]}" stroke-width="1.5" points="{pts}"/>')
        out.append(f'<text x="{pad + 10 + i * 130}" y="{h + 20}" font-size="11" font-family="sans-serif" fill="{colours[i % len(colours)]}">'
                   f'{html.escape(label)}</text>')
    out.append('</svg>')
    return ''.join(out)


def window_series(merged):
    """p99 per 10-minute window of each scenario, at the window's middle (seconds into the run)."""
    series = []
    for s in merged['scenarios']:
        points = [((w['fromSecond'] + w['toSecond']) / 2, w['p99'])
                  for step in s.get('steps', []) for w in (step.get('windows') or [dict(step, window=0)])]
        if points:
            series.append((s['name'].split('/')[-1] if '/' in s['name'] else s['name'], points))
    return series


# The cost per sync's figures: (key in cost.json, the label in summary.md, what it is read from in samples/cost.tsv)
CPU = [('service', 'service process', ['service_ticks']),
       ('postgres', 'PostgreSQL (the postmaster and all its children, exited ones included)', ['postgres_ticks']),
       ('generator', 'simulator shards (the load generator)', ['generator_ticks'])]
DATABASE = [('commits', 'commits (pg_stat_database.xact_commit, this database)', ['xact_commit']),
            ('writeTransactions', 'transactions that wrote (transaction ids taken: pg_snapshot_xmax(pg_current_snapshot()))', ['next_xid']),
            ('walBytes', 'WAL bytes (pg_stat_wal.wal_bytes, the server)', ['wal_bytes']),
            ('blocksRead', 'blocks read (pg_stat_database.blks_read, this database)', ['blks_read']),
            ('blocksHit', 'blocks hit (pg_stat_database.blks_hit, this database)', ['blks_hit']),
            ('blocksWritten', 'blocks written (pg_stat_bgwriter.buffers_checkpoint + buffers_clean + buffers_backend, the server)',
             ['buffers_checkpoint', 'buffers_clean', 'buffers_backend'])]


def cost(out, merged, verdict):
    """The cost per sync over the judged run, from samples/cost.tsv's two readings and the merged result:
    writes OUT/cost.json and returns the summary's section."""
    readings = {r['when']: r for r in read_tsv(os.path.join(out, 'samples', 'cost.tsv'))}
    before, after = readings.get('before'), readings.get('after')
    sessions = [s for s in merged['scenarios'] if '/' not in s['name']]
    syncs = sum(s['syncs'] for s in sessions)
    steps = {s['name']: s['attempts'] for s in merged['scenarios'] if '/' in s['name']}
    requests = sum(steps.values())
    try:
        profile = json.load(open(os.path.join(out, 'profile.json')))
        mix = next((s.get('mix') for s in profile['scenarios'] if s.get('read') == 'day'), None)
    except (OSError, ValueError, KeyError):
        mix = None

    def delta(columns):
        if not before or not after:
            return None
        values = [(num(before.get(c)), num(after.get(c))) for c in columns]
        if any(b is None or a is None for b, a in values):
            return None
        total = sum(a - b for b, a in values)
        return int(total) if total.is_integer() else total

    per = lambda v: v / syncs if v is not None and syncs else None
    ticks = num(after.get('clk_tck')) if after else None
    cpu = {k: (d / ticks if d is not None and ticks else None) for k, d in ((k, delta(c)) for k, _, c in CPU)}
    cpu['total'] = sum(cpu.values()) if all(v is not None for v in cpu.values()) else None
    database = {k: delta(c) for k, _, c in DATABASE}
    result = {
        'syncs': syncs,
        'verdict': verdict,
        'mix': mix,
        'p99Ms': sessions[0]['latency']['p99'] if len(sessions) == 1 else None,
        'seconds': (num(after['epoch']) - num(before['epoch'])) if before and after else None,
        'cpuSeconds': cpu,
        'cpuMicrosecondsPerSync': {k: (v * 1e6 / syncs if v is not None and syncs else None) for k, v in cpu.items()},
        'database': database,
        'databasePerSync': {k: per(v) for k, v in database.items()},
        'requests': requests,
        'requestsPerSync': per(requests),
        'requestsByStep': steps,
        'sources': dict([(k, label) for k, label, _ in CPU + DATABASE]
                        + [('requests', "the simulator's request steps' attempts (every request sent, retries included), merged result.json")]),
    }
    with open(os.path.join(out, 'cost.json'), 'w') as f:
        json.dump(result, f, indent=2)

    def fmt(v, digits=1):
        return '-' if v is None else f"{v:,.{digits}f}"
    lines = ["", "## Cost per sync", "",
             f"Over the judged run, from just before the shards started to just after the last ended "
             f"({fmt(result['seconds'])} s; not the registering or the warm-up): {syncs:,} syncs"
             + (", mix " + ', '.join(f"{k} {v:g} %" for k, v in mix.items()) if mix else '') + ". Also in cost.json.", ""]
    if cpu['service'] is None and cpu['postgres'] is None:
        lines += ["CPU of the service and PostgreSQL: not measured, a deployed target's processes are not on this machine "
                  "(PostgreSQL's statistics are read through --postgres).", ""]
    lines += ["| figure | over the run | per sync |", "|---|---|---|"]
    for key, label in [(k, l) for k, l, _ in CPU] + [('total', 'total')]:
        lines.append(f"| CPU, {label} | {fmt(cpu[key], 2)} s | {fmt(result['cpuMicrosecondsPerSync'][key])} µs |")
    for key, label, _ in DATABASE:
        lines.append(f"| {label} | {fmt(database[key], 0)} | {fmt(result['databasePerSync'][key], 2)} |")
    lines.append(f"| requests sent (every attempt, retries included) | {requests:,} | {fmt(result['requestsPerSync'], 2)} |")
    lines += ["", "Requests per sync by step: " + ', '.join(f"{k.split('/', 1)[1]} {v / syncs:.2f}" for k, v in steps.items() if syncs and v) + ". "
              "CPU is user + system time from /proc (the shards' includes their start and their unmeasured warm-up syncs); "
              "PostgreSQL's statistics are reported by each backend at most once a second, so about a second of work at "
              "each end crosses the window (the warm-up's last second, of the same mix at the same rate, in; the run's last out)."]
    return lines


def main():
    out, merge_code, verify_code = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    merged = json.load(open(os.path.join(out, 'merged', 'result.json')))
    limit = merged['thresholds']['p99Ms']
    shards = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, 'shard-*', 'result.json')))]
    days = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, 'ledger', 'day-*.json')))]
    verify = open(os.path.join(out, 'verify.md')).read().strip() if os.path.exists(os.path.join(out, 'verify.md')) else '(no check ran)'
    verdict = ('PASS' if merge_code == 0 and verify_code == 0
               else 'NOT PROVEN (the generator was saturated)' if merge_code == 4 and verify_code == 0 else 'FAIL')
    lines = [f"# Release gate: {verdict}", "",
             f"- started {merged['started']}, {merged['durationSeconds'] / 60:.1f} min, {len(shards)} shards; gate: {merged.get('verdictLine', merged['verdict'])}",
             f"- checks against the database: {verify.splitlines()[-1]}"]
    lines.append("")
    session = next((s for s in merged['scenarios'] if '/' not in s['name']), None)
    lines += ["## The run", "", "| scenario | syncs | syncs/s | requests retried | failed | p50 ms | p99 ms | p99.9 ms | max ms |", "|---|---|---|---|---|---|---|---|---|"]
    for s in merged['scenarios']:
        lat = s['latency']
        # A session's attempts are all its requests' (its pages included), so its retries are its requests' retries.
        retried = (sum(r['retries'] for r in merged['scenarios'] if r['name'].startswith(s['name'] + '/'))
                   if '/' not in s['name'] else s['retries'])
        lines.append(f"| {s['name']} | {s['syncs']:,} | {s['throughputPerSecond']:,.0f} | {retried:,} | {s['failed']:,} "
                     f"| {lat['p50']:.1f} | {lat['p99']:.1f} | {lat['p999']:.1f} | {lat['max']:.1f} |")
    if days:
        kinds = {}
        for d in days:
            for k, v in d['syncsByKind'].items():
                kinds[k] = kinds.get(k, 0) + v
        total = sum(kinds.values()) or 1
        lines += ["", "Syncs by kind: " + ', '.join(f"{k} {v:,} ({v / total:.2%})" for k, v in kinds.items())
                  + f"; scheduled pulls of users the run never wrote to that received changes: {sum(d['unexpectedChanges'] for d in days):,}"]
    if session:
        lines += ["", f"## p99 per 10-minute window ({session['name']} and its requests; limit {limit:g} ms, sessions {merged['thresholds'].get('sessionP99Ms') or limit:g} ms)", "",
                  "| scenario | window | syncs | failed | p50 ms | p99 ms | max ms | within the limit |", "|---|---|---|---|---|---|---|---|"]
        for s in merged['scenarios']:
            limit_of = merged['thresholds'].get('sessionP99Ms') if '/' not in s['name'] and merged['thresholds'].get('sessionP99Ms') else limit
            for w, syncs, failed, p50, p99, top, ok in windows(s, limit_of):
                lines.append(f"| {s['name']} | {w} | {syncs:,} | {failed:,} | {p50:.1f} | {p99:.1f} | {top:.1f} | {'yes' if ok else '**no**'} |")
    lines += cost(out, merged, verdict.split(' (')[0])
    lines += ["", "## The generator", "",
              "Saturated when, after its first second, it was behind (most of a second's dispatches late by over 20 ms) in at least 3 "
              "seconds and a tenth of those judged, or its CPU passed 85 % of the cores in at least 3 seconds and a tenth of them.", "",
              "| shard | syncs | CPU mean | CPU peak | dispatch lag p99 | seconds behind | late dispatches | seconds over 85 % CPU | saturated |",
              "|---|---|---|---|---|---|---|---|---|"]
    for i, sh in enumerate(shards, 1):
        g = sh['generator']
        v = g.get('verdict') or {}
        syncs = sum(s['syncs'] for s in sh['scenarios'] if '/' not in s['name'])
        behind = f"{v['behindSeconds']} of {v['judgedSeconds']}" if v else '-'
        late = f"{v['lateDispatches']:,} of {v['judgedDispatches']:,}" if v else '-'
        cpu_over = f"{v['cpuSecondsOver']} of {v['cpuSeconds']}" if v else '-'
        lines.append(f"| {i} | {syncs:,} | {g['cpuMean']:.1%} | {g['cpuPeak']:.1%} | {g['dispatchLagP99']} | {behind} | {late} | {cpu_over} | {g['saturated']} |")
    service = read_tsv(os.path.join(out, 'samples', 'service.tsv'))
    postgres = read_tsv(os.path.join(out, 'samples', 'postgres.tsv'))
    if service:
        def col(name):
            return [num(r[name]) for r in service if num(r[name]) is not None]
        lines += ["", "## The service over the run (every 10 s)", "", "| figure | first | last | max |", "|---|---|---|---|"]
        for name, label, scale in [('rss_bytes', 'resident memory MB', 1 / 1048576), ('gc_heap_bytes', 'GC heap after the last collection MB', 1 / 1048576),
                                   ('threads', 'threads', 1), ('thread_pool_threads', 'thread pool threads', 1), ('thread_pool_queue', 'thread pool queue', 1)]:
            c = col(name)
            if c:
                lines.append(f"| {label} | {c[0] * scale:,.1f} | {c[-1] * scale:,.1f} | {max(c) * scale:,.1f} |")
        c, p = col('gc_collections'), col('gc_pause_seconds')
        if len(c) > 1:
            lines.append(f"| GC collections over the run | | {c[-1] - c[0]:,.0f} | |")
        if len(p) > 1:
            lines.append(f"| GC pause over the run, s | | {p[-1] - p[0]:,.2f} | |")
    if postgres:
        lines += ["", "## PostgreSQL over the run (every 60 s)", "", "| table | table MB first | last | index MB first | last | rows first | last | dead rows max | autovacuums | autoanalyzes |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for table in sorted({r['table'] for r in postgres}):
            rs = [r for r in postgres if r['table'] == table]
            f, l = rs[0], rs[-1]
            lines.append(f"| {table} | {num(f['table_bytes']) / 1048576:,.0f} | {num(l['table_bytes']) / 1048576:,.0f} | {num(f['index_bytes']) / 1048576:,.0f} "
                         f"| {num(l['index_bytes']) / 1048576:,.0f} | {num(f['rows_estimate']):,.0f} | {num(l['rows_estimate']):,.0f} "
                         f"| {max(num(r['dead_rows']) for r in rs):,.0f} | {num(l['autovacuums']) - num(f['autovacuums']):,.0f} | {num(l['autoanalyzes']) - num(f['autoanalyzes']):,.0f} |")
        by_time = {}
        for r in postgres:
            by_time[r['epoch']] = (num(r['connections']), num(r['autovacuum_workers']))
        conns = [v[0] for v in by_time.values()]
        workers = [v[1] for v in by_time.values()]
        lines.append(f"\nClient connections: min {min(conns):.0f}, max {max(conns):.0f}; autovacuum workers running at a sample: max {max(workers):.0f}, "
                     f"in {sum(1 for w in workers if w):,} of {len(workers):,} samples.")
    lines += ["", "## Checks against the database", "", verify, ""]
    open(os.path.join(out, 'summary.md'), 'w').write('\n'.join(lines) + '\n')

    charts = [('p99-by-window', svg_chart("p99 per 10-minute window (ms): sessions and each kind of request, the requests' limit dashed", window_series(merged), 'ms', limit))]
    if service:
        t0 = num(service[0]['epoch'])
        s = lambda name, scale=1: [(num(r['epoch']) - t0, (num(r[name]) * scale) if num(r[name]) is not None else None) for r in service]
        charts.append(('service-memory', svg_chart('Service memory (MB)', [('resident', s('rss_bytes', 1 / 1048576)), ('GC heap', s('gc_heap_bytes', 1 / 1048576))], 'MB')))
        charts.append(('service-threads', svg_chart('Service threads', [('threads', s('threads')), ('thread pool', s('thread_pool_threads'))], '')))
    if postgres:
        t0 = num(postgres[0]['epoch'])
        tables = sorted({r['table'] for r in postgres})
        charts.append(('postgres-size', svg_chart('PostgreSQL table + index size (MB)', [(t, [(num(r['epoch']) - t0, (num(r['table_bytes']) + num(r['index_bytes'])) / 1048576)
                                                                           for r in postgres if r['table'] == t]) for t in tables], 'MB')))
        first = tables[0]
        charts.append(('postgres-connections', svg_chart('PostgreSQL connections and autovacuum workers', [
            ('client connections', [(num(r['epoch']) - t0, num(r['connections'])) for r in postgres if r['table'] == first]),
            ('autovacuum workers', [(num(r['epoch']) - t0, num(r['autovacuum_workers'])) for r in postgres if r['table'] == first])], '')))
    # Each chart also as a file of its own (OUT/plots/NAME.svg), for a report to show.
    os.makedirs(os.path.join(out, 'plots'), exist_ok=True)
    for name, chart in charts:
        if chart:
            open(os.path.join(out, 'plots', name + '.svg'), 'w').write(chart + '\n')
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Release gate: {html.escape(verdict)}</title></head>"
            f"<body style='font-family:sans-serif'><h1>Release gate: {html.escape(verdict)}</h1>"
            f"<p>Latency over time per shard, the steps and the gate's checks: <a href='report.html'>report.html</a>. Figures: <a href='summary.md'>summary.md</a>.</p>"
            + ''.join(f"<p>{chart}</p>" for _, chart in charts if chart) + f"<h2>Checks against the database</h2><pre>{html.escape(verify)}</pre></body></html>")
    open(os.path.join(out, 'release-gate.html'), 'w').write(page)


if __name__ == '__main__':
    main()
