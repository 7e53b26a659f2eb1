"""The fleet page's rows and groups (cptools/fleetpage.py draws them).

A run is a page row (page_row): the few figures the page shows and its
judgment by the gate, made from the report while it is in memory, so
that a fleet streamed through cptools/fleetload.py (PageSink) never holds
its reports.  Groups (group_rows) are the runs of one SMBIOS product
(a cloud's instance type), label prefix or hypervisor, with their counts,
worst judgment and read-cost percentiles (docs/fleet-page.md).
"""

import collections
import math
import re

from . import fleet, headline, judgment, kernels, policy
from .untrusted import HTML_CAP, cap, is_finite_num

SEVERITY_WEIGHT = {"critical": 10000, "warning": 100, "info": 1}
# The gate the page judges by when compare has no --fail-on: any critical
# warning on a kernel of the set (a gate with a lower bar passes --fail-on
# and the page follows it).
FAIL_ON_DEFAULT = "critical"
RUN_COLUMNS = (  # data-name, header, data-type
    ("label", "label", "text"), ("started", "started (UTC)", "text"),
    ("hypervisor", "hypervisor", "text"),
    ("clocksource", "Linux clocksource", "text"), ("vdso", "vDSO", "text"),
    ("predicted", "predicted read (ns)", "num"),
    ("kernels", "kernels (the set)", "text"),
    ("gate", "gate", "num"),
    ("confidence", "confidence", "num"), ("risk", "risk", "text"),
    ("warnings", "warnings (own kernel)", "num"))
GROUP_COLUMNS = (
    ("group", "group", "text"), ("runs", "runs", "num"),
    ("fails", "gate fails", "num"), ("unjudged", "cannot judge", "num"),
    ("worst", "worst judgment", "num"),
    ("clocksources", "Linux clocksources", "text"),
    ("p50", "predicted read p50 (ns)", "num"),
    ("p90", "p90", "num"), ("max", "max", "num"),
    ("hypervisors", "hypervisors", "text"),
    ("started", "started (UTC)", "text"))
CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}
OUTCOME_RANK = {"matched": 2, "unjudged": 1, None: 0}
# Past this many runs the page shows a summary per group instead of one
# row per run (2,000 rows were a 3 MB page no one reads row by row); the
# runs the gate fails stay named, at most NAMED_PER_GROUP a group.
RUN_ROWS_MAX = 300
NAMED_PER_GROUP = 25
# A page row keeps at most this many sources' costs (the per-hypervisor
# charts draw at most fleetpage.MAX_HV_SOURCES of them) and warnings: a
# report of 100,000 sources is one row of bounded size.
ROW_SOURCES = 32
ROW_WARNINGS = 20
# What a chart or list note names before "and N more".
NAMES_SHOWN = 20
GROUP_BY = ("auto", "product", "label", "hypervisor")
_STARTED_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_LABEL_NUMBER_RE = re.compile(r"[-_./:#\s]*\d+$")


def fmt_cost(v):
    """A read cost in ns as the page shows it: 3 digits, whole ns past 100."""
    if not is_finite_num(v):
        return "-"
    return ("%.3g" % v) if abs(v) < 100 else "%.0f" % v


def source_cost(run, name):
    """One read of a source in ns: the estimate the verdict uses, else p50."""
    srcs = run.report.get("sources")
    for s in srcs if isinstance(srcs, list) else []:
        if isinstance(s, dict) and s.get("name") == name:
            return _cost_of(s)
    return None


def _cost_of(s):
    if s.get("status") != "ok":
        return None
    rc = s.get("read_cost") if isinstance(s.get("read_cost"), dict) else {}
    if is_finite_num(rc.get("estimate_ns")):
        return rc["estimate_ns"]
    ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
    return ns.get("p50") if is_finite_num(ns.get("p50")) else None


def _costs(report):
    """{source name: one read in ns or None} for the report's first
    ROW_SOURCES sources (a name's first entry)."""
    out = {}
    srcs = report.get("sources") if isinstance(report, dict) else None
    for s in srcs if isinstance(srcs, list) else []:
        if len(out) >= ROW_SOURCES:
            break
        n = s.get("name") if isinstance(s, dict) else None
        if isinstance(n, str) and n not in out:
            out[cap(n, 200)] = _cost_of(s)
    return out


