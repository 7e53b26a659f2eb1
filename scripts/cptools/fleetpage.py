"""The fleet page of scripts/compare --html: one self-contained HTML file.

Order is what an operator reads first: the verdicts (one row per run,
sortable by label, hypervisor, Linux clocksource, vDSO, predicted read cost
and warnings), then the costs per hypervisor as charts, then the
side-by-side details.  No network: styles, SVG and the one script are
inline, and a Content-Security-Policy lets only that script (by its
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

from . import fleet
from .untrusted import html_text as e

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin-bottom:1.5em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;font-size:13px}
th{background:#f0f0f0} td.reg{background:#fdd;font-weight:bold}
table.sortable th{cursor:pointer} table.sortable th[aria-sort]{background:#dde}
h2{font-size:18px;margin-top:1.5em} h3{font-size:15px} .rej{color:#a00}
.critical{color:#a00;font-weight:bold} .warning{color:#a60} .info{color:#555}
td.num{text-align:right}
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
    ("warnings", "warnings", "num"))


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


def verdict_table(runs):
    out = ['<table id="verdicts" class="sortable"><thead><tr>']
    out += ['<th data-name="%s" data-type="%s">%s</th>' % (n, t, e(h))
            for n, h, t in COLUMNS]
    out.append("</tr></thead><tbody>")
    for run in runs:
        h = fleet.headline(run)
        ws = h["warnings"]
        weight = sum(SEVERITY_WEIGHT.get(str(w.get("severity")), 0)
                     for w in ws)
        wtext = ", ".join(
            '<span class="%s" title="%s">%s</span>' % (
                e(w.get("severity") or "", 20), e(w.get("message") or ""),
                e(w.get("code") or "?", 60)) for w in ws) or "none"
        vdso = h["vdso"]
        pred = h["predicted_read_ns"]
        out.append(
            '<tr title="run %s"><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
            '<td class="num" data-key="%s">%s</td>'
            '<td data-key="%d">%s</td></tr>' % (
                e(run.run_id), e(run.label), e(h["hypervisor"]),
                e(h["linux_clocksource"] or "-"),
                "yes" if vdso is True else "no" if vdso is False else "-",
                repr(float(pred)) if _is_num(pred) else "", _fmt(pred),
                weight, wtext))
    out.append("</tbody></table>")
    return "\n".join(out)


def strip_chart(title, unit, groups):
    """One row per group (hypervisor), one dot per run, log-scale axis.

    groups: [(group, [(label, value)])]; values <= 0 are left out."""
    vals = [v for _, pts in groups for _, v in pts if _is_num(v) and v > 0]
    if not vals:
        return ""
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))
    if hi <= lo:
        hi = lo * 10
    left, right, top, row_h, width = 150, 30, 36, 30, 760
    plot_w = width - left - right
    height = top + row_h * len(groups) + 36

    def x(v):
        return left + plot_w * (math.log10(v) - math.log10(lo)) / (
            math.log10(hi) - math.log10(lo))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">'
           % (width, height, width, height),
           '<text x="%d" y="18" font-size="14" font-weight="bold">%s (%s, '
           'log scale)</text>' % (left, e(title), e(unit))]
    dec = int(round(math.log10(lo)))
    while 10 ** dec <= hi * 1.0001:
        gx = x(10 ** dec)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   '<text x="%.1f" y="%d" text-anchor="middle" fill="#555">'
                   '%s</text>' % (gx, top - 6, gx, height - 30, gx,
                                  height - 16, _fmt(10 ** dec)))
        dec += 1
    for i, (group, pts) in enumerate(groups):
        cy = top + row_h * i + row_h / 2
        good = sorted(v for _, v in pts if _is_num(v) and v > 0)
        out.append('<text x="%d" y="%.1f" text-anchor="end" dominant-baseline='
                   '"middle">%s (%d)</text>' % (left - 8, cy, e(group, 24),
                                                len(good)))
        for j, (lab, v) in enumerate(pts):
            if _is_num(v) and v > 0:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#2a5d9f" '
                           'fill-opacity="0.6"><title>%s: %s %s</title>'
                           '</circle>' % (x(v), cy + (j * 7) % 13 - 6, e(lab),
                                          _fmt(v), e(unit)))
        if good:
            med = good[len(good) // 2]
            out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                       'stroke="#c33" stroke-width="2"><title>median %s %s'
                       '</title></line>' % (x(med), cy - 10, x(med), cy + 10,
                                            _fmt(med), e(unit)))
    out.append('<text x="%d" y="%d" font-size="10" fill="#555">one dot per '
               'run; red bar: median</text>' % (left, height - 3))
    out.append("</svg>")
    return "\n".join(out)


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
    by_hv = {}
    for run in runs:
        by_hv.setdefault(fleet.hypervisor(run.report), []).append(run)
    hvs = sorted(by_hv)
    charts = [strip_chart("predicted read cost per hypervisor", "ns", [
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
        charts.append(strip_chart("%s read cost per hypervisor" % n, "ns", [
            (hv, [(r.label, source_cost(r, n)) for r in by_hv[hv]])
            for hv in hvs]))
    return [c for c in charts if c]


DETAILS_MAX_RUNS = 40


def render(runs, details_html, rejected, source_charts, kset=None):
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="%s">'
           % csp_header(),
           "<title>clockprobe fleet</title>",
           "<style>%s</style>" % STYLE,
           "<script>%s</script></head><body>" % SCRIPT,
           "<h1>clockprobe fleet: %d run(s)</h1>" % len(runs)]
    crit = sum(any(w.get("severity") == "critical"
                   for w in fleet.headline(r)["warnings"]) for r in runs)
    out.append("<p>%d run(s) with a critical warning; %d input(s) rejected. "
               "Click a column to sort.</p>" % (crit, len(rejected)))
    out.append("<h2>Verdicts</h2>")
    out.append(verdict_table(runs))
    out.append("<h2>Costs per hypervisor</h2>")
    out += hypervisor_charts(runs)
    if rejected:
        out.append('<h2>Rejected inputs</h2><ul class="rej">')
        out += ["<li><code>%s</code>: %s</li>" % (e(n), e(w))
                for n, w in rejected]
        out.append("</ul>")
    out.append("<h2>Details</h2>")
    if len(runs) <= DETAILS_MAX_RUNS:
        out.append(details_html)
        if source_charts:
            out.append("<h3>Read-cost distributions</h3>")
            out += [svg for _, svg in source_charts]
    else:
        out.append("<p>%d runs are too many to set side by side; "
                   "scripts/compare --sqlite or --csv gives every figure."
                   "</p>" % len(runs))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
