"""Reports as fleet data: run ids, labels, a headline per run, and the
tidy long format (run_id, label, section, name, field, value, unit).

scripts/compare reads a handful of reports or a directory of a thousand
logs through load_runs() (cptools/fleetinput.py, its labels
cptools/fleetlabels.py, both re-exported here); its CSV, JSON Lines,
SQLite and HTML outputs all start from the Run objects made there, so
that every output names a run and a measurement the same way.

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


from . import query
from .fleetinput import (  # noqa: F401 (the fleet's names, in one place)
    REPORT_KEYS, Placer, Run, canonical_run_id, expand_inputs,
    guest_run_id, input_files, load_runs, read_file_runs, report_digest)
from .fleetlabels import (  # noqa: F401 (likewise)
    LOG_SUFFIXES, Labeller, explicit_label, file_labels)

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


# The long format lives in longformat.py; its names stay importable here.
from .longformat import (  # noqa: E402,F401
    LONG_COLUMNS, SKIP_SECTIONS, WATCH_SECTION, flatten, long_rows,
    unit_for, unit_of)
