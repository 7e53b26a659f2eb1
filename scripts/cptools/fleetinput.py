"""Reading a fleet of reports: every input file through cptools.inputs,
every report a log holds as a run, the run ids the outputs name runs by,
labelled by cptools/fleetlabels.py (split from cptools/fleet.py, which
makes the outputs' rows from the Run objects made here; fleet re-exports
these names).

A run is one verified report.  Its run_id is probe.run_id, else the
CRC-32 of the report's canonical JSON; its digest (report_digest, BLAKE2b)
says which report it is.  A report that claims a run_id another,
different report already holds keeps its claim in claimed_run_id and goes
under RUN_ID#digest, so it can neither replace nor be dropped as the
other; only the same run_id with the same digest is the same run.  Watch records that follow a report in its
log are that run's (verified by watchlog.scan, like scripts/watch).
"""

import collections
import hashlib
import json
import os
import zlib

from . import frame, inputs, longformat, query, shapecheck, watchlog
from .fleetlabels import LOG_SUFFIXES, label_runs
from .untrusted import cap

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
        self.kind = "probe"     # or "guest": a clockprobe-guest report
        self.from_dir = False
        self.input_index = 0
        self._digest = None
        # Set when the report claims a run_id another report already has:
        # run_id is then RUN_ID#digest, and the claim is kept here.
        self.claimed_run_id = None
        self.collides_with = None
        # "crc32": a framed report whose length and CRC checked out;
        # "unverified": a bare JSON file, which nothing vouches for.
        self.verified = verified

    def get(self, p):
        try:
            return query.get_path(self.report, p)
        except (ValueError, TypeError):
            return None

    # The digest (report_digest) is made when first asked for: the
    # database rows make it from the flatten they need anyway
    # (cptools/fleetrows.py), so a fleet load flattens each report once.
    @property
    def digest(self):
        if self._digest is None:
            self._digest = report_digest(self.report)
        return self._digest

    def cached_digest(self):
        return self._digest

    def set_digest(self, digest):
        self._digest = digest
        return digest


def report_digest(report):
    """Which report this is: BLAKE2b over its flattened values, their
    layout and its raw section (longformat.flat_digest) -- equal for the
    .log and the .json copy of one report, different for two reports any
    stored value tells apart."""
    keys, vals = longformat.flatten(report)
    lid = _LAYOUTS.get(tuple(keys))
    if lid is None:
        if len(_LAYOUTS) > 256:
            _LAYOUTS.clear()
        h = hashlib.sha1()
        for k in keys:
            h.update(("%s\x1f%s\x1f%s\x1e" % k).encode("utf-8", "replace"))
        lid = _LAYOUTS[tuple(keys)] = h.hexdigest()[:20]
    return longformat.flat_digest(lid, longformat.values_json(vals, cap),
                                  report)


_LAYOUTS = {}   # layout ids by key tuple (fleetrows.LayoutCache's ids)


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


def input_files(paths):
    """cptools.inputs.input_files for a fleet: [(path, from_dir,
    refusal)], with the framed logs of each folder read before its bare
    .json files.

    A run or matrix folder holds both copies of one run: the CRC-framed
    serial.log (NAME.log) and the bare report.json (NAME.json) written
    from it.  The first copy of a run is the one kept and the later one
    counted once as its duplicate (Placer), so in name order (report.json
    < serial.log) the run was the bare copy, tagged unverified, though its
    verified log lay beside it.  Logs first, the run is the verified copy;
    a bare file of another run (its own run_id) is still a run of its own,
    and one whose log was rejected (a bad CRC) still stands, unverified.
    Files named one by one keep the order given."""
    found = inputs.input_files(paths, LOG_SUFFIXES)
    out, i = [], 0
    while i < len(found):
        if not found[i][1]:
            out.append(found[i])
            i += 1
            continue
        folder, j = os.path.dirname(found[i][0]), i
        while j < len(found) and found[j][1] and \
                os.path.dirname(found[j][0]) == folder:
            j += 1
        # sorted() is stable: names stay in order within logs and .json.
        out += sorted(found[i:j], key=lambda f: f[0].endswith(".json"))
        i = j
    return out


def expand_inputs(paths):
    """[(file, from_a_directory)]: files as given; a directory becomes its
    report-looking files (*.json, *.log, *.txt; recursively, sorted, a
    folder's logs before its .json: input_files).  Links and non-regular
    files in a directory are left out here; load_runs names them as
    rejected (cptools.inputs.input_files)."""
    return [(p, d) for p, d, why in input_files(paths) if why is None]