def _started(v):
    """probe.started_utc as the page shows it; "-" when the probe had no
    clock (null); anything else is the report's text, shown as text."""
    if not isinstance(v, str):
        return "-"
    return v if _STARTED_RE.fullmatch(v) else cap(v, 64)


def page_row(run, head, hits):
    """One run as the page shows it: a dict of text and sort keys, small
    enough for thousands (cptools/fleetload.py makes it where the report
    is read, and the report is dropped).  head: the verdict over the
    kernel set in a line (headline.headline); hits: judgment.gate_result
    under the page's policy.  The label is the caller's to set (it is
    settled once every input is read)."""
    h = fleet.headline(run)
    ws = h["warnings"]
    vdso = h["vdso"]
    pred = h["predicted_read_ns"]
    conf = h["confidence"]
    outcome = judgment.gate_outcome(hits)
    if outcome == "matched":
        gate = "fails: " + hits["text"]
    elif outcome:
        gate = "cannot judge: " + (hits["error"] or hits["note"] or "")
    elif hits is None or "no_verdict" in (hits or {}):
        gate = "-"
    else:
        gate = "passes"
    return {
        "run_id": run.run_id, "label": run.label,
        "unverified": run.verified == "unverified",
        "started": _started(run.get("probe.started_utc")),
        "product": run.get("platform.smbios.product"),
        "hypervisor": h["hypervisor"],
        "clocksource": cap(h["linux_clocksource"], 200)
        if h["linux_clocksource"] is not None else "-",
        "vdso": "yes" if vdso is True else "no" if vdso is False else "-",
        "pred_num": float(pred) if is_finite_num(pred) else None,
        "head": cap(head, 1000) if head else "-",
        "outcome": outcome, "gate": cap(gate, 2000),
        "conf_rank": CONFIDENCE_RANK.get(conf, 9) if isinstance(conf, str) else 9,
        "conf": cap(conf, 64) if isinstance(conf, str) else "-",
        "note": cap(run.get("verdict.risk.note"), 1000)
        if run.get("verdict.risk.note") is not None else None,
        "risk": cap(kernels.risk_text(run.get("verdict.risk")) or "none",
                    200),
        "weight": sum(SEVERITY_WEIGHT.get(str(w.get("severity")), 0)
                      for w in ws),
        "warnings": [{"severity": cap(w.get("severity") or "", 20),
                      "message": cap(w.get("message") or "", HTML_CAP),
                      "code": cap(w.get("code") or "?", 60)}
                     for w in ws[:ROW_WARNINGS]],
        "more_warnings": max(0, len(ws) - ROW_WARNINGS),
        "costs": _costs(run.report)}


def verdict_rows(runs, kset=None, fail_on=None):
    """Page rows for loaded runs (fleet.Run): each judged over kset under
    fail_on (default FAIL_ON_DEFAULT) as the gate judges it."""
    kset = kset or kernels.KernelSet()
    fail_on = fail_on or policy.FailOn(FAIL_ON_DEFAULT)
    rows = []
    for run in runs:
        j = judgment.Judgment(run.report, kset)
        head = getattr(run, "kernel_headline", None)
        if head is None:
            head = headline.headline(j, run.report)
        rows.append(page_row(run, head, judgment.gate_result(j, fail_on)))
    return rows


def label_prefix(label):
    """A label less its trailing number: web-eu-17 -> web-eu, the runs of
    one kind of machine named by a counter."""
    t = str(label or "")
    return _LABEL_NUMBER_RE.sub("", t) or t or "(no label)"


def group_key(row, by):
    if by == "product":
        p = row["product"]
        return cap(p, 200) if isinstance(p, str) and p.strip() else \
            "(no SMBIOS product)"
    if by == "label":
        return label_prefix(row["label"])
    return row["hypervisor"]


def pick_group_by(rows, by="auto"):
    """by itself, or for auto: the SMBIOS product (a cloud's instance
    type) where the runs have more than one, else the label prefix where
    that splits them, else the hypervisor."""
    if by != "auto":
        return by
    for b in ("product", "label"):
        if len({group_key(r, b) for r in rows}) > 1:
            return b
    return "hypervisor"


