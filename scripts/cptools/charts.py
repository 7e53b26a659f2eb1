"""The host tools' charts, drawn by Debian's python3-matplotlib as SVG.

matplotlib places the axes, ticks and labels (a hand-written chart had
watch-time labels 0 s, 2 s, 3 s, 4 s, 6 s evenly spaced for 1.5 s steps
and y ticks at -0.166/-0.033/0.100 ms); these functions only say what to
draw.  Each returns one <svg> element as text, with no XML prolog, to be
written to a file or embedded in the fleet page (one self-contained file):

  read_cost_histogram  one source across runs: its log2_bins histogram of
                       one read (the probe's bins, at each run's TSC rate
                       in ns), the estimate marked; below the TSC step the
                       step bound is shaded (the TSC under TCG)
  gap_timeline         the gaps (gaps.first) of each run across its window
  strip_chart          one value per run, one row per group (hypervisor),
                       log axis, median marked

The watch tool's chart (the TSC against every clock over time) is
cptools/watchchart.py, drawn with the set-up and helpers here.

Text is SVG text (svg.fonttype none), so tests read the tick labels from
the file, and the ids are fixed (svg.hashsalt) so a chart of the same data
is the same file.  Report strings (labels, hypervisor names) are untrusted:
control characters (LF too: a label is one line) and bidi overrides
shown as \\xNN / \\uNNNN, capped, and a $ escaped so that
mathtext never reads one.
"""

import io
import re

from . import chartpick, paths
from .untrusted import is_finite_num, term_text

LABEL_CAP = 48
_mpl = []


class ChartError(Exception):
    """matplotlib is missing (Debian's python3-matplotlib)."""


def missing():
    """None when charts can be drawn, else why not (ChartError's text):
    a page that can do without charts asks first and says what it
    lacks, rather than failing whole."""
    try:
        pyplot()
    except ChartError as e:
        return str(e)
    return None


def pyplot():
    """matplotlib.pyplot on the SVG backend, set up once."""
    if _mpl:
        return _mpl[0]
    import warnings
    from .debpkg import import_debian
    with warnings.catch_warnings():
        # Debian 12's matplotlib 3.6 on a newer pyparsing: deprecation
        # notes only, on every import.
        warnings.simplefilter("ignore")
        try:
            mpl = import_debian("matplotlib")
        except ImportError:
            raise ChartError("charts need Debian's python3-matplotlib "
                             "(%s)" % paths.need_package(
                                 "python3-matplotlib"))
        mpl.use("svg")
        import matplotlib.pyplot as plt
        plt.figure()    # the first figure parses the styles: quietly too
        plt.close("all")
    mpl.rcParams.update({
        "svg.fonttype": "none",         # text stays text
        "svg.hashsalt": "clockprobe",   # same data, same ids
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.grid": True,
        "grid.color": "#dddddd",
        "grid.linewidth": 0.6,
        "axes.axisbelow": True,
        "figure.dpi": 96,
        "figure.max_open_warning": 0,
    })
    _mpl.append(plt)
    return plt


def text(s, limit=LABEL_CAP):
    """A report string fit for a chart: capped, controls shown, and a $
    that mathtext would read escaped."""
    t = term_text(str(s), limit)    # one line: a LF shown too
    return t.replace("$", r"\$")


_PROLOG_RE = re.compile(r"^.*?(?=<svg)", re.S)


def to_svg(fig, title):
    """The figure as one <svg> element (no prolog), closed afterwards."""
    plt = pyplot()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None,
                                             "Title": text(title, 120)},
                bbox_inches="tight")
    plt.close(fig)
    return _PROLOG_RE.sub("", buf.getvalue(), count=1)


def fmt_ns(v):
    """A duration in ns for a tick: 1 ns, 100 ns, 10 us, 1 ms, 1 s."""
    for div, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1.0, "ns")):
        if abs(v) >= div or unit == "ns":
            x = v / div
            return ("%g %s" % (float("%.3g" % x), unit)) if x else "0"
    return str(v)


def log_ns_axis(axis):
    """A log axis in ns with tick labels in words (1 ns, 10 us), never
    mathtext: every decade labelled."""
    from matplotlib import ticker
    axis.set_major_locator(ticker.LogLocator(base=10, numticks=12))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: fmt_ns(v)))
    axis.set_minor_formatter(ticker.NullFormatter())


# The caps and the choice of sources: chartpick.py.
MAX_SOURCE_CHARTS, MAX_RUNS_PER_CHART, MAX_GAP_ROWS = (
    chartpick.MAX_SOURCE_CHARTS, chartpick.MAX_RUNS_PER_CHART,
    chartpick.MAX_GAP_ROWS)
