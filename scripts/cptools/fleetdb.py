"""Runs into a database an operator can query: an SQLite file (compare
--sqlite FILE) or PostgreSQL (compare --postgres DSN), the same tables.

The tables (runs, verdicts, by_kernel, sources, warnings, watch, the
measurements view, rejected, run_digests, run_id_collisions), their
columns and types: cptools/fleetschema.py.

Every value is a bound parameter, so a hostile string is stored as the
text it is.  A run already in the database is replaced as a whole (its
rows are deleted and written again in one transaction) only by the same
report (same digest): ingesting the same folder twice gives the same
database (runs.ingested_utc stays the first load's).  A different
report claiming the same run_id keeps the rows
that are there: it goes in beside them as RUN_ID#digest, flagged in
run_id_collisions (SQLite and PostgreSQL alike); a run written before
digests were recorded counts as the report of its source file, and is
replaced only from that file.  PostgreSQL: each batch is one transaction
that first claims its run_ids in run_digests (INSERT ... ON CONFLICT DO
NOTHING waits for a loader that holds the same key, so two loaders that
meet on a run_id agree on whose it is) and upserts its runs rows, in
run_id order (sorted, they cannot deadlock), and only then replaces those
runs' other rows, so concurrent loaders lose nothing, duplicate nothing
and overwrite no other report.
"""

import sqlite3
import time

from .fleetrows import LayoutCache, _text, layout_rows, rename, run_rows
from .fleetschema import INDEXES, PER_RUN_TABLES, TABLES, TYPES, schema_sql


class FleetDbError(Exception):
    """A database this module cannot write (named, nothing changed)."""


# ----------------------------------------------------------------- sinks

def _placeholders(n, mark):
    return ",".join([mark] * n)


class _Sink:
    """Batches RunRows and writes them; subclasses speak one dialect."""

    BATCH = 500

    def __init__(self, warn=lambda msg: None):
        self.pending = []
        self.pending_ids = set()
        self.known_layouts = set()
        self.new_layouts = []
        self.rejected = {}
        self.labels = []
        self.written = 0
        self.flagged = 0        # runs kept under their own run_id
        self.renamed = {}       # run_id as loaded -> where it went
        self.warn = warn

    def settle(self, rr, held):
        """Where rr goes against the database: held is (digest,
        source_file) of the report that holds rr.run_id there (digest None
        for a run written before digests were kept), or None.  The same
        report replaces its rows; a different one is renamed RUN_ID#digest
        and flagged, leaving the other's rows as they are."""
        if rr.claimed_run_id is not None or held is None:
            return
        digest, source = held
        if digest == rr.digest or (digest is None and source == rr.path):
            return
        old, new = rr.run_id, "%s#%s" % (rr.run_id, rr.digest)
        self.warn("compare: %s: run_id %s is already in the database from "
                  "%s, with a different report: kept as %s and flagged"
                  % (rr.path, old, source, new))
        rename(rr, new, old, source)
        self.renamed[old] = new

    def add(self, rr):
        if rr.layout_keys is not None and \
                rr.layout_id not in self.known_layouts:
            self.known_layouts.add(rr.layout_id)
            self.new_layouts.append((rr.layout_id, rr.layout_keys))
        if rr.run_id in self.pending_ids:   # the same run again: replace
            self.flush()
        self.pending.append(rr)
        self.pending_ids.add(rr.run_id)
        if len(self.pending) >= self.BATCH:
            self.flush()

    def add_rejected(self, path, why):
        self.rejected[_text(path)] = _text(why)

    def set_label(self, run_id, label):
        self.labels.append((_text(label), run_id))

    def final_labels(self):
        """The labels set, under the run_ids their runs went to (settle
        renames at flush time, after set_label)."""
        return [(lab, self.renamed.get(rid, rid)) for lab, rid in
                self.labels]

    def flush(self):
        if self.pending:
            # ingested_utc, the runs row's last column: the batch's time,
            # set here where it is written (the rows were made earlier, in
            # a loading process).
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            for rr in self.pending:
                rr.rows["runs"] = [row[:-1] + (now,)
                                   for row in rr.rows["runs"]]
        if self.pending or self.new_layouts:
            self._write(self.pending, self.new_layouts)
            self.written += len(self.pending)
            self.flagged += sum(bool(rr.rows.get("run_id_collisions"))
                                for rr in self.pending)
        self.pending, self.pending_ids, self.new_layouts = [], set(), []