def read_file_runs(path, from_dir, index=0, warn=lambda msg: None,
                   guests=False, refusal=None):
    """(runs, rejected) for one input file: every report it holds as a
    Run (several copies of one run id: its last copy), each with its
    digest, how it was verified and the log's watch records that are its;
    rejected: [(name, reason)] for the file itself (refusal: the reason
    cptools.inputs.input_files gave), a damaged copy ("path (report 2 of
    3)") or a damaged watch record.  A file of a directory that is no
    report gives neither (a note through warn).  Run ids here are the
    reports' own: load_runs / fleetload.ingest settle collisions across
    files.  This is what a loading process of fleetload does per file."""
    if refusal is None:
        try:
            raw = inputs.read_file(path)
        except inputs.InputError as e:
            refusal = str(e)
    if refusal is not None:
        warn("compare: %s: rejected: %s" % (path, refusal))
        return [], [(path, refusal)]
    found, kind = frame.any_reports_from_bytes(raw)
    guest = kind == "guest"
    rejected = []
    in_file = collections.OrderedDict()     # run id -> last copy
    for k, (report, why, meta) in enumerate(found):
        name = path if len(found) == 1 else "%s (report %d of %d)" % (
            path, k + 1, len(found))
        if guest and report is not None and not guests:
            report, why = None, "a clockprobe-guest report, not a " \
                "probe report"
        if guest and report is not None:
            # Checked before anything reads it (guestjoin, the outputs):
            # a missing key or a value of the wrong type is this input's
            # named rejection, never a traceback that loses the others.
            bad = shapecheck.guest_problems(report)
            if bad:
                report, why = None, "a clockprobe-guest report that does " \
                    "not match docs/guest-report-schema.json: %s" % \
                    "; ".join(bad)
        if not guest and report is not None and \
                not REPORT_KEYS.intersection(report):
            if from_dir:    # results.json of a matrix run, other JSON
                warn("compare: %s: not a clockprobe report, skipped"
                     % name)
                continue
            report, why = None, "not a clockprobe report (none of " \
                "%s)" % ", ".join(sorted(REPORT_KEYS))
        if report is None:
            warn("compare: %s: rejected: %s" % (name, why))
            rejected.append((name, why))
            continue
        rid = guest_run_id(report) if guest else canonical_run_id(report)
        in_file[rid] = (report, "unverified" if meta is None else "crc32")
    # A different run cut short in this log (no END marker): named as a
    # rejected input, never lost in silence; a cut re-sent copy of a run
    # kept above is no loss (frame.cut_runs leaves it out).
    if in_file:
        for cut_rid, at in frame.cut_runs(raw, *((frame.GUEST_BEGIN_RE, frame.GUEST_END_RE)
                                                 if guest else ())):
            name = "%s (%s)" % (path, "run %s" % cap(cut_rid, 80) if cut_rid is not None
                                else "a report at byte %s" % at)
            why = frame.cut_text(cut_rid, at)
            warn("compare: %s: rejected: %s" % (name, why))
            rejected.append((name, why))
    runs = []
    for rid, (report, verified) in in_file.items():
        run = Run(report, path, rid, verified=verified)
        run.from_dir, run.input_index = from_dir, index
        run.kind = "guest" if guest else "probe"
        runs.append(run)
    if runs and not guest and not path.endswith(".json"):
        _watch_records(raw, path, runs, rejected, warn)
    return runs, rejected


class Placer:
    """Where each run of a fleet goes, across files: the very same report
    found again where a directory was read is a duplicate (counted once);
    a different report claiming a run_id already taken is kept under
    RUN_ID#digest and flagged.  fleet.load_runs and the streaming loader
    (fleetload.ingest) share it, so both settle a fleet alike."""

    def __init__(self, warn=lambda msg: None):
        self.by_id, self.by_digest = {}, {}
        self.warn = warn

    def place(self, run_id, digest, path, from_dir):
        """None for a duplicate (warned), else (run_id, claimed_run_id,
        other_path): the id to use, and the claim it could not have
        (None, None when none)."""
        first = self.by_digest.get((run_id, digest))
        if first is not None and (from_dir or first[1]):
            self.warn("compare: %s: same run as %s (%s), counted once"
                      % (path, first[0], run_id))
            return None
        rid, claimed, other = run_id, None, None
        prev = self.by_id.get(run_id)
        if prev is not None and prev[2] != digest:
            rid, claimed, other = "%s#%s" % (run_id, digest), run_id, prev[0]
            self.warn("compare: %s: run_id %s is already %s's, with a "
                      "different report: kept as %s and flagged"
                      % (path, run_id, other, rid))
        self.by_id.setdefault(run_id, (path, from_dir, digest))
        self.by_digest.setdefault((run_id, digest), (path, from_dir))
        return rid, claimed, other

    def first_path(self, run_id, digest):
        return self.by_digest[(run_id, digest)][0]


