#!/usr/bin/env python3
"""Draws the performance watch's history (watch-history.tsv) as one SVG: a panel per figure, with the
managed bytes allocated per request and the service's CPU per request (µs) by commit, in the order the
commits entered the history. A commit measured more than once shows its latest row. Standard library only.

    python3 load/bench/watch_plot.py load/bench/watch-history.tsv load/bench/watch-history.svg
"""
import csv
import sys
from html import escape

FIGURES = ["user", "highlights", "book", "push", "kobo"]
TITLES = {
    "user": "user by id (GET /v1/users/N)",
    "highlights": "highlights by user, first page",
    "book": "highlights by user and book, first page",
    "push": "push of 10 changes (POST /v1/users/N/changes)",
    "kobo": "Kobo library sync, first page",
}
SERIES = [("bytes_per_request", "bytes / request", "#1f77b4"), ("cpu_us_per_request", "CPU µs / request", "#d62728")]
PANEL_W, PANEL_H, CHART_H, MARGIN_L, MARGIN_R, TOP = 900, 265, 95, 80, 20, 30


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    commits = []
    latest = {}
    for row in rows:
        if row["commit"] not in commits:
            commits.append(row["commit"])
        latest[(row["figure"], row["commit"])] = row
    return commits, latest


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def chart(out, x0, y0, width, commits, values, label, color):
    """One line chart: values by commit index (None skipped), its own y scale from 0."""
    known = [v for v in values if v is not None]
    top = max(known) * 1.15 if known and max(known) > 0 else 1.0
    out.append(f'<rect x="{x0}" y="{y0}" width="{width}" height="{CHART_H}" fill="#fafafa" stroke="#ccc"/>')
    for fraction in (0, 0.5, 1):
        y = y0 + CHART_H - fraction * CHART_H
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + width}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{top * fraction:,.0f}</text>')
    out.append(f'<text x="{x0 + 6}" y="{y0 + 13}" font-size="11" fill="{color}">{escape(label)}</text>')
    step = width / max(1, len(commits))
    points = []
    for i, value in enumerate(values):
        if value is None:
            continue
        x = x0 + step * (i + 0.5)
        y = y0 + CHART_H - value / top * CHART_H
        points.append((x, y, value))
    if len(points) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
    for x, y, value in points:
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}"><title>{value:,.1f}</title></circle>')
        out.append(f'<text x="{x:.1f}" y="{y - 6:.1f}" text-anchor="middle" font-size="9" fill="{color}">{value:,.0f}</text>')


def draw(commits, latest):
    figures = [f for f in FIGURES if any((f, c) in latest for c in commits)]
    figures += sorted({f for f, _ in latest} - set(figures))
    height = TOP + PANEL_H * len(figures) + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{PANEL_W}" height="{height}" '
        f'viewBox="0 0 {PANEL_W} {height}" font-family="sans-serif">',
        f'<rect width="{PANEL_W}" height="{height}" fill="white"/>',
        '<text x="10" y="20" font-size="14" font-weight="bold">Performance watch: cost per request by commit '
        "(load/bench/watch.sh)</text>",
    ]
    width = PANEL_W - MARGIN_L - MARGIN_R
    step = width / max(1, len(commits))
    for n, figure in enumerate(figures):
        y0 = TOP + n * PANEL_H
        out.append(f'<text x="10" y="{y0 + 16}" font-size="13" font-weight="bold">{escape(TITLES.get(figure, figure))}</text>')
        for k, (column, label, color) in enumerate(SERIES):
            values = [number(latest[(figure, c)][column]) if (figure, c) in latest else None for c in commits]
            chart(out, MARGIN_L, y0 + 24 + k * (CHART_H + 8), width, commits, values, label, color)
        axis = y0 + 24 + 2 * (CHART_H + 8) + 12
        for i, commit in enumerate(commits):
            x = MARGIN_L + step * (i + 0.5)
            out.append(f'<text x="{x:.1f}" y="{axis}" text-anchor="middle" font-size="9" font-family="monospace">{escape(commit[:9])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    commits, latest = read(sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(draw(commits, latest))


if __name__ == "__main__":
    main()
