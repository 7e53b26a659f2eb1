"""Runs into a database an operator can query: an SQLite file (compare
--sqlite FILE) or PostgreSQL (compare --postgres DSN), the same tables.

Tables (one row per run, per kernel range, per source, per warning, ...;
run_id joins them):

  runs          run_id, label, source_file, hypervisor, cpu and system
                identity, probe version/boot, verified ("crc32": a framed
                report whose length and CRC-32 checked out; "unverified":
                a bare .json file, which nothing vouches for)
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

measurements is stored as one row per run (measurement_values: the values
as a JSON array) and one shared row per distinct field (layouts: layout,
pos, section, name, field, unit; a layout is the field list of a report
shape, named by its SHA-1, so loaders agree on it without talking): a
report has about 540 values, and 100,000 reports as 54 million rows took
minutes to write where this takes seconds.  The view reads them back as
rows (SQLite json_each, PostgreSQL jsonb_array_elements).

Every value is a bound parameter, so a hostile string is stored as the
text it is.  A run already in the database is replaced as a whole (its
rows are deleted and written again in one transaction): ingesting the
same folder twice gives the same database.  PostgreSQL: each batch is one
transaction that first upserts its runs rows in run_id order (the row
lock orders two loaders that meet on a run; sorted, they cannot deadlock)
and only then replaces those runs' other rows, so concurrent loaders lose
nothing and duplicate nothing.
"""

import hashlib
import json
import math
import sqlite3

from . import fleet
from .untrusted import cap

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
        ("verified", "text"))),
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


def _num(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, int) and not -2 ** 63 <= v < 2 ** 63:
        return float(v)     # SQLite and BIGINT hold 64 bits
    return v


def _bool(v):
    return int(v) if isinstance(v, bool) else None


def _text(v):
    if v is None or isinstance(v, (dict, list)):
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    return cap(v)


# ------------------------------------------------------------------ rows

class RunRows:
    """One run's rows for every per-run table, and its measurement layout
    (keys: [(section, name, field)], named by layout_id)."""

    __slots__ = ("run_id", "label", "rows", "layout_id", "layout_keys",
                 "input_index", "from_dir", "path", "policy")


def _layout_id(keys):
    h = hashlib.sha1()
    for s, n, f in keys:
        h.update(("%s\x1f%s\x1f%s\x1e" % (s, n, f)).encode("utf-8",
                                                        "replace"))
    return h.hexdigest()[:20]


class LayoutCache:
    """Layout ids by key list: reports of one probe version share one."""

    def __init__(self):
        self.ids = {}

    def get(self, keys):
        k = tuple(keys)
        lid = self.ids.get(k)
        if lid is None:
            lid = self.ids[k] = _layout_id(keys)
            return lid, True
        return lid, False


def _vals_json(vals):
    try:
        return json.dumps(vals, separators=(",", ":"), allow_nan=False)
    except ValueError:      # NaN/Infinity: no JSON for them, stored NULL
        return json.dumps([None if isinstance(v, float) and
                           not math.isfinite(v) else v for v in vals],
                          separators=(",", ":"))
    except TypeError:
        return json.dumps([_text(v) if not isinstance(
            v, (int, float, str, bool)) else v for v in vals],
            separators=(",", ":"))


