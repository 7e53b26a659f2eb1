"""Reports as fleet data: run ids, labels, a headline per run, and the
tidy long format (run_id, label, section, name, field, value, unit).

scripts/compare reads a handful of reports or a directory of a thousand
logs through load_runs(); its CSV, JSON Lines, SQLite and HTML outputs all
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

import json
import os
import zlib

from . import frame, query, watchlog
from .untrusted import cap

LOG_SUFFIXES = (".json", ".log", ".txt")
# A JSON object with none of these is some other file (a matrix run's
# results.json), not a report.
REPORT_KEYS = frozenset(("probe", "platform", "sources", "verdict"))


class Run:
    """One verified report and how the outputs name it."""

    def __init__(self, report, path, run_id, label=None,
                 verified="crc32"):
        self.report = report
        self.path = path
        self.run_id = run_id
        self.label = label
        self.watch = []     # [(seq, record)] from the same log, verified
        # "crc32": a framed report whose length and CRC checked out;
        # "unverified": a bare JSON file, which nothing vouches for.
        self.verified = verified

    def get(self, p):
        try:
            return query.get_path(self.report, p)
        except (ValueError, TypeError):
            return None


def canonical_run_id(report):
    """probe.run_id when the probe wrote one; else the CRC-32 of the
    report's canonical JSON (sorted keys, compact), so the .log and the
    .json copy of one run get the same id."""
    rid = query.get_path(report, "probe.run_id") \
        if isinstance(report.get("probe"), dict) else None
    if isinstance(rid, (str, int)) and not isinstance(rid, bool) \
            and str(rid):
        return cap(str(rid), 200)
    data = json.dumps(report, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8", "replace")
    return "crc32:%08x" % (zlib.crc32(data) & 0xFFFFFFFF)


def expand_inputs(paths):
    """[(file, from_a_directory)]: files as given; a directory becomes its
    report-looking files (*.json, *.log, *.txt; recursively, sorted)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            for top, dirs, files in os.walk(p):
                dirs.sort()
                for f in sorted(files):
                    if f.endswith(LOG_SUFFIXES):
                        out.append((os.path.join(top, f), True))
        else:
            out.append((p, False))
    return out


def _stem(path):
    base = os.path.basename(path)
    for ext in LOG_SUFFIXES:
        if base.endswith(ext):
            return base[:-len(ext)]
    return base


def file_labels(paths):
    """A short distinct label per path: the file name without extension,
    with as many parent folders as it takes to tell equal names apart
    (a/report.json, b/report.json -> a/report, b/report)."""
    norm = [os.path.normpath(os.path.abspath(p)) for p in paths]
    parts = [n.split(os.sep) for n in norm]
    stems = [_stem(p) for p in paths]
    depth = [1] * len(paths)

    def label(i):
        return "/".join(parts[i][-depth[i]:-1] + [stems[i]])

    while True:
        files_by_label = {}
        for i in range(len(paths)):
            files_by_label.setdefault(label(i), set()).add(norm[i])
        grow = [i for i in range(len(paths))
                if len(files_by_label[label(i)]) > 1
                and depth[i] < len(parts[i])]
        if not grow:
            break
        for i in grow:
            depth[i] += 1
    taken, out = set(), []
    for i in range(len(paths)):   # the same path twice: number the copies
        lab = label(i)
        new, n = lab, 2
        while new in taken:
            new, n = "%s-%d" % (lab, n), n + 1
        taken.add(new)
        out.append(new)
    return out


def read_run(path, from_dir, warn=lambda msg: None, guests=False):
    """(run, None), (None, reason) for a rejected input, or (None, None)
    for a file of a directory that is no report (skipped with a note).

    run.kind is "probe" or "guest" (a clockprobe-guest report: rejected
    by name unless guests); run.watch holds the log's verified watch
    records, damaged ones are in run.watch_rejected as (name, reason);
    run.verified says how the input was checked.  The label is unset."""
    how = {}
    report, kind, why = frame.load_any_report_file(path, how)
    guest = kind == "guest"
    if guest and report is not None and not guests:
        report, why = None, "a clockprobe-guest report, not a probe report"
    if not guest and report is not None and \
            not REPORT_KEYS.intersection(report):
        if from_dir:    # results.json of a matrix run, other tools' JSON
            warn("compare: %s: not a clockprobe report, skipped" % path)
            return None, None
        report, why = None, "not a clockprobe report (none of %s)" % (
            ", ".join(sorted(REPORT_KEYS)))
    if report is None:
        warn("compare: %s: rejected: %s" % (path, why))
        return None, why
    rid = guest_run_id(report) if guest else canonical_run_id(report)
    run = Run(report, path, rid, verified=how.get("verified", "crc32"))
    run.from_dir = from_dir
    run.kind = "guest" if guest else "probe"
    run.watch_rejected = []
    if not guest and not path.endswith(".json"):
        run.watch = _watch_records(path, run, run.watch_rejected, warn)
    return run, None


