#!/usr/bin/python3
"""Draws bench_scaling's rows as an SVG: four log-log panels (batch, L, N, d)
of time per training step, with the local slope of the library's last two points and
a dashed line of slope 1 through the first point for reference.

    plot_scaling.py ROWS.txt OUT.svg

Rows are `scaling AXIS VALUE batch L d N step_ms us_per_prompt` (and the
same with `scaling-torch` from torch_ref.py, drawn beside); any other
line (the `#` provenance lines among them) is ignored, except that the
first two `#` lines are printed under the title. Standard library only."""
import math
import sys

AXES = [("batch", "batch size"), ("L", "depth L"), ("N", "context length N"),
        ("d", "dimension d")]
W, H = 920, 700
PW, PH = 360, 230  # plot area of one panel
ORIGINS = [(90, 110), (540, 110), (90, 420), (540, 420)]


KINDS = [("scaling", "linattn.h", "#c0392b"),
         ("scaling-torch", "PyTorch", "#2471a3")]


def read(path):
    """{(kind, axis): [(value, ms)]} and the first two provenance lines."""
    series, notes = {}, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 9 and w[0] in dict((k[0], 1) for k in KINDS):
                series.setdefault((w[0], w[1]), []).append(
                    (float(w[2]), float(w[7])))
            elif line.startswith("#") and len(notes) < 2:
                notes.append(line[1:].strip())
    return series, notes


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def span(lo, hi):
    """Log10 range around [lo, hi] with a little room at both ends."""
    a, b = math.log10(lo), math.log10(hi)
    pad = max(0.06 * (b - a), 0.15)
    return a - pad, b + pad


def nice_ticks(a, b):
    """1, 2, 5 x 10^k inside the log range [a, b], fewer if crowded."""
    for mult in ((1, 2, 5), (1, 3), (1,)):
        t = [m * 10.0 ** e for e in range(int(math.floor(a)), int(b) + 2)
             for m in mult if a <= math.log10(m * 10.0 ** e) <= b]
        if len(t) <= 8:
            return t
    return t


def label(v):
    return "%g" % v if 1e-3 <= v < 1e6 else "%.0e" % v


def panel(out, x0, y0, title, curves, xticks_from_data):
    """curves: [(points, colour)]; the first one sets the x ticks, the
    slope guide and the slope in the title."""
    curves = [(sorted(p for p in pts if p[0] > 0 and p[1] > 0), col)
              for pts, col in curves]
    curves = [c for c in curves if c[0]]
    if not curves:
        return
    pts = curves[0][0]
    every = [p for c in curves for p in c[0]]
    xa, xb = span(min(p[0] for p in every), max(p[0] for p in every))
    ya, yb = span(min(p[1] for p in every), max(p[1] for p in every))

    def X(v):
        return x0 + PW * (math.log10(v) - xa) / (xb - xa)

    def Y(v):
        return y0 + PH - PH * (math.log10(v) - ya) / (yb - ya)

    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
               'stroke="#444"/>' % (x0, y0, PW, PH))
    xt = [p[0] for p in pts] if xticks_from_data else nice_ticks(xa, xb)
    for v in xt:
        x = X(v)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   % (x, y0, x, y0 + PH))
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor='
                   '"middle">%s</text>' % (x, y0 + PH + 15, label(v)))
    for v in nice_ticks(ya, yb):
        y = Y(v)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (x0, y, x0 + PW, y))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">'
                   '%s</text>' % (x0 - 5, y + 4, label(v)))
    # slope-1 reference through the first point, clipped to the panel
    (px, py) = pts[0]
    xe = min(10.0 ** xb, px * 10.0 ** (yb - math.log10(py)))
    xe = max(xe, px)
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" '
               'stroke-dasharray="5,4"/>' % (X(px), Y(py), X(xe),
                                             Y(py * xe / px)))
    for cpts, col in curves:
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                   'points="%s"/>' % (col, " ".join(
                       "%.1f,%.1f" % (X(a), Y(b)) for a, b in cpts)))
        for a, b in cpts:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                       % (X(a), Y(b), col))
    slope = ""
    if len(pts) >= 2:
        (a1, b1), (a2, b2) = pts[-2], pts[-1]
        slope = ", last slope %.2f" % (math.log(b2 / b1) / math.log(a2 / a1))
    out.append('<text x="%d" y="%d" font-size="13" font-weight="bold">'
               'time per step vs %s%s</text>' % (x0, y0 - 8, esc(title), slope))
    out.append('<text x="%d" y="%d" font-size="11" transform="rotate(-90 %d '
               '%d)" text-anchor="middle">ms per step</text>'
               % (x0 - 45, y0 + PH // 2, x0 - 45, y0 + PH // 2))
    out.append('<text x="%d" y="%d" font-size="11" text-anchor="middle">'
               '%s</text>' % (x0 + PW // 2, y0 + PH + 32, esc(title)))


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    series, notes = read(argv[1])
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="20" y="28" font-size="17" font-weight="bold">linattn.h: '
           'time per training step (fresh prompts, gradient, clipping, Adam)'
           '</text>',
           '<text x="20" y="48" font-size="11">around sparse, L = 3, d = 5, '
           'N = 20, batch 1000; log-log; dashed: slope 1 (linear growth)'
           '</text>']
    for i, note in enumerate(notes):
        out.append('<text x="20" y="%d" font-size="10" fill="#555">%s</text>'
                   % (64 + 13 * i, esc(note[:160])))
    for (key, title), (x0, y0) in zip(AXES, ORIGINS):
        curves = [(series.get((k, key), []), col) for k, _, col in KINDS]
        panel(out, x0, y0, title, curves, key != "batch")
    x = 560
    for k, name, col in KINDS:
        if any(kk == k for kk, _ in series):
            out.append('<rect x="%d" y="36" width="14" height="4" fill="%s"/>'
                       % (x, col))
            out.append('<text x="%d" y="42" font-size="12">%s</text>'
                       % (x + 20, name))
            x += 110
    out.append("</svg>")
    with open(argv[2], "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