source_index, rank_sources = chartpick.source_index, chartpick.rank_sources


def _source(report, name, index=None):
    if index is not None:
        return index.get(name)
    srcs = report.get("sources") if isinstance(report, dict) else None
    for s in srcs if isinstance(srcs, list) else []:
        if isinstance(s, dict) and s.get("name") == name:
            return s
    return None


def _tsc_hz(report):
    tsc = report.get("platform", {}).get("tsc") \
        if isinstance(report.get("platform"), dict) else None
    hz = (tsc or {}).get("freq_chosen", {}).get("hz") \
        if isinstance(tsc, dict) and isinstance(tsc.get("freq_chosen"),
                                                dict) else None
    return hz if is_finite_num(hz) and hz > 0 else None


def histogram_data(report, name, index=None):
    """(edges_ns, shares, estimate_ns, step_bound_ns) for one source of
    one report, or None.  Bin i counts 2^i <= v < 2^(i+1) TSC ticks (bin 0
    also 0): drawn from half a tick, in ns at the report's TSC rate.
    index: the report's source_index() entry (else a search)."""
    s = _source(report, name, index)
    hz = _tsc_hz(report)
    if not isinstance(s, dict) or s.get("status") != "ok" or hz is None:
        return None
    h = s.get("histogram") if isinstance(s.get("histogram"), dict) else {}
    bins = h.get("log2_bins")
    if not isinstance(bins, list) or not bins or \
            not all(is_finite_num(b) and b >= 0 for b in bins) or \
            h.get("unit", "cycles") != "cycles":
        return None
    total = float(sum(bins))
    if total <= 0:
        return None
    ns_per_tick = 1e9 / hz
    edges = [0.5 * ns_per_tick] + [(2 ** (i + 1)) * ns_per_tick
                                   for i in range(len(bins))]
    shares = [100.0 * b / total for b in bins]
    rc = s.get("read_cost") if isinstance(s.get("read_cost"), dict) else {}
    est = rc.get("estimate_ns") if is_finite_num(rc.get("estimate_ns")) else None
    bound = None
    if rc.get("below_resolution") is True and is_finite_num(rc.get("step_ticks")):
        bound = 2 * rc["step_ticks"] * ns_per_tick
    return edges, shares, est, bound


COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
           "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")
STYLES = ("-", "--", "-.", ":")


def plottable(v):
    """A finite number above 0: what a log axis draws (the page names the
    runs a chart leaves out)."""
    return is_finite_num(v) and v > 0


