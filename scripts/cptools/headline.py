"""The verdict over a kernel set in one line, in the probe's own words
(verdict.headline, src/verdict/text.c verdict_summary_line()): the newest
kernel's choice and read cost with its confidence and, where the set
disagrees, the worst kernel's.  For a report whose kernel_set is the one
asked for this is the report's line itself; for another set the same line
is made here from the judged ranges (cptools/kernels.py Judgment), and a
test holds the two to the same words.
"""

from . import untrusted

# The syscall range the rules state beside a read that makes one
# (src/verdict/decide.c SYSCALL_OVERHEAD_NS_LOW/HIGH), for a report older
# than verdict.syscall_overhead_ns_low/high; a report's own figures win.
SYSCALL_NS_LOW, SYSCALL_NS_HIGH, SYSCALL_NS_ESTIMATE = 50, 300, 150


def fmt_ns(ns):
    """A cost as the probe's summary writes it (src/verdict/format.c
    sb_ns): one decimal below 10 ns, whole ns below 10 us, then us and ms;
    rounded, never cut."""
    if not isinstance(ns, (int, float)) or isinstance(ns, bool):
        return None
    if isinstance(ns, float) and not abs(ns * 1000) < float("inf"):
        return "%r ns" % ns     # 1e308 * 1000: no whole number to cut
    milli = int(round(ns * 1000))
    if milli < 9950:
        t = (milli + 50) // 100
        return "%d.%d ns" % (t // 10, t % 10)
    if milli < 9999500:
        return "%d ns" % ((milli + 500) // 1000)
    if milli < 9999950000:
        t = (milli + 50000) // 100000
        return "%d.%d us" % (t // 10, t % 10)
    t = (milli + 50000000) // 100000000
    return "%d.%d ms" % (t // 10, t % 10)


def _se_decimals(se_milli):
    # src/lib/stats.c stats_se_decimals(): two significant digits
    if se_milli >= 9950:
        return 0
    if se_milli >= 995:
        return 1
    if se_milli >= 100:
        return 2
    return 3


def _round_milli(v, dec):
    # src/lib/stats.c stats_round_milli(): half away from zero
    div = 10 ** (3 - dec)
    return (v + div // 2) // div if v >= 0 else -((-v + div // 2) // div)


def fmt_ns_se(ns, se):
    """src/verdict/format.c sb_ns_se(): "135.0+-5.3 ns" to the SE's
    precision, or the value and "(SE unknown)"."""
    # A finite figure near the float range's top still has no whole
    # milli-ns (int(round(1e306 * 1000)) raises): no SE to round to.
    finite = untrusted.is_finite_num
    se_milli = int(round(se * 1000)) if finite(se) and finite(se * 1000) else 0
    if not se_milli or not finite(ns) or not finite(ns * 1000):
        return "%s (SE unknown)" % fmt_ns(ns)
    dec = _se_decimals(se_milli)

    def fixed(m):
        v = _round_milli(m, dec)
        if not dec:
            return str(v)
        return "%d.%0*d" % (v // 10 ** dec, dec, v % 10 ** dec)
    return "%s+-%s ns" % (fixed(int(round(ns * 1000))), fixed(se_milli))


def _measured(r, estimate):
    """(measured read, its SE, syscall added) of a range: its own fields,
    or for an older report predicted_read_ns less the syscall estimate
    where the range has no vDSO."""
    if r.measured_read_ns is not None:
        return r.measured_read_ns, r.measured_read_se_ns, \
            bool(r.syscall_included)
    if r.predicted_read_ns is None:
        return None, None, False
    if r.vdso is False:
        return r.predicted_read_ns - estimate, None, True
    return r.predicted_read_ns, None, False


def _choice(r, syscall, said):
    """src/verdict/text.c sb_choice(); said: [bool], the syscall range
    already stated on this line."""
    text = r.clocksource or "?"
    ns, se, added = _measured(r, syscall[2])
    if ns is None:
        return text
    text += " " + fmt_ns_se(ns, se)
    if added:
        text += " + syscall" if said[0] else \
            " + syscall %d-%d ns (not measured)" % (syscall[0], syscall[1])
        said[0] = True
    return text


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
    made here for the other set ("Linux 7.1+: tsc 7.21+-0.16 ns; 4.19-6.11
    (Debian 12's 6.1): acpi_pm 65.1+-1.3 ns + syscall 50-300 ns (not
    measured) per read - confidence low")."""
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
    syscall = [SYSCALL_NS_LOW, SYSCALL_NS_HIGH, SYSCALL_NS_ESTIMATE]
    for i, key in enumerate(("syscall_overhead_ns_low",
                             "syscall_overhead_ns_high",
                             "syscall_overhead_ns_estimate")):
        if isinstance(v, dict) and isinstance(v.get(key), int) and \
                not isinstance(v.get(key), bool):
            syscall[i] = v[key]
    said = [False]
    text = "Linux %s: %s" % (newest.label(), _choice(newest, syscall, said))
    if worst is not newest and (worst.clocksource != newest.clocksource
                                or worst.vdso != newest.vdso):
        deb = " (Debian 12's 6.1)" if worst.contains("6.1") else ""
        text += "; %s%s: %s" % (worst.label(), deb,
                                 _choice(worst, syscall, said))
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
