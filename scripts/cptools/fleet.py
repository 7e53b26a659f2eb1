"""Reports as fleet data: run ids, labels, a headline per run, and the
tidy long format (run_id, label, section, name, field, value, unit).

scripts/compare reads a handful of reports or a directory of a thousand
logs through load_runs() (cptools/fleetinput.py, re-exported here); its CSV, JSON Lines, SQLite and HTML outputs all
start from the Run objects made here, so that every output names a run and
a measurement the same way.

Long format: one row per scalar of the report.  `section[name].field` is a
path that cptools.query.get_path resolves on the report again:

    sources    tsc   read_cost.ns.p50        6     ns
    drift      tsc/hpet  ppm                 1     ppm
    verdict          predicted_read_ns       7     ns
    verdict.warnings ACPI_PM_FALLBACK  severity  critical

Entries of a list of objects are named by their key field (name, code,
signature, leaf; a/b for drift pairs), by their index when they have none
or it repeats.  `raw` (base64 dumps of CPUID and ACPI) is left out.
Watch records that follow the report in its log come as section
`watch_records`, name = the record's seq.  The
unit comes from the field's name: *_ns/ns -> ns, cycles -> tsc_ticks
(every cycles figure of the report is in TSC ticks), *_hz -> Hz, *_ppm ->
ppm, *_ms -> ms, *_us -> us, *_s -> s, bytes -> bytes; empty when none applies.
"""

import functools
import re

from . import query
from .fleetinput import (  # noqa: F401 (the fleet's names, in one place)
    LOG_SUFFIXES, REPORT_KEYS, Run, canonical_run_id, expand_inputs,
    file_labels, guest_run_id, load_runs, report_digest)
from .untrusted import cap

SKIP_SECTIONS = ("raw",)
# Watch records (cptools/watchlog.py) in the long format: name = seq.
WATCH_SECTION = "watch_records"
LONG_COLUMNS = ("run_id", "label", "section", "name", "field", "value",
                "unit")


# ------------------------------------------------------------- headline

def hypervisor(report):
    hv = query.get_path(report, "platform.hypervisor") \
        if isinstance(report.get("platform"), dict) else None
    if not isinstance(hv, dict):
        return "unknown"
    # The probe names a hypervisor bit without a signature "unknown"; for a
    # fleet that is a hidden hypervisor (KVM with kvm=off), not missing data.
    if hv.get("name") and hv.get("name") != "unknown":
        return str(hv["name"])
    if hv.get("present") is False:
        return "none"
    return "hidden" if hv.get("present") else "unknown"


def headline(run):
    """The verdict row of one run (fleet page, SQLite `runs`)."""
    g = run.get
    ws = g("verdict.warnings")
    ws = [w for w in ws if isinstance(w, dict)] if isinstance(ws, list) \
        else []
    return {
        "run_id": run.run_id, "label": run.label, "source_file": run.path,
        "hypervisor": hypervisor(run.report),
        "linux_clocksource": g("verdict.linux_clocksource"),
        "linux_kernel": g("verdict.linux_kernel"),
        "vdso": g("verdict.vdso"),
        "predicted_read_ns": g("verdict.predicted_read_ns"),
        "confidence": g("verdict.confidence"),
        "warnings": ws,
    }


# ---------------------------------------------------------- long format

@functools.lru_cache(maxsize=4096)
def unit_for(segments):
    """The unit of a field from its path segments (a tuple)."""
    for seg in reversed(segments):
        s = seg.lower()
        if s == "ns" or s.endswith("_ns"):
            return "ns"
        if s == "cycles" or s.endswith("_cycles"):
            return "tsc_ticks"
        if s == "hz" or s.endswith("_hz"):
            return "Hz"
        if s == "ppm" or s.endswith("_ppm"):
            return "ppm"
        if s.endswith("_ms"):
            return "ms"
        if s.endswith("_us"):
            return "us"
        if s.endswith("_s"):
            return "s"
        if s == "bytes" or s.endswith("_bytes"):
            return "bytes"
    return ""


def _entry_key(e):
    if not isinstance(e, dict):
        return None
    if e.get("a") is not None and e.get("b") is not None:
        return "%s/%s" % (e["a"], e["b"])
    for k in query.KEY_FIELDS:
        v = e.get(k)
        if isinstance(v, (str, int)) and not isinstance(v, bool) and \
                str(v) != "":
            return str(v)
    return None


def _keyed_names(entries):
    keys = [_entry_key(e) for e in entries]
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    out = []
    for i, k in enumerate(keys):
        # query's [key] picks the first match: a repeated key (two SSDTs)
        # is addressed by index so that the path finds this very entry.
        # (A dict of first places: keys.index() per entry was quadratic.)
        unique = k is not None and first[k] == i and \
            "]" not in k and "." not in k
        out.append(k if unique else str(i))
    return out


def _list_names(values):
    if any(isinstance(e, dict) for e in values):
        return _keyed_names(values)
    return [str(i) for i in range(len(values))]


_INDEX_RE = re.compile(r"\[[^\]]*\]")


def unit_of(section, field):
    """unit_for over the names of section and field, list keys left out
    (cached on the path without them: a fleet repeats the same few
    hundred fields, a list of 100,000 tables the same few)."""
    return _unit_of_path(_INDEX_RE.sub("", section + "." + field))


@functools.lru_cache(maxsize=8192)
def _unit_of_path(p):
    return unit_for(tuple(x for x in p.split(".") if x))


def _emit(rows, head, field, value):
    """Append a row for every scalar below value; head is (run_id, label,
    section, name), field the path below the entry so far."""
    if isinstance(value, dict):
        for k, v in value.items():
            _emit(rows, head, field + "." + k if field else k, v)
    elif isinstance(value, list):
        for nm, v in zip(_list_names(value), value):
            _emit(rows, head, "%s[%s]" % (field, nm), v)
    elif value is not None:
        if isinstance(value, str):
            value = cap(value)
        rows.append(head + (field, value, unit_of(head[2], field)))


def long_rows(run):
    """The long-format rows of one run, in report order.

    A list of objects directly under the report or one level down becomes
    the section (sources, drift, verdict.warnings, platform.acpi.tables),
    its entries the names; anything deeper stays in the field path."""
    rows = []
    rid, lab = run.run_id, run.label
    for section, value in run.report.items():
        if section in SKIP_SECTIONS:
            continue
        if isinstance(value, list):
            for nm, v in zip(_list_names(value), value):
                _emit(rows, (rid, lab, section, nm), "", v)
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, list) and any(isinstance(e, dict)
                                               for e in v):
                    sec = section + "." + k
                    for nm, e in zip(_keyed_names(v), v):
                        _emit(rows, (rid, lab, sec, nm), "", e)
                else:
                    _emit(rows, (rid, lab, section, ""), k, v)
        else:
            _emit(rows, (rid, lab, section, ""), "", value)
    for seq, rec in run.watch:
        _emit(rows, (rid, lab, WATCH_SECTION, str(seq)), "", rec)
    return rows
