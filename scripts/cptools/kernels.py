"""Kernel sets: the verdict for the guest kernels a fleet runs.

A report's verdict.by_kernel[] judges every Linux release the rules know,
merged into ranges with one outcome each.  A fleet runs several kernels
(Debian 12's 6.1 next to 6.18), so gates, fleet data and the headline
answer for a set of releases, never for one release only:

    lts        every maintained long-term line the rules know, plus the
               newest release (the default for gates and fleet data)
    all        every release the rules know
    6.1,6.12   the releases named

The release list and the long-term lines come from the verdict's own era
table (src/verdict/decide.c), one source of truth: each by_kernel range
names its releases and long-term lines (by_kernel[].releases, .longterm),
and for reports written before those names existed, verdict-judge
--releases prints the same table (cptools/paths.py finds the judge:
build/host/ in a source tree, PREFIX/lib/clockprobe/ installed).

Each range is judged as precisely as the report allows (Range.judged):

    report            the report's by_kernel range carries its warnings,
                      confidence and read cost (probes since issue 29), or
                      it is the range of the report's own linux_kernel,
                      whose verdict the report has in full
    rules             the verdict rules judged the report's verdict.inputs
                      again for that range (verdict-judge)
    clocksource only  neither: the range says which clocksource and vDSO,
                      but not which warnings or how sure; gates say so
"""

import json
import os
import subprocess

from . import paths, query, untrusted

SEVERITIES = ("info", "warning", "critical")
# Both layouts through paths: a path made here from this file's place
# was REPO/build/host/verdict-judge, which an installed copy never has
# (/usr/lib/build/host/...), so an older report went unjudged there.
REPO = paths.REPO
JUDGE = paths.VERDICT_JUDGE
SET_WORDS = ("lts", "all")


class KernelSetError(ValueError):
    pass


def _kv(name):
    try:
        a, b = str(name).split(".", 1)
        return int(a), int(b)
    except ValueError:
        return None


def parse_kernels(text):
    """argparse type for --kernels LIST|lts|all: a KernelSet."""
    import argparse
    try:
        return KernelSet(text)
    except KernelSetError as e:
        raise argparse.ArgumentTypeError(str(e))


class KernelSet:
    """What --kernels named: a word (lts, all) or a list of releases."""

    def __init__(self, text="lts"):
        self.text = (text or "lts").strip()
        words = [w.strip() for w in self.text.split(",") if w.strip()]
        if not words:
            raise KernelSetError("--kernels needs lts, all or releases "
                                 "(6.1,6.12)")
        self.word = None
        self.named = []
        for w in words:
            if w.lower() in SET_WORDS:
                if len(words) > 1:
                    raise KernelSetError(
                        "--kernels %s: %s stands alone (or list releases)"
                        % (self.text, w))
                self.word = w.lower()
            elif _kv(w) is None:
                raise KernelSetError(
                    "--kernels: %r is neither lts, all nor a release "
                    "(MAJOR.MINOR, e.g. 6.1)" % w)
            else:
                self.named.append(w)

    def releases(self, table):
        """The releases of the set, oldest first, from a ReleaseTable;
        KernelSetError for a named release the rules do not know."""
        if self.word == "all":
            return list(table.releases)
        if self.word == "lts":
            return table.lts()
        unknown = [r for r in self.named if r not in table.releases]
        if unknown:
            raise KernelSetError(
                "--kernels: %s not among the releases the rules know "
                "(%s .. %s)" % (", ".join(unknown), table.releases[0],
                                table.releases[-1]))
        return sorted(set(self.named), key=_kv)

    def __str__(self):
        return self.text

    @classmethod
    def of_report(cls, report):
        """The set the probe's summary used (verdict.kernel_set, its
        kernels= setting); lts for a report from before kernel sets."""
        v = report.get("verdict") if isinstance(report, dict) else None
        ks = v.get("kernel_set") if isinstance(v, dict) else None
        if isinstance(ks, dict):
            if ks.get("name") in SET_WORDS:
                return cls(ks["name"])
            rel = [r for r in ks.get("releases") or [] if isinstance(r, str)]
            if rel:
                try:
                    return cls(",".join(rel))
                except KernelSetError:
                    pass
        return cls("lts")