def percentile(sorted_vals, q):
    """Nearest-rank percentile of an ascending list (None when empty)."""
    if not sorted_vals:
        return None
    k = max(0, math.ceil(q / 100.0 * len(sorted_vals)) - 1)
    return sorted_vals[min(k, len(sorted_vals) - 1)]


def _worst_key(r):
    return (OUTCOME_RANK[r["outcome"]], r["weight"],
            r["pred_num"] if r["pred_num"] is not None else -1.0)


def _counts(values):
    c = collections.Counter(values)
    return ", ".join("%s %d" % (k, n) for k, n in
                     sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def group_rows(rows, by):
    """[group dict] ordered worst first (the most runs the gate fails,
    then cannot judge, then by name): name, runs, counts, the worst run,
    read-cost percentiles, and its rows by label."""
    by_name = collections.OrderedDict()
    for r in rows:
        by_name.setdefault(group_key(r, by), []).append(r)
    out = []
    for name, rs in by_name.items():
        costs = sorted(r["pred_num"] for r in rs if r["pred_num"]
                       is not None)
        worst = max(rs, key=_worst_key)
        started = sorted(r["started"] for r in rs if r["started"] != "-")
        out.append({
            "name": name, "runs": len(rs),
            "fails": sum(r["outcome"] == "matched" for r in rs),
            "unjudged": sum(r["outcome"] == "unjudged" for r in rs),
            "worst": worst, "worst_rank": _worst_key(worst)[0],
            "clocksources": _counts(r["clocksource"] for r in rs),
            "hypervisors": _counts(r["hypervisor"] for r in rs),
            "p50": percentile(costs, 50), "p90": percentile(costs, 90),
            "max": costs[-1] if costs else None,
            "started": "%s .. %s" % (started[0], started[-1])
            if started else "-",
            "rows": sorted(rs, key=lambda r: (str(r["label"]),
                                              r["run_id"]))})
    out.sort(key=lambda g: (-g["fails"], -g["unjudged"], g["name"]))
    for i, g in enumerate(out):
        g["id"] = "g%d" % i
        g["failing"] = [r for r in g["rows"] if r["outcome"]][
            :NAMED_PER_GROUP]
        g["more_failing"] = g["fails"] + g["unjudged"] - len(g["failing"])
    return out


def named(labels, what):
    """"3 runs without a value: a, b, c" with at most NAMES_SHOWN names
    and "and N more" after them; None for none."""
    labels = [str(x) for x in labels]
    if not labels:
        return None
    shown = ", ".join(labels[:NAMES_SHOWN])
    more = len(labels) - NAMES_SHOWN
    return "%d %s: %s%s" % (len(labels), what, shown,
                            " and %d more" % more if more > 0 else "")


class PageSink:
    """A sink for cptools/fleetload.py's ingest that keeps each run's page
    row (RunRows.page, made where the report was read) and nothing else:
    the fleet page of thousands of runs without their reports in memory.
    Another sink (SQLite, PostgreSQL) may ride along: every call is passed
    on to it."""

    def __init__(self, also=None):
        self.rows = collections.OrderedDict()
        self.rejected = []
        self.also = also
        self.written = 0

    @property
    def flagged(self):
        return self.also.flagged if self.also is not None else sum(
            1 for r in self.rows.values() if r.get("claimed"))

    def add(self, rr):
        row = dict(rr.page)
        row["run_id"], row["label"] = rr.run_id, rr.label
        row["claimed"] = rr.claimed_run_id is not None
        self.rows[rr.run_id] = row
        self.written += 1
        if self.also is not None:
            self.also.add(rr)

    def add_rejected(self, path, why):
        self.rejected.append((path, why))
        if self.also is not None:
            self.also.add_rejected(path, why)

    def set_label(self, run_id, label):
        if run_id in self.rows:
            self.rows[run_id]["label"] = label
        if self.also is not None:
            self.also.set_label(run_id, label)

    def close(self, ok=True):
        if self.also is not None:
            self.also.close(ok)
