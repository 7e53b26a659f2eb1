"""The fleet page of compare --html: one self-contained HTML file.

Order is what an operator reads first (docs/fleet-page.md):

  - the headline: how many runs the gate fails -- the same judgment as
    compare --fail-on (judgment.gate_result and gate_outcome over the
    --kernels set, --fail-on's policy, else FAIL_ON_DEFAULT), so the
    page's count is the gate's (issue 38: the page once counted the
    report's own kernel only, and Debian 12's 6.1 falling back to
    acpi_pm was grey text while the gate failed it);
  - a filter box (the page's one inline script: rows and groups whose
    text holds what is typed stay, the rest hide);
  - the groups (SMBIOS product = a cloud's instance type, label prefix or
    hypervisor: --group-by): one row per group with its counts, worst
    judgment and read-cost percentiles;
  - the runs by group, one sortable table per group with the started
    time, the verdict over the kernel set and the gate's judgment in red
    where the gate fails; past RUN_ROWS_MAX runs, per group the runs the
    gate fails, named, instead of one row per run;
  - costs per hypervisor as charts, rejected inputs, then the
    side-by-side details with every source's read-cost histogram and the
    gap timeline (at most DETAILS_MAX_RUNS runs; cptools/charts.py).
    What a chart or table leaves out is named beside it.

A run is a page row (page_row): the few figures the page shows, made
from the report while it is in memory, so that a fleet streamed through
cptools/fleetload.py (PageSink) never holds its reports: 2,000 runs in
~120 MB instead of ~490 MB.

No network: styles, SVG and the one script are inline, and a
Content-Security-Policy lets only that script (by its SHA-256) run, so
markup smuggled into a report string could not execute even if escaping
failed; escaping is still done everywhere (html_text).

Opened as page.html#selftest the script checks itself after loading --
every column of every table sorts both ways, the filter hides and shows,
no script error, no CSP violation, no injected handler or script element
-- and writes the result as JSON into <pre id="selftest-result">, which
tests read with a headless browser's --dump-dom
(tests/host/test_fleet_browser.py).
"""

import base64
import collections
import hashlib
import math
import os
import re

