"""The fleet database's tables, defined once for both of its dialects:
the SQLite file (cptools/fleetdb.py, compare --sqlite) and PostgreSQL
(cptools/fleetpg.py, compare --postgres) create, migrate and index the
same columns from here, so an operator's queries read either alike and
the two writers cannot drift apart.  Column names are a contract: columns
are added at the end, none renamed.

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
"""

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
