"""The verdict over a kernel set in one line, in the probe's own words
(verdict.headline, src/verdict/text.c verdict_summary_line()): the newest
kernel's choice and read cost with its confidence and, where the set
disagrees, the worst kernel's.  For a report whose kernel_set is the one
asked for this is the report's line itself; for another set the same line
is made here from the judged ranges (cptools/kernels.py Judgment), and a
test holds the two to the same words.
"""


def fmt_ns(ns):
    """A cost as the probe's summary writes it (src/verdict/text.c sb_ns):
    one decimal, cut, below 10 ns; whole ns below 10 us; then us and ms."""
    if not isinstance(ns, (int, float)) or isinstance(ns, bool):
        return None
    if isinstance(ns, float) and not abs(ns * 1000) < float("inf"):
        return "%r ns" % ns     # 1e308 * 1000: no whole number to cut
    milli = int(round(ns * 1000))
    if milli < 10000:
        return "%d.%d ns" % (milli // 1000, milli // 100 % 10)
    if milli < 10000000:
        return "%d ns" % ((milli + 500) // 1000)
    if milli < 10000000000:
        t = (milli + 50000) // 100000
        return "%d.%d us" % (t // 10, t % 10)
    t = (milli + 50000000) // 100000000
    return "%d.%d ms" % (t // 10, t % 10)


def _choice(r):
    cost = fmt_ns(r.predicted_read_ns)
    return "%s%s" % (r.clocksource or "?", " ~" + cost if cost else "")


def _slow(cs):
    # src/verdict/query.c slow_source(): a syscall and a device read
    return cs in ("acpi_pm", "hpet", "jiffies", "hyperv_clocksource_msr")


def _worse(a, b):
    """src/verdict/text.c range_worse(): a syscall source, no vDSO, a
    higher read cost."""
    if _slow(a.clocksource) != _slow(b.clocksource):
        return _slow(a.clocksource)
    if a.vdso != b.vdso:
        return a.vdso is False
    return (a.predicted_read_ns or 0) > (b.predicted_read_ns or 0)


def headline(j, report=None):
    """The verdict over the set in one line, the words of the probe's own
    summary line (verdict.headline, src/verdict/text.c): the report's line
    itself when its kernel_set is the one asked for, else the same line
    made here for the other set ("Linux 7.1+: tsc ~7.2 ns; 4.19-6.11
    (Debian 12's 6.1): acpi_pm ~215 ns per read - confidence low")."""
    if j.error or not j.parts:
        return None
    v = report.get("verdict") if isinstance(report, dict) else None
    if isinstance(v, dict) and isinstance(v.get("headline"), str) and \
            isinstance(v.get("kernel_set"), dict) and \
            v["kernel_set"].get("releases") == getattr(j, "releases", None):
        return v["headline"]
    newest = j.parts[-1][0]
    worst = newest
    for r, _ in j.parts:
        if _worse(r, worst):
            worst = r
    text = "Linux %s: %s" % (newest.label(), _choice(newest))
    if worst is not newest and (worst.clocksource != newest.clocksource
                                or worst.vdso != newest.vdso):
        deb = " (Debian 12's 6.1)" if worst.contains("6.1") else ""
        text += "; %s%s: %s" % (worst.label(), deb, _choice(worst))
    measured = newest.predicted_read_ns is not None or \
        worst.predicted_read_ns is not None
    text += " per read" if measured else " (read cost not measured)"
    text += " - confidence %s" % (newest.confidence or "unknown (%s)"
                                  % newest.judged)
    return text


def risk_line(j):
    """The set's newest range's risk in words, as the summary's Risk line."""
    if j.error or not j.parts:
        return None
    newest = j.parts[-1][0]
    if not newest.risk or not newest.risk.get("reason"):
        return None
    return "Risk (%s): %s; then %s (%s)" % (
        newest.label(), newest.risk.get("note") or newest.risk["reason"],
        newest.risk.get("linux_clocksource"),
        "vDSO" if newest.risk.get("vdso") else "no vDSO")
