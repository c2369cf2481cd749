#!/usr/bin/env python3
"""SVG plots of two benchmarks' output, with nothing but the standard library.

    python3 bench/plot.py sampling OUT.svg LABEL=FILE [LABEL=FILE ...]
        FILE: what bench_sampling (C) or `bench.py --sampling-only` (Python)
        printed. One panel per FILE: samples per second of each row of its
        "| sampled | samples |" table, a bar, and its distinct ns values, a
        tick; the anchors (rows that are not a monostamp clock) in grey.
    python3 bench/plot.py sleep OUT.svg CSV
        CSV: bench_sleep's MONOSTAMP_SLEEP_CSV. Mean and p99 lateness per
        method against the requested length, both axes logarithmic.

bench/plots.sh runs the benchmarks and both plots in one command.
"""
import csv
import math
import re
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

FONT = 'font-family="sans-serif" font-size="12"'
COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#ff7f0e", "#7f7f7f"]


def svg(width, height, body):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d">\n<rect width="100%%" height="100%%" fill="white"/>\n%s</svg>\n'
            % (width, height, width, height, "".join(body)))


def text(x, y, s, anchor="start", extra=""):
    return '<text x="%.1f" y="%.1f" text-anchor="%s" %s %s>%s</text>\n' % (
        x, y, anchor, FONT, extra, escape(s))


def log_ticks(lo, hi):
    """Powers of ten from lo to hi, both rounded outwards."""
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def si(v):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return "%g%s" % (v / scale, unit)
    return "%g" % v


# ---------------------------------------------------------------- sampling

def sampling_rows(path):
    """(name, samples, distinct ns) of the first sampling table in path."""
    rows, inside = [], False
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| sampled | samples |"):
            inside = True
        elif inside and line.startswith("|---"):
            continue
        elif inside and line.startswith("|") and len(cells) >= 3:
            if cells[1] != "failed":
                rows.append((cells[0], float(cells[1]), float(cells[2])))
        elif inside:
            break
    if not rows:
        raise SystemExit("plot: no '| sampled | samples |' table in %s" % path)
    return rows


def is_anchor(name):
    return not re.match(r"(monostamp_now|Clock\(|c:time_ns)", name)


def plot_sampling(panels):
    rows_of = [(label, sampling_rows(path)) for label, path in panels]
    values = [v for _, rows in rows_of for r in rows for v in r[1:] if v > 0]
    ticks = log_ticks(min(values), max(values))
    # Room for the longest name at about 6.7 px a character of 12 px sans-serif.
    longest = max(len(r[0]) for _, rows in rows_of for r in rows)
    left, right, bar_h, gap = 20 + int(6.7 * longest), 40, 14, 6
    plot_w = 420
    width = left + plot_w + right

    def x(v):
        lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])
        return left + (math.log10(max(v, ticks[0])) - lo) / (hi - lo) * plot_w

    body, y = [], 30
    body.append(text(width / 2, 20, "Stamps per second (bar) and distinct ns values in it "
                     "(tick); grey: the anchors", "middle", 'font-weight="bold"'))
    for label, rows in rows_of:
        y += 20
        body.append(text(10, y, label, extra='font-weight="bold"'))
        top, bottom = y + 8, y + len(rows) * (bar_h + gap) + 6
        for t in ticks:  # the grid first, under the bars
            body.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#dddddd"/>\n'
                        % (x(t), x(t), top, bottom))
        for name, samples, distinct in rows:
            y += bar_h + gap
            colour = "#999999" if is_anchor(name) else "#1f77b4"
            body.append(text(left - 8, y, name, "end"))
            body.append('<rect x="%d" y="%.1f" width="%.1f" height="%d" fill="%s"/>\n'
                        % (left, y - bar_h + 3, x(samples) - left, bar_h, colour))
            body.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#d62728" '
                        'stroke-width="3"/>\n' % (x(distinct), x(distinct), y - bar_h + 1, y + 5))
        y += 20
        for t in ticks:
            body.append(text(x(t), y, si(t), "middle"))
    return svg(width, y + 15, body)


