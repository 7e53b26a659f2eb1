"""The fleet page's style and its one script (cptools/fleetpage.py), and
the Content-Security-Policy that lets only that script run, by its
SHA-256: markup smuggled into a report string could not execute even if
escaping failed.  The script sorts every table by a click on its header,
filters rows and groups by the words typed into the filter box, and,
opened as page.html#selftest, checks itself and writes what it saw into
<pre id="selftest-result"> (tests/host/test_fleet_browser.py reads it with
a headless browser's --dump-dom).
"""

import base64
import hashlib

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


def csp_header():
    digest = base64.b64encode(hashlib.sha256(
        SCRIPT.encode("utf-8")).digest()).decode("ascii")
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
            "script-src 'sha256-%s'" % digest)