def run_rows(run, label, layouts, kernel_rows=None, headline_text=None):
    """RunRows for a fleet.Run (label may be None: set later).

    kernel_rows: the by_kernel rows (cptools.kernels.table_rows), else
    they are made from the report's own by_kernel."""
    from . import kernels
    g = run.get
    h = fleet.headline(run)
    rid = run.run_id
    rows = {}
    rows["runs"] = [(
        rid, _text(label), _text(run.path), _text(h["hypervisor"]),
        _text(g("platform.hypervisor.signature")),
        _text(g("platform.cpu.vendor")), _text(g("platform.cpu.brand")),
        _num(g("platform.cpu.logical_cpus")),
        _text(g("platform.smbios.manufacturer")),
        _text(g("platform.smbios.product")),
        _text(g("platform.firmware.vendor")), _text(g("probe.version")),
        _text(g("probe.boot")), _bool(g("platform.tsc.invariant")),
        _num(g("platform.tsc.freq_chosen.hz")), _text(run.verified))]
    rows["verdicts"] = [(
        rid, _text(h["linux_clocksource"]), _text(h["linux_kernel"]),
        _bool(h["vdso"]), _num(h["predicted_read_ns"]),
        _text(h["confidence"]), _text(kernels.risk_text(g("verdict.risk"))),
        _text(headline_text))]
    if kernel_rows is None:
        kernel_rows = kernels.table_rows(kernels.ranges_of(run.report))
    seen_from = set()
    bk = []
    for r in kernel_rows:
        if r[0] in seen_from:   # a hostile report's repeated range
            continue
        seen_from.add(r[0])
        bk.append((rid,) + tuple(_text(x) if i not in (3, 4) else
                                 (_bool(x) if i == 3 else _num(x))
                                 for i, x in enumerate(r)))
    rows["by_kernel"] = bk
    srcs = g("sources")
    seen = set()
    out = []
    for s in srcs if isinstance(srcs, list) else []:
        if not isinstance(s, dict) or not s.get("name") or \
                str(s["name"]) in seen:
            continue
        seen.add(str(s["name"]))
        rc = s.get("read_cost") if isinstance(s.get("read_cost"),
                                              dict) else {}
        ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
        cy = rc.get("cycles") if isinstance(rc.get("cycles"), dict) else {}
        out.append((
            rid, _text(s["name"]), _text(s.get("status")),
            _text(s.get("reason")), _text(s.get("read_path")),
            _num(ns.get("p50")), _num(ns.get("p99")), _num(cy.get("p50")),
            _num(cy.get("p99")), _num(rc.get("estimate_ns")),
            _num(s.get("backward_steps"))))
    rows["sources"] = out
    rows["warnings"] = [(
        rid, _text(w.get("code")), _text(w.get("severity")),
        _text(w.get("message")), _text(w.get("evidence")),
        _text(w.get("fix"))) for w in h["warnings"]]
    watch = {}
    for seq, rec in run.watch:      # a repeated seq: the later one
        if isinstance(seq, int) and not isinstance(seq, bool):
            watch[seq] = (rid, seq, _num(rec.get("elapsed_tsc_s")),
                          _num(rec.get("elapsed_rtc_s")))
    rows["watch"] = [watch[k] for k in sorted(watch)]
    keys, vals = fleet.flatten(run.report, run.watch)
    lid, new = layouts.get(keys)
    rows["measurement_values"] = [(rid, lid, _vals_json(vals))]
    rr = RunRows()
    rr.run_id, rr.label, rr.rows = rid, label, rows
    rr.layout_id, rr.layout_keys = lid, (keys if new else None)
    return rr


def layout_rows(lid, keys):
    return [(lid, i, s, n, f, fleet.unit_of(s, f))
            for i, (s, n, f) in enumerate(keys)]


# ----------------------------------------------------------------- sinks

def _placeholders(n, mark):
    return ",".join([mark] * n)


class _Sink:
    """Batches RunRows and writes them; subclasses speak one dialect."""

    BATCH = 500

    def __init__(self):
        self.pending = []
        self.pending_ids = set()
        self.known_layouts = set()
        self.new_layouts = []
        self.rejected = {}
        self.labels = []
        self.written = 0

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

    def flush(self):
        if self.pending or self.new_layouts:
            self._write(self.pending, self.new_layouts)
            self.written += len(self.pending)
        self.pending, self.pending_ids, self.new_layouts = [], set(), []


class SqliteSink(_Sink):
    """An SQLite file, written in one transaction (a run is in the file
    whole or not at all)."""

    def __init__(self, path):
        super().__init__()
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
        ids = [rr.run_id for rr in batch]
        present = []
        for i in range(0, len(ids), 900):
            chunk = ids[i:i + 900]
            present += [r[0] for r in db.execute(
                "SELECT run_id FROM runs WHERE run_id IN (%s)"
                % _placeholders(len(chunk), "?"), chunk)]
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
                                    "run_id = ?", self.labels)
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


