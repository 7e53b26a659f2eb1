"""The fleet database in PostgreSQL (compare --postgres DSN): the tables of
cptools/fleetschema.py with PostgreSQL's types, for fleets that outgrow one
SQLite file -- many CI runners loading at once.

Concurrent loaders lose nothing and duplicate nothing: the schema is
created under an advisory lock (CREATE TABLE IF NOT EXISTS races
otherwise); new layouts go in first in a transaction of their own (ON
CONFLICT DO NOTHING: content-addressed, so two loaders agree); then each
batch is one transaction that upserts its runs rows in run_id order --
the row lock makes a second loader that meets the same run wait, and the
order keeps two from deadlocking -- and only then deletes and writes those
runs' other rows.  Before that upsert each run's id is claimed in
run_digests (INSERT ... ON CONFLICT DO NOTHING, which waits for a loader
holding the same key to finish): a run_id held by a different report is
never overwritten, the newcomer goes in as RUN_ID#digest and is flagged in
run_id_collisions, as in SQLite (cptools/fleetdb.py).  Debian's python3-psycopg2 (scripts/install-deps test).
"""

from .fleetdb import FleetDbError, _Sink, write_runs
from .fleetschema import INDEXES, TABLES, TYPES, schema_sql
from .fleetrows import layout_rows
from . import paths


def import_psycopg2():
    """Debian's python3-psycopg2 (recommended by the package), from any
    python3."""
    from .debpkg import import_debian
    try:
        pg = import_debian("psycopg2")
        import_debian("psycopg2.extras")
    except ImportError:
        raise FleetDbError("--postgres needs Debian's python3-psycopg2 "
                           "(%s)" % paths.need_package("python3-psycopg2"))
    return pg


# Any constant: the advisory lock that makes two loaders create the
# schema one after the other (CREATE TABLE IF NOT EXISTS races otherwise).
SCHEMA_LOCK = 0x636c6f636b70726f


class PostgresSink(_Sink):
    """A PostgreSQL database (a libpq DSN), safe with concurrent loaders:
    see the module's docstring."""

    def __init__(self, dsn, warn=lambda msg: None):
        super().__init__(warn)
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
                if not self._schema_complete(c):
                    self._create_schema(c)
        except pg.Error as e:
            self.db.close()
            raise FleetDbError("--postgres: cannot create the tables: %s"
                               % str(e).strip())
        cols = dict(TABLES)
        self.upsert_runs = "INSERT INTO runs VALUES %%s ON CONFLICT (run_id) "\
            "DO UPDATE SET %s" % ", ".join(
                # the same report again keeps its first ingest time
                "%s = COALESCE(runs.%s, EXCLUDED.%s)" % (c, c, c)
                if c == "ingested_utc" else "%s = EXCLUDED.%s" % (c, c)
                for c, _ in cols["runs"][1:])
        self.insert = {name: "INSERT INTO %s VALUES %%s" % name
                       for name, _ in TABLES if name != "runs"}

    def _schema_complete(self, c):
        """Every table, column, index and the view already there: then no
        DDL runs at all.  CREATE INDEX IF NOT EXISTS and ALTER TABLE ADD
        COLUMN IF NOT EXISTS lock their table even when there is nothing
        to do, and a loader doing that while another writes a batch (which
        locks the same tables in another order) deadlocked."""
        c.execute("SELECT table_name, column_name FROM "
                  "information_schema.columns WHERE table_schema = "
                  "current_schema()")
        have = set(c.fetchall())
        want = {(name, col) for name, cols in TABLES for col, _ in cols}
        want |= {("layouts", col) for col in ("layout", "pos", "section",
                                              "name", "field", "unit")}
        want |= {("rejected", "source_file"), ("rejected", "reason"),
                 ("measurements", "value")}
        c.execute("SELECT indexname FROM pg_indexes WHERE schemaname = "
                  "current_schema()")
        indexes = {r[0] for r in c.fetchall()}
        wanted_indexes = {stmt.split()[5] for stmt in INDEXES}
        return want <= have and wanted_indexes <= indexes

    def _create_schema(self, c):
        for stmt in schema_sql("postgres"):
            c.execute(stmt)
        for stmt in INDEXES:
            c.execute(stmt)
        for name, cols in TABLES:
            for col, k in cols:
                c.execute("ALTER TABLE %s ADD COLUMN IF NOT EXISTS "
                          "%s %s" % (name, col, TYPES["postgres"][
                              k].replace(" PRIMARY KEY", "")))

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
        with self.db, self.db.cursor() as c:
            for rr in batch:
                self.settle(rr, self._claim(c, rr))
                if rr.claimed_run_id is not None:
                    self._claim(c, rr)      # the id it goes under
            batch.sort(key=lambda rr: rr.run_id)
            ids = [rr.run_id for rr in batch]
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

    def _claim(self, c, rr):
        """Claim rr.run_id in run_digests for rr's report; (digest,
        source_file) of the report that holds it when that is not this
        claim, else None.  ON CONFLICT DO NOTHING waits for a concurrent
        loader's claim of the same key to commit or roll back, so its
        answer is the one that stands.  A run written before digests were
        kept (a runs row, no claim) is held by its source file."""
        c.execute("INSERT INTO run_digests VALUES (%s, %s, %s) ON CONFLICT "
                  "(run_id) DO NOTHING RETURNING run_id",
                  (rr.run_id, rr.digest, rr.rows["run_digests"][0][2]))
        if c.fetchone() is None:
            c.execute("SELECT digest, source_file FROM run_digests WHERE "
                      "run_id = %s", (rr.run_id,))
            return c.fetchone()
        c.execute("SELECT source_file FROM runs WHERE run_id = %s FOR "
                  "UPDATE", (rr.run_id,))
        old = c.fetchone()
        if old is None:
            return None
        # The claim stands for the older run's report, not this one.
        c.execute("UPDATE run_digests SET digest = NULL, source_file = %s "
                  "WHERE run_id = %s", (old[0], rr.run_id))
        return (None, old[0])

    def close(self, ok=True):
        try:
            if ok:
                self.flush()
                with self.db, self.db.cursor() as c:
                    for label, rid in sorted(self.final_labels(),
                                            key=lambda x: x[1]):
                        c.execute("UPDATE runs SET label = %s WHERE "
                                  "run_id = %s", (label, rid))
                with self.db, self.db.cursor() as c:
                    self.extras.execute_values(
                        c, "INSERT INTO rejected VALUES %s ON CONFLICT "
                        "(source_file) DO UPDATE SET reason = "
                        "EXCLUDED.reason", sorted(self.rejected.items()))
        finally:
            self.db.close()


def write_postgres(dsn, runs, rejected, kernel_info=None,
                   warn=lambda msg: None):
    """fleetdb.write_sqlite for PostgreSQL: (runs written, run_id
    collisions flagged)."""
    sink = PostgresSink(dsn, warn)
    return write_runs(sink, runs, rejected, kernel_info), sink.flagged