from . import charts, fleet, headline, judgment, kernels, policy
from .untrusted import HTML_CAP, cap, html_text

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "templates")

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin-bottom:1.5em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}
th{background:#f0f0f0} td.reg{background:#fdd;font-weight:bold}
table.sortable th{cursor:pointer} table.sortable th[aria-sort]{background:#dde}
h2{font-size:18px;margin-top:1.5em} h3{font-size:15px} .rej{color:#a00}
.critical{color:#a00;font-weight:bold} .warning{color:#a60} .info{color:#555}
td.num{text-align:right} td.head{min-width:16em;max-width:34em;font-size:12px}
.unverified{color:#a60;font-size:11px} svg{max-width:100%;height:auto}
td.fail{color:#b00;font-weight:bold;background:#fee} td.unjudged{color:#a60}
td.fail .head{color:#b00} p.headline{font-size:16px}
p.headline b.fail{color:#b00} .note{color:#555;font-size:12px}
#filter{font-size:14px;padding:3px 6px;width:28em}
section.group h3 a{color:inherit}
table.runs td:nth-child(-n+2){white-space:nowrap}
"""

SCRIPT = r"""
"use strict";
(function () {
  var errors = [];
  window.addEventListener("error", function (ev) {
    errors.push("error: " + ev.message);
  });
  document.addEventListener("securitypolicyviolation", function (ev) {
    errors.push("csp: " + ev.violatedDirective);
  });
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  function key(td, type) {
    var k = td.getAttribute("data-key");
    if (k === null) k = td.textContent;
    if (type === "num") {
      var n = parseFloat(k);
      return isNaN(n) ? Infinity : n;
    }
    return k.toLowerCase();
  }
  function keys(table, col, type) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) {
      return key(r.cells[col], type);
    });
  }
  function sortBy(table, col, dir) {
    var head = table.tHead.rows[0].cells, th = head[col];
    var type = th.getAttribute("data-type") || "text";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], type), y = key(b.cells[col], type);
      return x < y ? -dir : x > y ? dir : 0;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    each(head, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  // The filter: a row (or a named run in a group's list) stays when its
  // text holds every word typed; a group whose rows all hide hides too.
  function filter(text) {
    var words = text.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0, total = 0;
    function keep(el) {
      var t = el.textContent.toLowerCase();
      var ok = words.every(function (w) { return t.indexOf(w) >= 0; });
      el.hidden = !ok;
      total++;
      if (ok) shown++;
      return ok;
    }
    each(document.querySelectorAll("table.filterable"), function (table) {
      each(table.tBodies[0].rows, keep);
    });
    each(document.querySelectorAll("li.filterable"), keep);
    each(document.querySelectorAll("section.group"), function (sec) {
      sec.hidden = words.length > 0 &&
        !sec.querySelector("tbody tr:not([hidden]), li:not([hidden])");
    });
    var count = document.getElementById("filter-count");
    if (count) count.textContent = words.length ?
      shown + " of " + total + " rows shown" : "";
    return shown;
  }
  function visibleLabels(table) {
    var out = [];
    each(table.tBodies[0].rows, function (r) {
      if (!r.hidden) out.push(r.cells[0].textContent);
    });
    return out;
  }
  function selftest() {
    var res = {sorted: {}, errors: errors, scripts: document.scripts.length,
               handlers: 0, pwned: window.__pwned === undefined ? null :
               String(window.__pwned), rows: 0, order_by_predicted: []};
    var all = document.getElementsByTagName("*");
    for (var i = 0; i < all.length; i++)
      for (var j = 0; j < all[i].attributes.length; j++)
        if (/^on/i.test(all[i].attributes[j].name)) res.handlers++;
    each(document.querySelectorAll("table.sortable"), function (table) {
      var runs = table.classList.contains("runs");
      if (runs) res.rows += table.tBodies[0].rows.length;
      each(table.tHead.rows[0].cells, function (th, col) {
        var type = th.getAttribute("data-type") || "text", ok = true;
        th.click();
        var up = keys(table, col, type);
        th.click();
        var down = keys(table, col, type);
        for (var i = 1; i < up.length; i++)
          if (up[i - 1] > up[i] || down[i - 1] < down[i]) ok = false;
        var name = (runs ? "" : table.id + ".") +
          th.getAttribute("data-name");
        res.sorted[name] = (res.sorted[name] !== false) && ok &&
          th.getAttribute("aria-sort") === "descending";
      });
      if (runs) {
        table.querySelector("th[data-name=predicted]").click();
        res.order_by_predicted.push(visibleLabels(table));
      }
    });
    // The filter: the first run's label keeps that run (and its group),
    // a word no row holds hides every row and group, empty shows all.
    var box = document.getElementById("filter"), first =
      document.querySelector("table.runs tbody tr, li.filterable");
    if (box && first) {
      var word = first.getAttribute("data-label") || "";
      box.value = word;
      box.dispatchEvent(new Event("input"));
      res.filter = {word: word, shown: document.querySelectorAll(
        "table.filterable tbody tr:not([hidden]), li.filterable:not([hidden])"
      ).length, groups: document.querySelectorAll(
        "section.group:not([hidden])").length};
      box.value = "no row holds this \u2603";
      box.dispatchEvent(new Event("input"));
      res.filter.none = document.querySelectorAll(
        "section.group:not([hidden])").length;
      box.value = "";
      box.dispatchEvent(new Event("input"));
      res.filter.all = document.querySelectorAll(
        "table.filterable tbody tr:not([hidden])").length;
    }
    var out = document.createElement("pre");
    out.id = "selftest-result";
    out.textContent = JSON.stringify(res);
    document.body.appendChild(out);
  }
  document.addEventListener("DOMContentLoaded", function () {
    each(document.querySelectorAll("table.sortable"), function (table) {
      each(table.tHead.rows[0].cells, function (th, col) {
        th.addEventListener("click", function () {
          var asc = th.getAttribute("aria-sort") !== "ascending";
          sortBy(table, col, asc ? 1 : -1);
        });
      });
    });
    var box = document.getElementById("filter");
    if (box) box.addEventListener("input", function () {
      filter(box.value);
    });
    if (location.hash === "#selftest") selftest();
  });
})();
"""

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
# charts draw at most MAX_HV_SOURCES of them) and warnings: a report of
# 100,000 sources is one row of bounded size.
ROW_SOURCES = 32
ROW_WARNINGS = 20
MAX_HV_SOURCES = 16
# What a chart or list note names before "and N more".
NAMES_SHOWN = 20
GROUP_BY = ("auto", "product", "label", "hypervisor")
_STARTED_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_LABEL_NUMBER_RE = re.compile(r"[-_./:#\s]*\d+$")


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v)


def _fmt(v):
    if not _is_num(v):
        return "-"
    return ("%.3g" % v) if abs(v) < 100 else "%.0f" % v


def csp_header():
    digest = base64.b64encode(hashlib.sha256(
        SCRIPT.encode("utf-8")).digest()).decode("ascii")
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            "script-src 'sha256-%s'" % digest)


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
    if _is_num(rc.get("estimate_ns")):
        return rc["estimate_ns"]
    ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
    return ns.get("p50") if _is_num(ns.get("p50")) else None


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
        "pred_num": float(pred) if _is_num(pred) else None,
        "head": cap(head, 1000) if head else "-",
        "outcome": outcome, "gate": cap(gate, 2000),
        "conf_rank": CONFIDENCE_RANK.get(conf, 9),
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


def hypervisor_charts(rows):
    """[(svg, note or None)]: the predicted read cost per hypervisor, then
    one chart per source (the first MAX_HV_SOURCES names the runs list),
    one dot per run; the note names the runs a chart leaves out (no value,
    or none above 0 on its log axis: charts.plottable)."""
    by_hv = collections.OrderedDict()
    for r in rows:
        by_hv.setdefault(r["hypervisor"], []).append(r)
    hvs = sorted(by_hv)
    specs = [("predicted read cost per hypervisor",
              lambda r: r["pred_num"])]
    names, more = [], []
    for r in rows:
        for n in r["costs"]:
            if n in names or n in more:
                continue
            (names if len(names) < MAX_HV_SOURCES else more).append(n)
    for n in names:
        specs.append(("%s: one read per hypervisor (the estimate)" % n,
                      lambda r, n=n: r["costs"].get(n)))
    out = []
    for title, value in specs:
        svg = charts.strip_chart(title, "ns", [
            (hv, [(r["label"], value(r)) for r in by_hv[hv]])
            for hv in hvs])
        if svg:
            out.append((svg, named([r["label"] for r in rows
                                    if not charts.plottable(value(r))],
                                   "runs not drawn (no read cost)")))
    note = named(more, "more sources not charted here (the details and "
                 "--csv/--sqlite have them)") if more else None
    return out, note


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


DETAILS_MAX_RUNS = 40
# The side-by-side table's sources at most (compare.table_sources picks
# them): 100,000 sources' rows took 16.8 s to build (issue 41); 100
# sources are already 1,100 rows.
DETAILS_MAX_SOURCES = 100


_ENV = []


def _jinja():
    """(jinja2 Environment, markupsafe.Markup): Debian's python3-jinja2,
    autoescaping, so that a value that skips the |t filter is still
    escaped.  |t is html_text (control characters shown, length-capped,
    then escaped; |t(400) for another cap)."""
    if not _ENV:
        from .debpkg import import_debian
        try:
            jinja2 = import_debian("jinja2")
            markup = import_debian("markupsafe").Markup
        except ImportError:
            raise RuntimeError("the fleet page needs Debian's python3-jinja2"
                               ": run scripts/install-deps test")
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
            trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined)
        env.filters["t"] = lambda v, limit=HTML_CAP: markup(
            html_text(v, limit))
        _ENV.append((env, markup))
    return _ENV[0]


def template(name, **values):
    """templates/NAME filled in with values."""
    return _jinja()[0].get_template(name).render(**values)


def markup(text):
    """text as markup of this project's own (the style, the script, the
    charts' SVG, a fragment made by template()): not escaped again."""
    return _jinja()[1](text)


def render(rows, details_html, rejected, source_charts, kset=None,
           charts_note=None, fail_on=None, group_by="auto",
           details_note=None):
    """The whole page (templates/fleet.html) from page rows (page_row;
    verdict_rows for loaded runs).  details_html: the side-by-side
    fragment, or None where it was not made (a streamed fleet);
    source_charts: [(name, svg, note naming the runs it left out)];
    charts_note: what the source charts leave out (compare.chart_plan);
    details_note: what the details table leaves out (compare's
    per-source cap); fail_on: compare's --fail-on (else FAIL_ON_DEFAULT),
    named in the headline with the kernel set."""
    by = pick_group_by(rows, group_by)
    groups = group_rows(rows, by)
    details = None
    if details_html is not None and len(rows) <= DETAILS_MAX_RUNS:
        details = markup(details_html)
    hv_charts, hv_note = hypervisor_charts(rows)
    return template(
        "fleet.html", csp=markup(csp_header()), style=markup(STYLE),
        script=markup(SCRIPT), runs=len(rows),
        fails=sum(r["outcome"] == "matched" for r in rows),
        unjudged=sum(r["outcome"] == "unjudged" for r in rows),
        fail_on=fail_on.text if fail_on is not None else FAIL_ON_DEFAULT,
        fail_on_given=fail_on is not None,
        rejected=rejected, kset=str(kset or "lts"), columns=RUN_COLUMNS,
        group_columns=GROUP_COLUMNS, groups=groups, group_by=by,
        per_run=len(rows) <= RUN_ROWS_MAX, run_rows_max=RUN_ROWS_MAX,
        named_per_group=NAMED_PER_GROUP, fmt=_fmt,
        hypervisor_charts=[(markup(c), n) for c, n in hv_charts],
        hv_note=hv_note, details=details, details_max=DETAILS_MAX_RUNS,
        details_note=details_note, charts_note=charts_note,
        source_charts=[
            (re.sub(r"[^A-Za-z0-9_-]", "_", name)[:60], markup(svg), note)
            for name, svg, note in source_charts])
