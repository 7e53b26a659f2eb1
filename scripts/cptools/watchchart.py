"""The watch tool's chart (scripts/watch --svg): the TSC's cumulative
offset against every clock over watch time, drawn by matplotlib with the
set-up, colours and untrusted-text handling of cptools/charts.py.  Only
scripts/watch draws it; the fleet's charts (compare --html/--svg) stay in
charts.py.

A clock whose offset dwarfs the others' (the CMOS RTC across a stopped
VM: seconds against microseconds) gets a panel of its own, each panel in
the unit its data needs (ns, us, ms), and each clock its own colour, line
style and marker, so that one lying under another still shows.
"""

from .charts import COLOURS, STYLES, pyplot, text, to_svg
from .untrusted import is_finite_num


def _offset_unit(peak):
    return ("ms", 1e6) if peak >= 1e6 else ("us", 1e3) if peak >= 1e3 \
        else ("ns", 1.0)


def short(s, n):
    """A report string cut for a chart with a plain ellipsis."""
    t = text(s, 4 * n)
    return t if len(t) <= n else t[:n - 3] + "..."


def watch_offsets(series, events, title):
    """Watch mode: series {clock: [(t_s, offset_ns)]} (from 0), events
    [(at_s, label)] -> SVG of the TSC's cumulative offset against each
    clock, in the unit the data needs; each clock its own colour, line
    style and marker, so one that lies under another still shows.  A
    clock whose offset dwarfs the others' (the CMOS RTC across a stopped
    VM: seconds against microseconds) gets a panel of its own above, so
    the small ones keep a scale where they can be told apart."""
    if not series:
        return None
    plt = pyplot()
    clean = {name: [(0.0, 0.0)] + [p for p in pts if is_finite_num(p[0])
                                   and is_finite_num(p[1])]
             for name, pts in series.items()}
    peak = {n: max(abs(v) for _, v in pts) for n, pts in clean.items()}
    small_peak = sorted(peak.values())[len(peak) // 2] or 1.0
    big = [n for n in clean if peak[n] > 100 * max(small_peak, 1.0)]
    small = [n for n in clean if n not in big]
    panels = [p for p in (big, small) if p]
    fig, axes = plt.subplots(len(panels), 1, sharex=True,
                             figsize=(7.6, 2.2 + 1.6 * len(panels)),
                             squeeze=False)
    markers = ("o", "s", "^", "D", "v", "x")
    order = sorted(clean, key=str)
    for ax, names in zip(axes[:, 0], panels):
        unit, div = _offset_unit(max(peak[n] for n in names))
        for name in names:
            i = order.index(name)
            pts = clean[name]
            ax.plot([t for t, _ in pts], [v / div for _, v in pts],
                    color=COLOURS[i % len(COLOURS)],
                    linestyle=STYLES[i % len(STYLES)],
                    marker=markers[i % len(markers)], markersize=4,
                    markerfacecolor="none", linewidth=1.5,
                    label="tsc vs %s" % text(name, 24))
        for at, label in events[:20]:
            if is_finite_num(at):
                ax.axvline(at, color="#e377c2", linestyle="--", linewidth=1)
        ax.axhline(0, color="#999999", linewidth=0.8)
        ax.set_ylabel("offset, %s" % unit)
        ax.legend(loc="best", fontsize=7, frameon=False)
    top, bottom = axes[0, 0], axes[-1, 0]
    listed = []
    for at, label in events[:20]:
        if is_finite_num(at):
            kind = str(label).split(":", 1)[0]
            top.text(at, 1.0, " " + short(kind, 24), rotation=90, va="top",
                     ha="left", fontsize=7, color="#a0307a",
                     transform=top.get_xaxis_transform())
            listed.append("%.1f s %s" % (at, short(label, 110)))
    bottom.set_xlim(left=0)
    bottom.set_xlabel("watch time, s (offset = TSC elapsed - clock "
                      "elapsed)" + "".join("\n" + x for x in listed[:6]))
    top.set_title(text(title, 80), loc="left")
    return to_svg(fig, title)