# ---------------------------------------------------------------- sleep

def percentile(sorted_values, q):
    """Nearest rank, as the C benchmark computes it."""
    return sorted_values[max(1, math.ceil(q * len(sorted_values))) - 1]


def plot_sleep(path):
    late = defaultdict(lambda: defaultdict(list))  # method -> requested us -> [us]
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            late[row["method"]][int(row["requested_us"])].append(int(row["late_ns"]) / 1000.0)
    floor_us = 0.05  # a zero (within the clock's resolution) still shows on a log axis
    series = {}
    for method, by_length in late.items():
        points = []
        for length in sorted(by_length):
            v = sorted(by_length[length])
            points.append((length, max(floor_us, sum(v) / len(v)),
                           max(floor_us, percentile(v, 0.99))))
        series[method] = points
    lengths = sorted({p[0] for pts in series.values() for p in pts})
    ys = [v for pts in series.values() for p in pts for v in p[1:]]
    xt, yt = log_ticks(lengths[0], lengths[-1]), log_ticks(min(ys), max(ys))
    panel_w, panel_h, margin, legend_w = 330, 280, 60, 200
    width, height = 2 * (panel_w + margin) + legend_w, panel_h + 110

    def pos(v, ticks, size):
        lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])
        return (math.log10(v) - lo) / (hi - lo) * size

    body = [text(width / 2, 20, "How late each way of sleeping wakes, µs after the deadline "
                 "(never before it); dashed: 5 µs", "middle", 'font-weight="bold"')]
    for i, (title, col) in enumerate((("mean", 1), ("p99", 2))):
        x0, y0 = margin + i * (panel_w + margin), 45
        body.append(text(x0 + panel_w / 2, y0 - 5, title + " lateness", "middle"))
        body.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>\n'
                    % (x0, y0, panel_w, panel_h))
        for t in xt:
            px = x0 + pos(t, xt, panel_w)
            body.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#eeeeee"/>\n'
                        % (px, px, y0, y0 + panel_h))
            body.append(text(px, y0 + panel_h + 15, si(t), "middle"))
        for t in yt:
            py = y0 + panel_h - pos(t, yt, panel_h)
            body.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eeeeee"/>\n'
                        % (x0, x0 + panel_w, py, py))
            body.append(text(x0 - 5, py + 4, si(t), "end"))
        five = y0 + panel_h - pos(5, yt, panel_h)
        body.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="grey" '
                    'stroke-dasharray="5,4"/>\n' % (x0, x0 + panel_w, five, five))
        body.append(text(x0 + panel_w / 2, y0 + panel_h + 32, "requested sleep (µs)", "middle"))
        for k, (method, points) in enumerate(series.items()):
            ours = method.startswith("monostamp")
            colour = COLOURS[k % len(COLOURS)]
            coords = " ".join("%.1f,%.1f" % (x0 + pos(p[0], xt, panel_w),
                                             y0 + panel_h - pos(p[col], yt, panel_h))
                              for p in points)
            body.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s"/>\n'
                        % (coords, colour, "3" if ours else "1.2"))
            if i == 0:
                ly = 60 + 18 * k
                lx = 2 * (panel_w + margin) + 10
                body.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" '
                            'stroke-width="%s"/>\n' % (lx, lx + 20, ly - 4, ly - 4, colour,
                                                      "3" if ours else "1.2"))
                body.append(text(lx + 26, ly, method))
    return svg(width, height, body)


def main(argv):
    if len(argv) >= 4 and argv[1] == "sampling":
        panels = [a.split("=", 1) if "=" in a else (a, a) for a in argv[3:]]
        out = plot_sampling(panels)
    elif len(argv) == 4 and argv[1] == "sleep":
        out = plot_sleep(argv[3])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(out)
    print("plot: wrote", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