def read_cost_histogram(name, labelled_reports, indexes=None,
                        left_out=None):
    """One source across runs: [(label, report)] -> SVG, or None when no
    run has the source's histogram.  indexes: source_index() of the
    reports (else each report's sources are searched).  The first
    MAX_RUNS_PER_CHART runs are drawn, the rest counted below the axes and
    their labels appended to left_out (a list: the page names them)."""
    indexes = indexes or [None] * len(labelled_reports)
    rows = [(lab, histogram_data(r, name, i))
            for (lab, r), i in zip(labelled_reports, indexes)]
    rows = [(lab, d) for lab, d in rows if d]
    if not rows:
        return None
    if left_out is not None:
        left_out.extend(lab for lab, _ in rows[MAX_RUNS_PER_CHART:])
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.6, 2.6 + 0.12 * min(len(rows), 12)))
    bound_drawn = False
    for i, (lab, (edges, shares, est, bound)) in enumerate(
            rows[:MAX_RUNS_PER_CHART]):
        colour = COLOURS[i % len(COLOURS)]
        ax.stairs(shares, edges, color=colour, linewidth=1.4,
                  linestyle=STYLES[(i // len(COLOURS)) % len(STYLES)],
                  label=text(lab, 32))
        if est is not None and est > 0:
            ax.axvline(est, color=colour, linestyle=":", linewidth=1.2)
        if bound is not None and not bound_drawn:
            ax.axvspan(edges[0], bound, color="#f2c14e", alpha=0.25,
                       label="below 2 TSC steps (< %.3g ns)" % bound)
            bound_drawn = True
    ax.set_xscale("log")
    log_ns_axis(ax.xaxis)
    ax.set_xlabel("one read (log scale; bins of the probe's log2 "
                  "histogram at each run's TSC rate)")
    ax.set_ylabel("share of reads (%)")
    ax.set_ylim(bottom=0)
    title = "%s: read cost per call" % text(name)
    if any(d[3] is not None for _, d in rows):
        title += " (below the TSC step: the dotted line is the estimate)"
    else:
        title += " (dotted: the estimate)"
    ax.set_title(title, loc="left")
    ax.legend(loc="upper right", fontsize=7, frameon=False)
    if len(rows) > MAX_RUNS_PER_CHART:
        ax.text(0.0, -0.32, "showing %d of %d runs: %d more runs not drawn"
                % (MAX_RUNS_PER_CHART, len(rows),
                   len(rows) - MAX_RUNS_PER_CHART),
                transform=ax.transAxes, fontsize=7)
    return to_svg(fig, "%s read cost" % name)


def gap_timeline(labelled_reports, left_out=None):
    """The first gaps (gaps.first) of each run along its window: [(label,
    report)] -> SVG, or None when no run lists gaps.  The first
    MAX_GAP_ROWS runs are drawn; left_out (a list) gets the others'
    labels."""
    rows = []
    for lab, r in labelled_reports:
        g = r.get("gaps") if isinstance(r, dict) else None
        if not isinstance(g, dict) or not isinstance(g.get("first"), list):
            continue
        spans = [(e["at_ns"] / 1e6, e["size_ns"] / 1e6) for e in g["first"]
                 if isinstance(e, dict) and is_finite_num(e.get("at_ns"))
                 and is_finite_num(e.get("size_ns"))]
        window = g.get("window_ms") if is_finite_num(g.get("window_ms")) else None
        rows.append((lab, spans, window, g.get("count")))
    if not rows:
        return None
    if left_out is not None:
        left_out.extend(lab for lab, _, _, _ in rows[MAX_GAP_ROWS:])
    left_out = len(rows) - MAX_GAP_ROWS
    rows = rows[:MAX_GAP_ROWS]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.6, 1.0 + 0.32 * len(rows)))
    for i, (lab, spans, window, count) in enumerate(rows):
        if window:
            ax.broken_barh([(0, window)], (i - 0.4, 0.8), color="#eef3f8")
        if spans:
            ax.broken_barh(spans, (i - 0.35, 0.7), color="#d62728")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([
        "%s (%s of %s)" % (text(lab, 28), len(spans),
                           count if is_finite_num(count) else "?")
        for lab, spans, _, count in rows])
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    ax.set_xlabel("ms into the gap scan's window (red: the vCPU did not "
                  "run; the first gaps the report lists)")
    ax.set_title("gaps: when the vCPU stopped" + (
        " (showing %d of %d runs: %d more runs not drawn)" % (
            MAX_GAP_ROWS, MAX_GAP_ROWS + left_out, left_out)
        if left_out > 0 else ""), loc="left")
    ax.grid(axis="y", visible=False)
    return to_svg(fig, "gap timeline")


def strip_chart(title, unit, groups):
    """One row per group, one dot per run, log axis, median bar.

    groups: [(group, [(label, value)])]; values <= 0 are left out.  None
    when nothing is left."""
    data = [(g, [(lab, v) for lab, v in pts if plottable(v)])
            for g, pts in groups]
    data = [(g, pts) for g, pts in data if pts]
    if not data:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.6, 0.9 + 0.42 * len(data)))
    for i, (g, pts) in enumerate(data):
        xs = [v for _, v in pts]
        ys = [i + ((j * 7) % 13 - 6) / 40.0 for j in range(len(xs))]
        ax.scatter(xs, ys, s=14, color="#2a5d9f", alpha=0.6, zorder=3)
        med = sorted(xs)[len(xs) // 2]
        ax.plot([med, med], [i - 0.3, i + 0.3], color="#c33", linewidth=2,
                zorder=4)
    ax.set_yticks(range(len(data)))
    ax.set_yticklabels(["%s (%d)" % (text(g, 24), len(pts))
                        for g, pts in data])
    ax.invert_yaxis()
    ax.set_xscale("log")
    if unit == "ns":
        log_ns_axis(ax.xaxis)
    ax.set_xlabel("%s, log scale (one dot per run; red bar: the median)"
                  % unit)
    ax.set_title(text(title, 120), loc="left")
    ax.set_ylim(len(data) - 0.5, -0.5)
    return to_svg(fig, title)


def svg_ticks(svg_text):
    """The tick labels of an SVG matplotlib wrote: {"x": [...], "y":
    [...]} in order (for tests: ticks at the data's scale)."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(svg_text)
    ns = "{http://www.w3.org/2000/svg}"
    out = {"x": [], "y": []}
    for g in root.iter(ns + "g"):
        gid = g.get("id") or ""
        m = re.fullmatch(r"(x|y)tick_\d+", gid)
        if not m:
            continue
        for t in g.iter(ns + "text"):
            s = "".join(t.itertext()).strip()
            if s:
                out[m.group(1)].append(s)
    return out