def explicit_label(run, labels):
    """--label for this input (by input order), else probe.label (or
    guest.label), else None: the file-name label needs every such run
    (file_labels)."""
    if run.input_index < len(labels):
        return labels[run.input_index]
    probe_label = run.get(getattr(run, "kind", "probe") + ".label")
    if isinstance(probe_label, str) and probe_label.strip():
        return cap(probe_label, 200)
    return None


def load_runs(paths, labels=(), warn=lambda msg: None, guests=None):
    """(runs, rejected, duplicates) for the given files and directories.

    rejected: [(path, reason)] -- unreadable, bad markers, length or CRC;
    such a log is never partly used.  duplicates: [(path, first_path)] --
    a report found in a directory that was already read (same run id),
    e.g. a row's .log next to its .json in a matrix folder; counted once.
    Files named one by one are all used (comparing A with A is allowed).  labels: explicit labels for
    the input files in order (--label; a rejected file keeps its place);
    the rest come from probe.label, else from the file name.

    guests: a list that receives the clockprobe-guest reports among the
    inputs (Runs too, labelled the same way, guest.label standing for
    probe.label; cptools.guestjoin pairs them with the probe runs); without
    it such a report is rejected by name."""
    files = expand_inputs(paths)
    runs, rejected, dups, seen = [], [], [], {}
    guest_runs = []
    for index, (p, from_dir) in enumerate(files):
        run, why = read_run(p, from_dir, warn, guests is not None)
        if run is None:
            if why is not None:
                rejected.append((p, why))
            continue
        rid = run.run_id
        if rid in seen and (from_dir or seen[rid].from_dir):
            dups.append((p, seen[rid].path))
            warn("compare: %s: same run as %s (%s), counted once"
                 % (p, seen[rid].path, rid))
            continue
        run.input_index = index
        seen.setdefault(rid, run)
        (guest_runs if run.kind == "guest" else runs).append(run)
        rejected.extend(run.watch_rejected)
    need_file_label = []
    for r in runs + guest_runs:
        r.label = explicit_label(r, labels)
        if r.label is None:
            need_file_label.append(r)
    for r, lab in zip(need_file_label,
                      file_labels([r.path for r in need_file_label])):
        r.label = lab
    if guests is not None:
        guests.extend(guest_runs)
    return runs, rejected, dups


def guest_run_id(report):
    """"guest:" and guest.run_id (random per clockprobe-guest run), else
    the CRC-32 of the canonical JSON, as for probe reports."""
    rid = query.get_path(report, "guest.run_id") \
        if isinstance(report.get("guest"), dict) else None
    if isinstance(rid, str) and rid:
        return "guest:" + cap(rid, 200)
    return canonical_run_id(report)


def _watch_records(path, run, rejected, warn):
    """The verified watch records of the log that holds run's report;
    damaged ones, or ones of another run, go to rejected by name.

    Each frame is found and verified by watchlog.scan, the reader
    scripts/watch uses, so the fleet database and the watch report can
    never disagree on which records are sound."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    if "CLOCKPROBE WATCH BEGIN" not in text:  # most logs: nothing to scan
        return []
    probe_id = run.get("probe.run_id")
    out, bad = [], []
    for entry in watchlog.scan(text):
        seq, rec = entry["seq"], entry["record"]
        if rec is None:
            bad.append((seq, entry["error"]))
            continue
        rid = rec.get("run_id")
        if probe_id is not None and rid is not None and rid != probe_id:
            bad.append((seq, "run_id %r is not the report's %r"
                        % (rid, probe_id)))
            continue
        out.append((seq, rec))
    for seq, why in sorted(bad):
        name = "%s (watch record seq=%d)" % (path, seq)
        warn("compare: %s: rejected: %s" % (name, why))
        rejected.append((name, why))
    return out


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