class ReleaseTable:
    """Every release the rules know, oldest first, and the maintained
    long-term lines among them."""

    def __init__(self, releases, longterm):
        self.releases = list(releases)
        self.longterm = [r for r in longterm if r in self.releases]

    def lts(self):
        out = list(self.longterm)
        if self.releases and self.releases[-1] not in out:
            out.append(self.releases[-1])
        return out

    @classmethod
    def from_ranges(cls, ranges):
        if not ranges or any(r.releases is None for r in ranges):
            return None
        return cls([x for r in ranges for x in r.releases],
                   [x for r in ranges for x in (r.longterm or [])])


_judge_table = {}


def judge_release_table(judge=JUDGE):
    """The table from verdict-judge --releases (cached), or
    None with nothing to run."""
    if judge in _judge_table:
        return _judge_table[judge]
    table = None
    if os.path.isfile(judge):
        try:
            p = subprocess.run([judge, "--releases"], capture_output=True,
                               text=True, timeout=30)
            if p.returncode == 0:
                d = json.loads(p.stdout)
                table = ReleaseTable(d["releases"], d["longterm"])
        except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
            table = None
    _judge_table[judge] = table
    return table


class Range:
    """One by_kernel range as a kernel set sees it."""

    __slots__ = ("frm", "to", "clocksource", "vdso", "predicted_read_ns",
                 "confidence", "risk", "warnings", "releases", "longterm",
                 "judged", "note", "measured_read_ns", "measured_read_se_ns",
                 "syscall_included")

    def __init__(self):
        # The measured part of predicted_read_ns (a report from before
        # issue 38 has none: the headline then derives it).
        self.measured_read_ns = self.measured_read_se_ns = None
        self.syscall_included = None

    def label(self):
        """4.19-6.11, 6.12+ (open), 6.1 (one release)."""
        if self.to is None:
            return "%s+" % self.frm
        if self.to == self.frm:
            return self.frm
        return "%s-%s" % (self.frm, self.to)

    def contains(self, release):
        k = _kv(release)
        lo = _kv(self.frm)
        hi = _kv(self.to) if self.to is not None else None
        return k is not None and lo is not None and k >= lo and \
            (hi is None or k <= hi)

    def worst_severity(self):
        if not self.warnings:
            return None
        ranks = [SEVERITIES.index(s) for _, s in self.warnings
                 if s in SEVERITIES]
        return SEVERITIES[max(ranks)] if ranks else None


def _str(v):
    return v if isinstance(v, str) else None


def _names(v):
    if not isinstance(v, list):
        return None
    return [x for x in v if isinstance(x, str)]


def _warning_pairs(ws):
    out = []
    for w in ws if isinstance(ws, list) else []:
        if isinstance(w, dict) and isinstance(w.get("code"), str):
            out.append((w["code"], str(w.get("severity") or "")))
    return out