def load_runs(paths, labels=(), warn=lambda msg: None, guests=None,
              progress=None):
    """(runs, rejected, duplicates) for the given files and directories.

    Every input goes through cptools.inputs (regular files only, sizes,
    JSON limits) and every report a log holds is a run: a log with two
    boots gives two runs, several copies of one run (resent during the
    wait; watch mode's first and final report, which share probe.run_id)
    give that run once, its last copy.

    rejected: [(path, reason)] -- unreadable, not a regular file, bad
    markers, length or CRC, JSON beyond the limits; such a report is never
    partly used ("path (report 2 of 3)" when a log holds others).
    duplicates: [(path, first_path)] -- the very same report found again
    where a directory was read, e.g. a row's .log next to its .json in a
    matrix folder; counted once.  Files named one by one are all used
    (comparing A with A is allowed).  A report that claims the run_id of
    a different report already read is kept under its own key
    (RUN_ID#b2:...) with run.claimed_run_id set and flagged: it never
    replaces, and is never dropped as, the other.  labels: explicit labels
    for the input files in order (--label; a rejected file keeps its
    place); the rest come from probe.label, else from the file name.

    guests: a list that receives the clockprobe-guest reports among the
    inputs (Runs too, labelled the same way, guest.label standing for
    probe.label; cptools.guestjoin pairs them with the probe runs); without
    it such a report is rejected by name.

    progress: a callable(k, n) told after each of the n inputs
    (cptools.progress: k/N on a terminal)."""
    runs, rejected, dups = [], [], []
    guest_runs = []
    placer = Placer(warn)
    items = list(input_files(paths))
    for index, (p, from_dir, refusal) in enumerate(items):
        if progress is not None and index:
            progress(index, len(items))
        file_runs, bad = read_file_runs(p, from_dir, index, warn,
                                        guests is not None, refusal)
        rejected += bad
        for run in file_runs:
            placed = placer.place(run.run_id, run.digest, p, from_dir)
            if placed is None:
                dups.append((p, placer.first_path(run.run_id, run.digest)))
                continue
            run.run_id, run.claimed_run_id, run.collides_with = placed
            (guest_runs if run.kind == "guest" else runs).append(run)
    if progress is not None and items:
        progress(len(items), len(items))
    label_runs(runs + guest_runs, labels)
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


def _watch_records(raw, path, file_runs, rejected, warn):
    """Give each run of a log the verified watch records it holds;
    damaged ones, or ones of no run in the log, go to rejected by name.

    Each frame is found and verified by watchlog.scan, the reader
    scripts/watch uses, so the fleet database and the watch report can
    never disagree on which records are sound."""
    if b"CLOCKPROBE WATCH BEGIN" not in raw:  # most logs: nothing to scan
        return
    text = raw.decode("utf-8", "replace")
    ids = {}
    for run in file_runs:
        ids.setdefault(run.get("probe.run_id"), run)
    only = file_runs[0] if len(file_runs) == 1 else None
    bad = []
    for entry in watchlog.scan(text):
        seq, rec = entry["seq"], entry["record"]
        if rec is None:
            bad.append((seq, entry["error"]))
            continue
        rid = rec.get("run_id")
        owner = ids.get(rid) if rid is not None else only
        if owner is None and only is not None and \
                only.get("probe.run_id") is None:
            owner = only    # a report without run_id: its log's records
        if owner is None:
            want = only.get("probe.run_id") if only else None
            bad.append((seq, "run_id %s is not the report's %s" % (
                cap(repr(rid), 80), cap(repr(want), 80)) if only else
                "run_id %s is no report's in this log"
                % cap(repr(rid), 80)))
            continue
        owner.watch.append((seq, rec))
    for seq, why in sorted(bad):
        name = "%s (watch record seq=%d)" % (path, seq)
        warn("compare: %s: rejected: %s" % (name, why))
        rejected.append((name, why))
