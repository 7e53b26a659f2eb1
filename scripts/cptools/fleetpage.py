"""The fleet page of scripts/compare --html: one self-contained HTML file.

Order is what an operator reads first: the verdicts (one row per run,
sortable by label, hypervisor, Linux clocksource, vDSO, predicted read
cost, the verdict over the kernel set with its confidence and risk, and
warnings; a bare .json marked unverified), then the costs per hypervisor
as charts (every source, the TSC by its estimate), then the side-by-side
details with every source's read-cost histogram and the gap timeline
(cptools/charts.py, matplotlib).  No network: styles, SVG and the one
script are inline, and a Content-Security-Policy lets only that script (by its
SHA-256) run, so markup smuggled into a report string could not execute
even if escaping failed; escaping is still done everywhere (html_text).

Opened as page.html#selftest the script checks itself after loading --
every column sorts both ways, no script error, no CSP violation, no
injected handler or script element -- and writes the result as JSON into
<pre id="selftest-result">, which tests read with a headless browser's
--dump-dom (tests/host/test_fleet_browser.py).
"""

import base64
import hashlib
import math
import os
import re

from . import charts, fleet, headline, judgment, kernels, paths
from .untrusted import HTML_CAP, html_text

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
    Array.prototype.forEach.call(head, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  function selftest() {
    var res = {sorted: {}, errors: errors, scripts: document.scripts.length,
               handlers: 0, pwned: window.__pwned === undefined ? null :
               String(window.__pwned)};
    var all = document.getElementsByTagName("*");
    for (var i = 0; i < all.length; i++)
      for (var j = 0; j < all[i].attributes.length; j++)
        if (/^on/i.test(all[i].attributes[j].name)) res.handlers++;
    var table = document.getElementById("verdicts");
    var head = table.tHead.rows[0].cells;
    res.rows = table.tBodies[0].rows.length;
    Array.prototype.forEach.call(head, function (th, col) {
      var type = th.getAttribute("data-type") || "text", ok = true;
      th.click();
      var up = keys(table, col, type);
      th.click();
      var down = keys(table, col, type);
      for (var i = 1; i < up.length; i++)
        if (up[i - 1] > up[i] || down[i - 1] < down[i]) ok = false;
      res.sorted[th.getAttribute("data-name")] =
        ok && th.getAttribute("aria-sort") === "descending";
    });
    var cost = document.querySelector("#verdicts th[data-name=predicted]");
    cost.click();
    res.order_by_predicted = Array.prototype.map.call(
      table.tBodies[0].rows, function (r) { return r.cells[0].textContent; });
    var out = document.createElement("pre");
    out.id = "selftest-result";
    out.textContent = JSON.stringify(res);
    document.body.appendChild(out);
  }
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(
      document.querySelectorAll("table.sortable"), function (table) {
        Array.prototype.forEach.call(table.tHead.rows[0].cells,
          function (th, col) {
            th.addEventListener("click", function () {
              var asc = th.getAttribute("aria-sort") !== "ascending";
              sortBy(table, col, asc ? 1 : -1);
            });
          });
      });
    if (location.hash === "#selftest") selftest();
  });
})();
"""

SEVERITY_WEIGHT = {"critical": 10000, "warning": 100, "info": 1}
COLUMNS = (  # data-name, header, data-type
    ("label", "label", "text"), ("hypervisor", "hypervisor", "text"),
    ("clocksource", "Linux clocksource", "text"), ("vdso", "vDSO", "text"),
    ("predicted", "predicted read (ns)", "num"),
    ("kernels", "kernels (the set)", "text"),
    ("confidence", "confidence", "num"), ("risk", "risk", "text"),
    ("warnings", "warnings", "num"))
CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}


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


def verdict_rows(runs, kset=None):
    """The verdict table's rows: a dict of text and sort keys per run."""
    rows = []
    for run in runs:
        h = fleet.headline(run)
        ws = h["warnings"]
        vdso = h["vdso"]
        pred = h["predicted_read_ns"]
        head = getattr(run, "kernel_headline", None)
        if head is None:
            j = judgment.Judgment(run.report, kset or kernels.KernelSet())
            head = headline.headline(j, run.report)
        conf = h["confidence"]
        rows.append({
            "run_id": run.run_id, "label": run.label,
            "unverified": run.verified == "unverified",
            "hypervisor": h["hypervisor"],
            "clocksource": h["linux_clocksource"] or "-",
            "vdso": "yes" if vdso is True else "no" if vdso is False
            else "-",
            "pred_key": repr(float(pred)) if _is_num(pred) else "",
            "pred": _fmt(pred), "head": head or "-",
            "conf_rank": CONFIDENCE_RANK.get(conf, 9), "conf": conf or "-",
            "note": run.get("verdict.risk.note"),
            "risk": kernels.risk_text(run.get("verdict.risk")) or "none",
            "weight": sum(SEVERITY_WEIGHT.get(str(w.get("severity")), 0)
                          for w in ws),
            "warnings": [{"severity": w.get("severity") or "",
                          "message": w.get("message") or "",
                          "code": w.get("code") or "?"} for w in ws]})
    return rows