def ranges_of(report):
    """[Range] from a report's verdict.by_kernel, judged as the report
    allows (see the module's docstring); [] without one."""
    v = report.get("verdict") if isinstance(report, dict) else None
    if not isinstance(v, dict):
        return []
    bk = v.get("by_kernel")
    main = _str(v.get("linux_kernel"))
    if not bk and main and _kv(main):
        # A report from before by_kernel: its own kernel, nothing more.
        bk = [{"from": main, "to": main,
               "linux_clocksource": v.get("linux_clocksource"),
               "vdso": v.get("vdso"), "risk": v.get("risk")}]
    out = []
    for e in bk if isinstance(bk, list) else []:
        if not isinstance(e, dict) or not _str(e.get("from")):
            continue
        r = Range()
        r.frm, r.to = e["from"], _str(e.get("to"))
        r.clocksource = _str(e.get("linux_clocksource"))
        r.vdso = e.get("vdso") if isinstance(e.get("vdso"), bool) else None
        r.risk = e.get("risk") if isinstance(e.get("risk"), dict) else None
        r.note = _str(e.get("note"))
        r.releases = _names(e.get("releases"))
        r.longterm = _names(e.get("longterm"))
        if isinstance(e.get("warnings"), list):
            r.warnings = _warning_pairs(e["warnings"])
            r.confidence = _str(e.get("confidence"))
            r.predicted_read_ns = untrusted.finite_or_none(e.get("predicted_read_ns"))
            measured_of(r, e)
            r.judged = "report"
        elif main and r.contains(main):
            # The range of the report's own kernel: its verdict in full.
            r.warnings = _warning_pairs(v.get("warnings"))
            r.confidence = _str(v.get("confidence"))
            r.predicted_read_ns = untrusted.finite_or_none(v.get("predicted_read_ns"))
            measured_of(r, v)
            r.judged = "report"
        else:
            r.warnings = r.confidence = r.predicted_read_ns = None
            r.judged = "clocksource only"
        out.append(r)
    return out


def measured_of(r, d):
    """A range's measured read, its SE and whether the syscall estimate
    is in predicted_read_ns, from a by_kernel entry or a verdict."""
    r.measured_read_ns = untrusted.finite_or_none(d.get("measured_read_ns"))
    r.measured_read_se_ns = untrusted.finite_or_none(d.get("measured_read_se_ns"))
    inc = d.get("syscall_estimate_included")
    r.syscall_included = inc if isinstance(inc, bool) else None


RANGE_FIELDS = ("frm", "to", "clocksource", "vdso", "predicted_read_ns",
                "confidence", "risk", "warnings", "releases", "longterm",
                "judged", "note")


def range_dicts(ranges):
    """Ranges as JSON-ready dicts (a matrix row's results.json record)."""
    out = []
    for r in ranges:
        d = {k: getattr(r, k) for k in RANGE_FIELDS}
        d["from"] = d.pop("frm")
        d["linux_clocksource"] = d.pop("clocksource")
        if d["warnings"] is not None:
            d["warnings"] = [{"code": c, "severity": s}
                             for c, s in d["warnings"]]
        out.append(d)
    return out


def ranges_from_dicts(ds):
    """range_dicts() read back; None for anything that is not a list."""
    if not isinstance(ds, list):
        return None
    out = []
    for d in ds:
        if not isinstance(d, dict) or not _str(d.get("from")):
            continue
        r = Range()
        r.frm, r.to = d["from"], _str(d.get("to"))
        r.clocksource = _str(d.get("linux_clocksource"))
        r.vdso = d.get("vdso") if isinstance(d.get("vdso"), bool) else None
        r.predicted_read_ns = untrusted.finite_or_none(d.get("predicted_read_ns"))
        r.confidence = _str(d.get("confidence"))
        r.risk = d.get("risk") if isinstance(d.get("risk"), dict) else None
        r.warnings = _warning_pairs(d["warnings"]) \
            if isinstance(d.get("warnings"), list) else None
        r.releases = _names(d.get("releases"))
        r.longterm = _names(d.get("longterm"))
        r.judged = _str(d.get("judged")) or "clocksource only"
        r.note = _str(d.get("note"))
        out.append(r)
    return out


def risk_text(risk):
    """verdict.risk in a few words: "jiffies_watchdog -> acpi_pm"."""
    if not isinstance(risk, dict) or not risk.get("reason"):
        return None
    return "%s -> %s" % (risk.get("reason"),
                         risk.get("linux_clocksource") or "?")


def table_rows(ranges):
    """The by_kernel table's columns after run_id, one tuple a range."""
    out = []
    for r in ranges:
        out.append((
            r.frm, r.to, r.clocksource, r.vdso, r.predicted_read_ns,
            r.confidence, risk_text(r.risk),
            None if r.warnings is None else ",".join(c for c, _ in
                                                     r.warnings),
            r.worst_severity(),
            None if r.releases is None else ",".join(r.releases),
            None if r.longterm is None else ",".join(r.longterm),
            r.judged))
    return out
