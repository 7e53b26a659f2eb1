"""Runs into a database an operator can query: an SQLite file (compare
--sqlite FILE) or PostgreSQL (compare --postgres DSN), the same tables.

Tables (one row per run, per kernel range, per source, per warning, ...;
run_id joins them):

  runs          run_id, label, source_file, hypervisor, cpu and system
                identity, probe version/boot, verified ("crc32": a framed
                report whose length and CRC-32 checked out; "unverified":
                a bare .json file, which nothing vouches for),
                started_utc (probe.started_utc as the report has it,
                RFC 3339 UTC; NULL when the probe had no clock) and
                ingested_utc (when a load first wrote the run's report,
                the loader's clock, YYYY-MM-DDTHH:MM:SSZ; the same report
                loaded again keeps it)
  verdicts      run_id, linux_clocksource, linux_kernel, vdso,
                predicted_read_ns, confidence, risk (the race the TSC can
                lose, and where Linux ends then: "jiffies_watchdog ->
                acpi_pm"), headline (the verdict over the kernel set in
                one line, as compare prints it)
  by_kernel     one row per run x kernel range: from_kernel, to_kernel,
                linux_clocksource, vdso, predicted_read_ns, confidence,
                risk, warning_codes ("ACPI_PM_FALLBACK,TSC_NOT_INVARIANT"),
                worst_severity, releases and longterm (the releases of the
                range, and the maintained long-term lines among them,
                comma-separated), judged ("report": the report's own
                by_kernel said it; "rules": the verdict rules judged the
                report's verdict.inputs again; "clocksource only": a report
                without either, whose range has no warnings or confidence)
  sources       run_id, name, status, reason, read_path, p50/p99 ns and
                TSC ticks, estimate_ns, backward_steps
  warnings      run_id, code, severity, message, evidence, fix (for the
                report's own linux_kernel)
  watch         run_id, seq, elapsed_tsc_s, elapsed_rtc_s: one row per
                watch record (watch mode), a time series per run; every
                field of a record is in measurements, section
                watch_records, name = seq
  measurements  a view: the long format (cptools.fleet) without the label
                (it is in runs), every scalar of the report: run_id,
                section, name, field, value, unit
  rejected      source_file, reason: logs that did not verify (bad CRC,
                cut off), never partly ingested
  run_digests   run_id, digest (cptools.fleet.report_digest), source_file:
                which report each run's rows came from
  run_id_collisions
                run_id, claimed_run_id, source_file, other_file: a report
                that claimed a run_id another report holds, kept under its
                own run_id (claimed#digest), never in the other's place

measurements is stored as one row per run (measurement_values: the values
as a JSON array) and one shared row per distinct field (layouts: layout,
pos, section, name, field, unit; a layout is the field list of a report
shape, named by its SHA-1, so loaders agree on it without talking): a
report has about 540 values, and 100,000 reports as 54 million rows took
minutes to write where this takes seconds.  The view reads them back as
rows (SQLite json_each, PostgreSQL jsonb_array_elements).

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

# The tables' columns in insert order; SQL types are per dialect
# (TYPES).  Names are a contract: add columns at the end, rename none.
TABLES = (
    ("runs", (
        ("run_id", "key"), ("label", "text"), ("source_file", "text"),
        ("hypervisor", "text"), ("hypervisor_signature", "text"),
        ("cpu_vendor", "text"), ("cpu_brand", "text"),
        ("logical_cpus", "int"), ("system_manufacturer", "text"),
        ("system_product", "text"), ("firmware_vendor", "text"),
        ("probe_version", "text"), ("boot", "text"),
        ("tsc_invariant", "int"), ("tsc_freq_hz", "real"),
        ("verified", "text"),
        # When the probe started (probe.started_utc, the report's own
        # clock) and when this database got the run's rows (the loader's
        # clock): a fleet's "when" is either, and they differ by days
        # for reports collected later (issue 38).
        ("started_utc", "text"), ("ingested_utc", "text"))),
    ("verdicts", (
        ("run_id", "key"), ("linux_clocksource", "text"),
        ("linux_kernel", "text"), ("vdso", "int"),
        ("predicted_read_ns", "real"), ("confidence", "text"),
        ("risk", "text"), ("headline", "text"))),
    ("by_kernel", (
        ("run_id", "text"), ("from_kernel", "text"), ("to_kernel", "text"),
        ("linux_clocksource", "text"), ("vdso", "int"),
        ("predicted_read_ns", "real"), ("confidence", "text"),
        ("risk", "text"), ("warning_codes", "text"),
        ("worst_severity", "text"), ("releases", "text"),
        ("longterm", "text"), ("judged", "text"))),
    ("sources", (
        ("run_id", "text"), ("name", "text"), ("status", "text"),
        ("reason", "text"), ("read_path", "text"), ("p50_ns", "real"),
        ("p99_ns", "real"), ("p50_ticks", "real"), ("p99_ticks", "real"),
        ("estimate_ns", "real"), ("backward_steps", "int"))),
    ("warnings", (
        ("run_id", "text"), ("code", "text"), ("severity", "text"),
        ("message", "text"), ("evidence", "text"), ("fix", "text"))),
    ("watch", (
        ("run_id", "text"), ("seq", "int"), ("elapsed_tsc_s", "real"),
        ("elapsed_rtc_s", "real"))),
    ("measurement_values", (
        ("run_id", "key"), ("layout", "text"), ("vals", "json"))),
    # Which report each run's rows came from (fleetinput.report_digest):
    # a later report claiming the run_id replaces them only when it is
    # the same report.
    ("run_digests", (
        ("run_id", "key"), ("digest", "text"), ("source_file", "text"))),
    # A report that claimed a run_id another report holds, kept under its
    # own run_id (claimed#digest), never in the other's place.
    ("run_id_collisions", (
        ("run_id", "key"), ("claimed_run_id", "text"),
        ("source_file", "text"), ("other_file", "text"))),
)
PER_RUN_TABLES = tuple(name for name, _ in TABLES)
EXTRA_KEYS = {"sources": "PRIMARY KEY (run_id, name)",
              "watch": "PRIMARY KEY (run_id, seq)",
              "by_kernel": "PRIMARY KEY (run_id, from_kernel)"}
TYPES = {
    "sqlite": {"key": "TEXT PRIMARY KEY", "text": "TEXT", "int": "INTEGER",
               "real": "REAL", "json": "TEXT"},
    "postgres": {"key": "TEXT PRIMARY KEY", "text": "TEXT", "int": "BIGINT",
                 "real": "DOUBLE PRECISION", "json": "JSONB"},
}
# Indexes: SQLite builds them after a bulk insert (cheaper than row by row).
INDEXES = (
    "CREATE INDEX IF NOT EXISTS warnings_run ON warnings (run_id)",
    "CREATE INDEX IF NOT EXISTS warnings_code ON warnings (code, severity)",
    "CREATE INDEX IF NOT EXISTS by_kernel_clocksource ON by_kernel "
    "(linux_clocksource)",
)
VIEW = {
    "sqlite": """CREATE VIEW IF NOT EXISTS measurements AS
  SELECT v.run_id AS run_id, l.section AS section, l.name AS name,
         l.field AS field, j.value AS value, l.unit AS unit
  FROM measurement_values v, json_each(v.vals) j
  JOIN layouts l ON l.layout = v.layout AND l.pos = j.key""",
    "postgres": """CREATE OR REPLACE VIEW measurements AS
  SELECT v.run_id AS run_id, l.section AS section, l.name AS name,
         l.field AS field, j.value AS value, l.unit AS unit
  FROM measurement_values v
  CROSS JOIN LATERAL jsonb_array_elements(v.vals) WITH ORDINALITY
    AS j(value, ord)
  JOIN layouts l ON l.layout = v.layout AND l.pos = j.ord - 1""",
}


def schema_sql(dialect):
    t = TYPES[dialect]
    out = []
    for name, cols in TABLES:
        body = ", ".join("%s %s" % (c, t[k]) for c, k in cols)
        if name in EXTRA_KEYS:
            body += ", " + EXTRA_KEYS[name]
        out.append("CREATE TABLE IF NOT EXISTS %s (%s)" % (name, body))
    out.append("CREATE TABLE IF NOT EXISTS layouts (layout TEXT, pos %s, "
               "section TEXT, name TEXT, field TEXT, unit TEXT, "
               "PRIMARY KEY (layout, pos))" % t["int"])
    out.append("CREATE TABLE IF NOT EXISTS rejected (source_file TEXT "
               "PRIMARY KEY, reason TEXT)")
    out.append(VIEW[dialect])
    return out


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