def source_cost(run, name):
    """One read of a source in ns: the estimate the verdict uses, else p50."""
    srcs = run.report.get("sources")
    for s in srcs if isinstance(srcs, list) else []:
        if isinstance(s, dict) and s.get("name") == name:
            if s.get("status") != "ok":
                return None
            rc = s.get("read_cost") if isinstance(s.get("read_cost"),
                                                  dict) else {}
            if _is_num(rc.get("estimate_ns")):
                return rc["estimate_ns"]
            ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
            return ns.get("p50")
    return None


def hypervisor_charts(runs):
    lacking = charts.missing()
    if lacking:
        # matplotlib is only recommended by the package: the page is
        # written all the same, and says where its charts would be.
        return ['<p class="note charts-missing">%s</p>' % html_text(
            "No charts on this page: %s." % lacking)]
    by_hv = {}
    for run in runs:
        by_hv.setdefault(fleet.hypervisor(run.report), []).append(run)
    hvs = sorted(by_hv)
    out = [charts.strip_chart("predicted read cost per hypervisor", "ns", [
        (hv, [(r.label, r.get("verdict.predicted_read_ns"))
              for r in by_hv[hv]]) for hv in hvs])]
    names = []
    for run in runs:
        srcs = run.report.get("sources")
        for s in srcs if isinstance(srcs, list) else []:
            n = s.get("name") if isinstance(s, dict) else None
            if isinstance(n, str) and n not in names and len(names) < 16:
                names.append(n)
    for n in names:
        out.append(charts.strip_chart(
            "%s: one read per hypervisor (the estimate)" % n, "ns", [
                (hv, [(r.label, source_cost(r, n)) for r in by_hv[hv]])
                for hv in hvs]))
    return [c for c in out if c]


DETAILS_MAX_RUNS = 40


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
                               " (%s)" % paths.need_package("python3-jinja2"))
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


def render(runs, details_html, rejected, source_charts, kset=None,
           charts_note=None):
    """The whole page (templates/fleet.html).  charts_note: what the
    source charts leave out (compare.chart_plan), shown above them."""
    crit = sum(any(w.get("severity") == "critical"
                   for w in fleet.headline(r)["warnings"]) for r in runs)
    details = None
    if len(runs) <= DETAILS_MAX_RUNS:
        details = markup(details_html)
    return template(
        "fleet.html", csp=markup(csp_header()), style=markup(STYLE),
        script=markup(SCRIPT), runs=len(runs), critical=crit,
        rejected=rejected, kset=str(kset or "lts"), columns=COLUMNS,
        rows=verdict_rows(runs, kset),
        hypervisor_charts=[markup(c) for c in hypervisor_charts(runs)],
        details=details, charts_note=charts_note, source_charts=[
            (re.sub(r"[^A-Za-z0-9_-]", "_", name)[:60], markup(svg))
            for name, svg in source_charts])
