"""An SVG bar chart of kiln's speed against a reference, one bar per program and thread
count: the reference's time over kiln's (above 1: kiln faster), on a log scale with the
line at 1. Plain SVG, written by hand: no plotting library to install.

    speed_chart.write(path, title, {"1 thread": {"mlp_train": 1.10, ...}, "2 threads": {...}})
"""

import html
import math

COLORS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2"]


def write(path, title, series, reference="XLA:CPU"):
    names = []
    for values in series.values():
        names += [n for n in values if n not in names]
    bar, gap, left, top, width = 9, 8, 150, 58, 420
    group = bar * len(series) + gap
    height = top + group * len(names) + 40
    ratios = [r for values in series.values() for r in values.values() if r]
    low = min(0.5, min(ratios, default=1) / 1.1)
    high = max(2.0, max(ratios, default=1) * 1.1)

    def x(ratio):  # log scale from low to high
        return left + width * (math.log(ratio) - math.log(low)) / (math.log(high) - math.log(low))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="18" font-size="13" font-weight="bold">{html.escape(title)}</text>',
           f'<text x="{left}" y="34">{html.escape(reference)} time / kiln time (log scale; right of 1: kiln '
           f'faster)</text>']
    for i, label in enumerate(series):
        out.append(f'<rect x="{left + 110 * i}" y="40" width="10" height="10" fill="{COLORS[i % len(COLORS)]}"/>'
                   f'<text x="{left + 110 * i + 14}" y="49">{html.escape(label)}</text>')
    for tick in (0.25, 0.5, 1, 2, 4, 8):
        if low <= tick <= high:
            tx = x(tick)
            out.append(f'<line x1="{tx:.1f}" y1="{top - 4}" x2="{tx:.1f}" y2="{height - 30}" '
                       f'stroke="{"#333" if tick == 1 else "#ddd"}"/>'
                       f'<text x="{tx:.1f}" y="{height - 16}" text-anchor="middle">{tick:g}x</text>')
    for row, name in enumerate(names):
        y0 = top + row * group
        out.append(f'<text x="{left - 6}" y="{y0 + group / 2 + 1}" text-anchor="end">{html.escape(name)}</text>')
        for i, values in enumerate(series.values()):
            ratio = values.get(name)
            if not ratio:
                continue
            a, b = sorted((x(1), x(ratio)))
            out.append(f'<rect x="{a:.1f}" y="{y0 + i * bar}" width="{max(b - a, 1):.1f}" height="{bar - 1}" '
                       f'fill="{COLORS[i % len(COLORS)]}"><title>{html.escape(name)}: {ratio:.2f}x</title></rect>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
