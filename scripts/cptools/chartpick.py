"""Which sources and runs the charts draw (cptools/charts.py).

A chart costs ~0.15-0.5 s of matplotlib, and one was drawn per source:
209 sources took 102 s, a report at the 16 MiB document limit would have
taken about 45 minutes (issue 41).  The charts' time is bounded by what
is drawn instead: at most MAX_SOURCE_CHARTS source histograms -- those
with a regression first, then the largest read cost -- each with at most
MAX_RUNS_PER_CHART runs, the gap timeline with at most MAX_GAP_ROWS.
What is left out is named on the chart or the page ("showing 24 of 5,000
sources").
"""

from .untrusted import is_finite_num

# A chart costs ~0.15-0.3 s of matplotlib: the page draws at most this
# many source histograms (issue 41: 209 sources took 102 s, a report at the
# 16 MiB limit would have taken 45 minutes), each with at most
# MAX_RUNS_PER_CHART runs; the gap timeline at most MAX_GAP_ROWS runs.
# What is left out is named on the chart or the page.
MAX_SOURCE_CHARTS = 24
MAX_RUNS_PER_CHART = 10
MAX_GAP_ROWS = 20


def source_index(reports):
    """[{name: source}] per report (the first entry of a name): one pass
    over each report's sources, so that a chart looks a source up in
    constant time."""
    out = []
    for r in reports:
        idx = {}
        srcs = r.get("sources") if isinstance(r, dict) else None
        for s in srcs if isinstance(srcs, list) else []:
            if isinstance(s, dict) and isinstance(s.get("name"), str):
                idx.setdefault(s["name"], s)
        out.append(idx)
    return out


def estimate(src):
    rc = src.get("read_cost") if isinstance(src, dict) else None
    v = rc.get("estimate_ns") if isinstance(rc, dict) else None
    return v if is_finite_num(v) else None


def rank_sources(names, reports, first=()):
    """names in the order their charts are worth drawing: those in `first`
    (a regression against the baseline), then the largest read cost (the
    estimate, the largest over the runs), then the ones without one, each
    group in the reports' order."""
    idx = source_index(reports)
    first = set(first)

    def key(item):
        pos, n = item
        costs = [c for c in (estimate(i.get(n)) for i in idx)
                 if c is not None]
        return (n not in first, not costs, -max(costs) if costs else 0, pos)
    return [n for _, n in sorted(enumerate(names), key=key)]