def import_psycopg2():
    """Debian's python3-psycopg2 (scripts/install-deps), from any python3."""
    from .debpkg import import_debian
    try:
        pg = import_debian("psycopg2")
        import_debian("psycopg2.extras")
    except ImportError:
        raise FleetDbError("--postgres needs Debian's python3-psycopg2 "
                           "(scripts/install-deps test installs it)")
    return pg


# Any constant: the advisory lock that makes two loaders create the
# schema one after the other (CREATE TABLE IF NOT EXISTS races otherwise).
SCHEMA_LOCK = 0x636c6f636b70726f


class PostgresSink(_Sink):
    """A PostgreSQL database (a libpq DSN), safe with concurrent loaders:
    see the module's docstring."""

    def __init__(self, dsn):
        super().__init__()
        pg = import_psycopg2()
        self.extras = pg.extras
        try:
            self.db = pg.connect(dsn)
        except pg.Error as e:
            raise FleetDbError("--postgres %s: cannot connect: %s"
                               % (dsn, str(e).strip()))
        self.pg = pg
        try:
            with self.db, self.db.cursor() as c:
                c.execute("SELECT pg_advisory_xact_lock(%s)",
                          (SCHEMA_LOCK,))
                for stmt in schema_sql("postgres"):
                    c.execute(stmt)
                for stmt in INDEXES:
                    c.execute(stmt)
                for name, cols in TABLES:
                    for col, k in cols:
                        c.execute("ALTER TABLE %s ADD COLUMN IF NOT EXISTS "
                                  "%s %s" % (name, col, TYPES["postgres"][
                                      k].replace(" PRIMARY KEY", "")))
        except pg.Error as e:
            self.db.close()
            raise FleetDbError("--postgres: cannot create the tables: %s"
                               % str(e).strip())
        cols = dict(TABLES)
        self.upsert_runs = "INSERT INTO runs VALUES %%s ON CONFLICT (run_id) "\
            "DO UPDATE SET %s" % ", ".join(
                "%s = EXCLUDED.%s" % (c, c) for c, _ in cols["runs"][1:])
        self.insert = {name: "INSERT INTO %s VALUES %%s" % name
                       for name, _ in TABLES if name != "runs"}

    def _write(self, batch, layouts):
        ev = self.extras.execute_values
        if layouts:
            # Its own transaction, committed first: a loader waiting on
            # another's new layout rows holds no run lock meanwhile.
            with self.db, self.db.cursor() as c:
                rows = sorted(r for lid, keys in layouts
                              for r in layout_rows(lid, keys))
                ev(c, "INSERT INTO layouts VALUES %s ON CONFLICT DO NOTHING",
                   rows, page_size=1000)
        if not batch:
            return
        batch = sorted(batch, key=lambda rr: rr.run_id)
        ids = [rr.run_id for rr in batch]
        with self.db, self.db.cursor() as c:
            ev(c, self.upsert_runs, [rr.rows["runs"][0] for rr in batch],
               page_size=1000)
            for name, _ in TABLES:
                if name == "runs":
                    continue
                c.execute("DELETE FROM %s WHERE run_id = ANY(%%s)" % name,
                          (ids,))
                rows = [row for rr in batch for row in rr.rows[name]]
                if rows:
                    ev(c, self.insert[name], rows, page_size=1000)

    def close(self, ok=True):
        try:
            if ok:
                self.flush()
                with self.db, self.db.cursor() as c:
                    for label, rid in sorted(self.labels, key=lambda x: x[1]):
                        c.execute("UPDATE runs SET label = %s WHERE "
                                  "run_id = %s", (label, rid))
                with self.db, self.db.cursor() as c:
                    self.extras.execute_values(
                        c, "INSERT INTO rejected VALUES %s ON CONFLICT "
                        "(source_file) DO UPDATE SET reason = "
                        "EXCLUDED.reason", sorted(self.rejected.items()))
        finally:
            self.db.close()


