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

A run is a page row (cptools/fleetgroups.py page_row): the few figures
the page shows, made from the report while it is in memory, so that a
fleet streamed through cptools/fleetload.py (fleetgroups.PageSink) never
holds its reports: 2,000 runs in ~100-150 MB instead of ~490 MB.

No network: styles, SVG and the one script are inline, and a
Content-Security-Policy lets only that script (by its SHA-256,
cptools/fleetscript.py) run, so
markup smuggled into a report string could not execute even if escaping
failed; escaping is still done everywhere (html_text).

Opened as page.html#selftest the script checks itself after loading --
every column of every table sorts both ways, the filter hides and shows,
no script error, no CSP violation, no injected handler or script element
-- and writes the result as JSON into <pre id="selftest-result">, which
tests read with a headless browser's --dump-dom
(tests/host/test_fleet_browser.py).
"""

import collections
import os
import re

from . import charts, fleetgroups, paths
from .fleetgroups import (
    FAIL_ON_DEFAULT, GROUP_COLUMNS, RUN_COLUMNS, group_rows, named,
    pick_group_by)
from .fleetscript import SCRIPT, STYLE, csp_header
from .untrusted import HTML_CAP, html_text

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "templates")

# At most this many sources get a per-hypervisor chart (the others are
# named under the charts).
MAX_HV_SOURCES = 16


def hypervisor_charts(rows):
    """[(svg, note or None)]: the predicted read cost per hypervisor, then
    one chart per source (the first MAX_HV_SOURCES names the runs list),
    one dot per run; the note names the runs a chart leaves out (no value,
    or none above 0 on its log axis: charts.plottable)."""
    lacking = charts.missing()
    if lacking:
        # matplotlib is only recommended by the package: the page is
        # written all the same, and says where its charts would be.
        return [], "No charts on this page: %s." % lacking
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
        per_run=len(rows) <= fleetgroups.RUN_ROWS_MAX,
        run_rows_max=fleetgroups.RUN_ROWS_MAX,
        named_per_group=fleetgroups.NAMED_PER_GROUP,
        fmt=fleetgroups.fmt_cost,
        hypervisor_charts=[(markup(c), n) for c, n in hv_charts],
        hv_note=hv_note, details=details, details_max=DETAILS_MAX_RUNS,
        details_note=details_note, charts_note=charts_note,
        source_charts=[
            (re.sub(r"[^A-Za-z0-9_-]", "_", name)[:60], markup(svg), note)
            for name, svg, note in source_charts])
