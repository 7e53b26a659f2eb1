"""Runs into an SQLite database an operator can query (compare --sqlite).

Tables (one row per run, per source, per warning, ...; run_id joins them):

  runs          run_id, label, source_file, hypervisor, cpu and system
                identity, probe version/boot
  verdicts      run_id, linux_clocksource, linux_kernel, vdso,
                predicted_read_ns, confidence
  by_kernel     run_id, from_kernel, to_kernel, linux_clocksource, vdso
  sources       run_id, name, status, reason, read_path, p50/p99 ns and
                TSC ticks, estimate_ns, backward_steps
  warnings      run_id, code, severity, message, evidence, fix
  watch         run_id, seq, elapsed_tsc_s, elapsed_rtc_s: one row per
                watch record (watch mode), a time series per run; every
                field of a record is in measurements, section
                watch_records, name = seq
  measurements  the long format (cptools.fleet) without the label (it is in
                runs): every scalar of the report
  rejected      source_file, reason: logs that did not verify (bad CRC,
                cut off), never partly ingested
  run_digests   run_id, digest (cptools.fleet.report_digest), source_file:
                which report each run's rows came from
  run_id_collisions
                run_id, claimed_run_id, source_file, other_file: a report
                that claimed a run_id another report holds, kept under its
                own run_id (claimed#digest), never in the other's place

Every value is a bound parameter, so a hostile string is stored as the
text it is; an integer beyond SQLite's 64 bits (a u64 of 2**63 or more)
is stored as its decimal text.  A run already in the file is replaced as
a whole (its rows are deleted and written again in one transaction) only
by the same report (same digest): ingesting the same folder twice gives
the same database.  A different report claiming the same run_id is kept
beside it and flagged in run_id_collisions; a row written before digests
were recorded is replaced only from the same source file.
"""

import sqlite3

from . import fleet
from .untrusted import cap

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, label TEXT, source_file TEXT, hypervisor TEXT,
  hypervisor_signature TEXT, cpu_vendor TEXT, cpu_brand TEXT,
  logical_cpus INTEGER, system_manufacturer TEXT, system_product TEXT,
  firmware_vendor TEXT, probe_version TEXT, boot TEXT, tsc_invariant INTEGER,
  tsc_freq_hz REAL);
CREATE TABLE IF NOT EXISTS verdicts (
  run_id TEXT PRIMARY KEY, linux_clocksource TEXT, linux_kernel TEXT,
  vdso INTEGER, predicted_read_ns REAL, confidence TEXT);
CREATE TABLE IF NOT EXISTS by_kernel (
  run_id TEXT, from_kernel TEXT, to_kernel TEXT, linux_clocksource TEXT,
  vdso INTEGER);
CREATE TABLE IF NOT EXISTS sources (
  run_id TEXT, name TEXT, status TEXT, reason TEXT, read_path TEXT,
  p50_ns REAL, p99_ns REAL, p50_ticks REAL, p99_ticks REAL,
  estimate_ns REAL, backward_steps INTEGER, PRIMARY KEY (run_id, name));
CREATE TABLE IF NOT EXISTS warnings (
  run_id TEXT, code TEXT, severity TEXT, message TEXT, evidence TEXT,
  fix TEXT);
CREATE TABLE IF NOT EXISTS measurements (
  run_id TEXT, section TEXT, name TEXT, field TEXT, value, unit TEXT);