# ---------------------------------------------------------------- writers

def write_runs(sink, runs, rejected, kernel_info=None):
    """Runs already loaded (fleet.load_runs) into a sink, then closed.

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


def write_sqlite(path, runs, rejected, kernel_info=None):
    """Add the runs (replacing earlier copies) and the rejected inputs."""
    return write_runs(SqliteSink(path), runs, rejected, kernel_info)


def write_postgres(dsn, runs, rejected, kernel_info=None):
    return write_runs(PostgresSink(dsn), runs, rejected, kernel_info)


# ------------------------------------------------------- streaming loader

# What the loading processes share (set before they fork): explicit
# labels and the caller's judge (run -> (kernel_rows, headline, hits)).
_LOAD = {"labels": (), "judge": None, "layouts": None}


def _load_one(item):
    """Read, verify and turn one input into rows (in a worker process)."""
    index, path, from_dir = item
    msgs = []
    run, why = fleet.read_run(path, from_dir, msgs.append)
    out = {"index": index, "path": path, "from_dir": from_dir,
           "messages": msgs, "rejected": None, "rr": None, "hits": None}
    if run is None:
        if why is not None:
            out["rejected"] = [(path, why)]
        return out
    run.input_index = index
    label = fleet.explicit_label(run, _LOAD["labels"])
    run.label = label
    kernel_rows = head = None
    if _LOAD["judge"] is not None:
        kernel_rows, head, out["hits"] = _LOAD["judge"](run)
    out["rr"] = run_rows(run, label, _LOAD["layouts"], kernel_rows, head)
    out["rejected"] = run.watch_rejected
    return out


def ingest(paths, sink, labels=(), warn=lambda msg: None, jobs=1,
           judge=None):
    """Load files and directories straight into a sink, keeping no report
    in memory: what compare --sqlite/--postgres does when no other output
    needs the reports.  jobs processes read, verify and flatten (the CPU
    work); this one writes.  The outcome is the same as load_runs() then
    write_runs(): same runs, labels, duplicates and rejections.

    judge: run -> (kernel_rows, headline, hits) for the kernel set
    (cptools.kernels); hits are the --fail-on matches, returned with the
    run's final label.

    Returns (runs written, [(path, reason)] rejected, duplicates,
    [(label, hits)])."""
    import multiprocessing
    files = fleet.expand_inputs(paths)
    items = [(i, p, d) for i, (p, d) in enumerate(files)]
    _LOAD.update(labels=list(labels), judge=judge, layouts=LayoutCache())
    seen, rejected, dups, need_label, hits = {}, [], 0, [], []
    labels_of = {}
    pool = None
    if jobs > 1 and len(items) >= 64:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap(_load_one, items, chunksize=32)
    else:
        results = map(_load_one, items)
    ok = False
    try:
        for res in results:
            for m in res["messages"]:
                warn(m)
            rr = res["rr"]
            if rr is None:
                rejected += res["rejected"] or []
                continue
            prev = seen.get(rr.run_id)
            if prev is not None and (res["from_dir"] or prev[1]):
                dups += 1
                warn("compare: %s: same run as %s (%s), counted once"
                     % (res["path"], prev[0], rr.run_id))
                continue
            seen.setdefault(rr.run_id, (res["path"], res["from_dir"]))
            rejected += res["rejected"] or []
            if res["hits"]:
                hits.append((rr.run_id, res["hits"]))
            labels_of[rr.run_id] = rr.label
            if rr.label is None:
                need_label.append((rr.run_id, res["path"]))
            sink.add(rr)
        for (rid, _), lab in zip(need_label, fleet.file_labels(
                [p for _, p in need_label])):
            sink.set_label(rid, lab)
            labels_of[rid] = lab
        for p, why in rejected:
            sink.add_rejected(p, why)
        ok = True
    finally:
        if pool is not None:
            pool.terminate() if not ok else pool.close()
            pool.join()
        sink.close(ok)
    return sink.written, rejected, dups, [(labels_of.get(rid), h)
                                          for rid, h in hits]