class SqliteSink(_Sink):
    """An SQLite file, written in one transaction (a run is in the file
    whole or not at all).

    SQLite's defaults, kept for a crash: the rollback journal and
    synchronous=FULL leave a file killed mid-load as it was before, for a
    few fsyncs per transaction (WAL would write 100,000 runs' gigabyte
    twice; OFF/MEMORY journals can leave a corrupt file)."""

    def __init__(self, path, warn=lambda msg: None):
        super().__init__(warn)
        self.db = sqlite3.connect(path, isolation_level=None)
        try:
            old = self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                "name = 'measurements'").fetchone()
            if old:
                raise FleetDbError(
                    "%s holds a fleet database of an older layout "
                    "(measurements as a table of rows); nothing was "
                    "written: load into a new file" % path)
            for stmt in schema_sql("sqlite"):
                self.db.execute(stmt)
            self._migrate()
            self.known_layouts = {r[0] for r in self.db.execute(
                "SELECT DISTINCT layout FROM layouts")}
            self.db.execute("BEGIN")
        except Exception:
            self.db.close()
            raise
        self.sql = {name: "INSERT INTO %s VALUES (%s)" % (
            name, _placeholders(len(cols), "?")) for name, cols in TABLES}

    def _migrate(self):
        """Columns added since a file was made: appended, never renamed."""
        for name, cols in TABLES:
            have = {r[1] for r in self.db.execute(
                "PRAGMA table_info(%s)" % name)}
            for c, k in cols:
                if c not in have:
                    self.db.execute("ALTER TABLE %s ADD COLUMN %s %s" % (
                        name, c, TYPES["sqlite"][k]))

    def _write(self, batch, layouts):
        db = self.db
        for lid, keys in layouts:
            db.executemany("INSERT OR IGNORE INTO layouts VALUES "
                           "(?,?,?,?,?,?)", layout_rows(lid, keys))
        # Who holds each run_id in the file already, asked for the batch at
        # once (two queries a run were a tenth of a fleet load's writing);
        # the batch's own rows go in only after every run is settled.
        held = {}
        ids = [rr.run_id for rr in batch]
        for i in range(0, len(ids), 900):
            chunk = ids[i:i + 900]
            for rid, digest, source in db.execute(
                    "SELECT run_id, digest, source_file FROM run_digests "
                    "WHERE run_id IN (%s)" % _placeholders(len(chunk), "?"),
                    chunk):
                held[rid] = (digest, source)
        old = [rid for rid in ids if rid not in held]
        for i in range(0, len(old), 900):   # written before digests were kept
            chunk = old[i:i + 900]
            for rid, source in db.execute(
                    "SELECT run_id, source_file FROM runs WHERE run_id IN "
                    "(%s)" % _placeholders(len(chunk), "?"), chunk):
                held[rid] = (None, source)
        for rr in batch:
            self.settle(rr, held.get(rr.run_id))
        ids = [rr.run_id for rr in batch]
        present = []
        for i in range(0, len(ids), 900):
            chunk = ids[i:i + 900]
            present += [r[0] for r in db.execute(
                "SELECT run_id FROM runs WHERE run_id IN (%s)"
                % _placeholders(len(chunk), "?"), chunk)]
        # The same report loaded again keeps the time it was first
        # ingested: a second load of a folder leaves the database as it was.
        first = {}
        for i in range(0, len(present), 900):
            chunk = present[i:i + 900]
            first.update(db.execute(
                "SELECT run_id, ingested_utc FROM runs WHERE run_id IN (%s)"
                " AND ingested_utc IS NOT NULL"
                % _placeholders(len(chunk), "?"), chunk).fetchall())
        for rr in batch:
            if rr.run_id in first:
                rr.rows["runs"] = [row[:-1] + (first[rr.run_id],)
                                   for row in rr.rows["runs"]]
        for rid in present:
            for t in PER_RUN_TABLES:
                db.execute("DELETE FROM %s WHERE run_id = ?" % t, (rid,))
        for name, _ in TABLES:
            rows = [row for rr in batch for row in rr.rows[name]]
            if rows:
                db.executemany(self.sql[name], rows)

    def close(self, ok=True):
        try:
            if ok:
                self.flush()
                self.db.executemany("UPDATE runs SET label = ? WHERE "
                                    "run_id = ?", self.final_labels())
                self.db.executemany("INSERT OR REPLACE INTO rejected "
                                    "VALUES (?,?)",
                                    sorted(self.rejected.items()))
                self.db.execute("COMMIT")
                for stmt in INDEXES:
                    self.db.execute(stmt)
            else:
                self.db.execute("ROLLBACK")
        finally:
            self.db.close()


# ---------------------------------------------------------------- writers

def write_runs(sink, runs, rejected, kernel_info=None):
    """Runs already loaded (fleet.load_runs) into a sink, then closed;
    returns how many were written (sink.flagged: how many of them are
    flagged run_id collisions, kept under their own run_id).

    kernel_info: {run_id: (kernel_rows, headline)} when the caller judged
    the kernel set (compare does)."""
    layouts = LayoutCache()
    ok = False
    try:
        for run in runs:
            rows, head = (kernel_info or {}).get(run.run_id, (None, None))
            sink.add(run_rows(run, run.label, layouts, rows, head))
        for p, why in rejected:
            sink.add_rejected(p, why)
        ok = True
    finally:
        sink.close(ok)
    return sink.written


def write_sqlite(path, runs, rejected, kernel_info=None,
                 warn=lambda msg: None):
    """Add the runs (replacing earlier copies of the same reports) and the
    rejected inputs: (runs written, run_id collisions flagged)."""
    sink = SqliteSink(path, warn)
    return write_runs(sink, runs, rejected, kernel_info), sink.flagged