CREATE TABLE IF NOT EXISTS watch (
  run_id TEXT, seq INTEGER, elapsed_tsc_s REAL, elapsed_rtc_s REAL,
  PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS rejected (source_file TEXT, reason TEXT);
CREATE TABLE IF NOT EXISTS run_digests (
  run_id TEXT PRIMARY KEY, digest TEXT, source_file TEXT);
CREATE TABLE IF NOT EXISTS run_id_collisions (
  run_id TEXT PRIMARY KEY, claimed_run_id TEXT, source_file TEXT,
  other_file TEXT);
"""
# Built after a bulk insert (cheaper than maintaining them row by row).
INDEXES = """
CREATE INDEX IF NOT EXISTS warnings_run ON warnings (run_id);
CREATE INDEX IF NOT EXISTS warnings_code ON warnings (code, severity);
CREATE INDEX IF NOT EXISTS measurements_run ON measurements (run_id);
CREATE INDEX IF NOT EXISTS by_kernel_run ON by_kernel (run_id);
"""
PER_RUN_TABLES = ("runs", "verdicts", "by_kernel", "sources", "warnings",
                  "watch", "measurements", "run_digests",
                  "run_id_collisions")
SQLITE_INT_MIN, SQLITE_INT_MAX = -(1 << 63), (1 << 63) - 1


def _num(v):
    return _bind(v) if isinstance(v, (int, float)) and \
        not isinstance(v, bool) else None


def _bind(v):
    """A value SQLite can bind: an int beyond 64 signed bits as text."""
    if isinstance(v, int) and not isinstance(v, bool) and \
            not SQLITE_INT_MIN <= v <= SQLITE_INT_MAX:
        return str(v)
    return v


def _claim(db, run):
    """The run_id this run's rows go under, and the collision to flag
    (None when none): the same report again replaces its rows; a
    different report claiming a run_id that is taken keeps the rows that
    are there and goes under RUN_ID#digest."""
    rid = run.run_id
    if run.claimed_run_id is not None:      # already a collision in the batch
        return rid, (run.claimed_run_id, run.collides_with)
    row = db.execute("SELECT digest FROM run_digests WHERE run_id = ?",
                     (rid,)).fetchone()
    if row is not None:
        if row[0] == run.digest:
            return rid, None
    else:
        old = db.execute("SELECT source_file FROM runs WHERE run_id = ?",
                         (rid,)).fetchone()
        if old is None or old[0] == run.path:
            return rid, None
    other = db.execute("SELECT source_file FROM runs WHERE run_id = ?",
                       (rid,)).fetchone()
    return "%s#%s" % (rid, run.digest), (rid, other[0] if other else None)


def _bool(v):
    return int(v) if isinstance(v, bool) else None


def _text(v):
    if v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return cap(v)


def _insert_run(db, run, warn):
    g = run.get
    h = fleet.headline(run)
    rid, collision = _claim(db, run)
    if collision and run.claimed_run_id is None:
        warn("compare: %s: run_id %s is already in the database from %s, "
             "with a different report: kept as %s and flagged"
             % (run.path, collision[0], collision[1], rid))
    if db.execute("SELECT 1 FROM runs WHERE run_id = ?", (rid,)).fetchone():
        for t in PER_RUN_TABLES:
            db.execute("DELETE FROM %s WHERE run_id = ?" % t, (rid,))
    db.execute("INSERT INTO run_digests VALUES (?,?,?)",
               (rid, run.digest, _text(run.path)))
    if collision:
        db.execute("INSERT INTO run_id_collisions VALUES (?,?,?,?)",
                   (rid, collision[0], _text(run.path),
                    _text(collision[1])))
    db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (
        rid, _text(run.label), _text(run.path), _text(h["hypervisor"]),
        _text(g("platform.hypervisor.signature")),
        _text(g("platform.cpu.vendor")), _text(g("platform.cpu.brand")),
        _num(g("platform.cpu.logical_cpus")),
        _text(g("platform.smbios.manufacturer")),
        _text(g("platform.smbios.product")),
        _text(g("platform.firmware.vendor")), _text(g("probe.version")),
        _text(g("probe.boot")), _bool(g("platform.tsc.invariant")),
        _num(g("platform.tsc.freq_chosen.hz"))))
    db.execute("INSERT INTO verdicts VALUES (?,?,?,?,?,?)", (
        rid, _text(h["linux_clocksource"]), _text(h["linux_kernel"]),
        _bool(h["vdso"]), _num(h["predicted_read_ns"]),
        _text(h["confidence"])))
    bk = g("verdict.by_kernel")
    for e in bk if isinstance(bk, list) else []:
        if isinstance(e, dict):
            db.execute("INSERT INTO by_kernel VALUES (?,?,?,?,?)", (
                rid, _text(e.get("from")), _text(e.get("to")),
                _text(e.get("linux_clocksource")), _bool(e.get("vdso"))))
    srcs = g("sources")
    seen = set()
    for s in srcs if isinstance(srcs, list) else []:
        if not isinstance(s, dict) or not s.get("name") or \
                str(s["name"]) in seen:
            continue
        seen.add(str(s["name"]))
        rc = s.get("read_cost") if isinstance(s.get("read_cost"),
                                              dict) else {}
        ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
        cy = rc.get("cycles") if isinstance(rc.get("cycles"), dict) else {}
        db.execute("INSERT INTO sources VALUES (?,?,?,?,?,?,?,?,?,?,?)", (
            rid, _text(s["name"]), _text(s.get("status")),
            _text(s.get("reason")), _text(s.get("read_path")),
            _num(ns.get("p50")), _num(ns.get("p99")), _num(cy.get("p50")),
            _num(cy.get("p99")), _num(rc.get("estimate_ns")),
            _num(s.get("backward_steps"))))
    for w in h["warnings"]:
        db.execute("INSERT INTO warnings VALUES (?,?,?,?,?,?)", (
            rid, _text(w.get("code")), _text(w.get("severity")),
            _text(w.get("message")), _text(w.get("evidence")),
            _text(w.get("fix"))))
    for seq, rec in run.watch:
        db.execute("INSERT OR REPLACE INTO watch VALUES (?,?,?,?)", (
            rid, seq, _num(rec.get("elapsed_tsc_s")),
            _num(rec.get("elapsed_rtc_s"))))
    # Long-format values are already capped; bools go in as 0/1.
    db.executemany("INSERT INTO measurements VALUES (?,?,?,?,?,?)",
                   [(rid,) + r[2:5] + (_bind(r[5]), r[6])
                    for r in fleet.long_rows(run)])
    return collision is not None


def write_sqlite(path, runs, rejected, warn=lambda msg: None):
    """Add the runs (replacing earlier copies of the same reports) and the
    rejected inputs; returns how many runs were flagged as run_id
    collisions (kept under their own run_id, see _claim)."""
    db = sqlite3.connect(path)
    flagged = 0
    try:
        db.executescript(SCHEMA)
        with db:  # one transaction: a run is in the file whole or not at all
            for run in runs:
                flagged += _insert_run(db, run, warn)
            for p, why in rejected:
                db.execute("DELETE FROM rejected WHERE source_file = ?",
                           (p,))
                db.execute("INSERT INTO rejected VALUES (?,?)",
                           (_text(p), _text(why)))
        db.executescript(INDEXES)
    finally:
        db.close()
    return flagged
