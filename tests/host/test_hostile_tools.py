"""Host tools against hostile inputs (issue 25, "Host tools"): every case
of the issue is a test here.  Each failed on the main branch the issue was
filed against (a hang, a traceback, a lost batch, silent loss, unescaped
or uncapped output) and must pass now.

Inputs that made the old code hang or eat memory (a huge seq=, a FIFO, a
symlink to /dev/zero, quadratic reports) run the script as a child process
under a memory limit (RLIMIT_AS), a CPU limit (RLIMIT_CPU) and a wall
timeout, so a regression fails the test instead of taking the machine
down.  Time bounds are on the child's CPU time, which other jobs on a
shared machine do not inflate the way they inflate wall time.
"""

import csv
import io
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import xml.dom.minidom
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS, load_script  # noqa: E402
from cptools import arm64agree, frame, guestjoin, headline, kernels, matrixout, untrusted  # noqa: E402

compare = load_script("compare")
WATCH_FIXTURE = os.path.join(REPO, "tests", "fixtures", "watch",
                             "tcg-stop-cont.log")
MEMORY_LIMIT = 1 << 30      # a child that tries to build range(1, 10**12)
CPU_LIMIT_S = 60            # dies here instead of swapping


def fx(name):
    return os.path.join(FIX, name)


def load_json(name):
    with open(fx(name)) as f:
        return json.load(f)


def _limits(memory):
    def set_limits():
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S))
    return set_limits


def child(script, *argv, timeout=120, memory=MEMORY_LIMIT):
    """Run scripts/<script> under limits: (rc, stdout, stderr, cpu_s).

    rc is None when the wall timeout hit (the child is killed).  memory:
    the address-space limit (None for none: scripts/verdict runs the
    judge, built with AddressSanitizer, which reserves terabytes)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, script)]
                         + list(argv), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE,
                         preexec_fn=_limits(memory))
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
    return rc, out.decode("utf-8", "replace"), \
        err.decode("utf-8", "replace"), cpu


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    rc = compare.main(list(argv), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def framed_json(line):
    """A report frame around JSON text exactly as given (CRC valid)."""
    data = line.encode("utf-8")
    return ("==== CLOCKPROBE REPORT BEGIN schema=1 ====\n%s\n"
            "==== CLOCKPROBE REPORT END crc32=%08x bytes=%d ====\n"
            % (line, zlib.crc32(data) & 0xFFFFFFFF, len(data)))


def watch_frame(line, seq):
    data = line.encode("utf-8")
    return ("==== CLOCKPROBE WATCH BEGIN schema=1 seq=%s ====\r\n%s\r\n"
            "==== CLOCKPROBE WATCH END crc32=%08x bytes=%d ====\r\n"
            % (seq, line, zlib.crc32(data) & 0xFFFFFFFF, len(data)))


def watch_records():
    with open(WATCH_FIXTURE, "rb") as f:
        text = f.read().decode("utf-8")
    lines = [ln for ln in text.split("\r\n") if ln.startswith("{")]
    return [json.loads(ln) for ln in lines]


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cp-hostile-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return p

    def assertNoTraceback(self, err):
        self.assertNotIn("Traceback", err)

    def assertShortLines(self, text, limit=4096):
        longest = max((len(ln) for ln in text.splitlines()), default=0)
        self.assertLess(longest, limit, "an output line of %d characters"
                        % longest)


# ------------------------------------------------------------------ watch

class WatchTest(Tmp):
    def good_frames(self):
        return "".join(watch_frame(compact(r), r["seq"])
                       for r in watch_records())

    def test_damaged_frame_with_a_huge_seq_is_named_not_expanded(self):
        # The old check() built range(1, seq): 10**12 ints.
        log = self.write("w.log", self.good_frames() +
                         "==== CLOCKPROBE WATCH BEGIN schema=1 seq=%d ====\r\n"
                         "{\"seq\":1}\r\n" % 10 ** 12)
        rc, out, err, _ = child("watch", log, timeout=60)
        self.assertEqual(rc, 1, err)
        self.assertNoTraceback(err)
        self.assertIn("out of range", out)
        self.assertShortLines(out)

    def test_a_5000_digit_seq_is_named(self):
        log = self.write("w.log", self.good_frames() +
                         watch_frame("{\"seq\":1}", "9" * 5000))
        rc, out, err, _ = child("watch", log, timeout=60)
        self.assertEqual(rc, 1, err)
        self.assertNoTraceback(err)
        self.assertIn("out of range", out)
        self.assertShortLines(out)

    def test_valid_record_with_seq_3000000_prints_no_huge_line(self):
        recs = watch_records()
        far = dict(recs[-1], seq=3000000)
        log = self.write("w.log", self.good_frames() +
                         watch_frame(compact(far), 3000000))
        rc, out, err, _ = child("watch", log, timeout=60)
        self.assertEqual(rc, 1, err)
        self.assertNoTraceback(err)
        self.assertShortLines(out)
        self.assertIn("3000000 (at most 1000000)", out)
        rc, out, err, _ = child("watch", "--json", log, timeout=60)
        self.assertEqual(rc, 1, err)
        self.assertLess(len(out), 200000)
        json.loads(out)

    def test_a_huge_line_is_refused_by_name(self):
        # A record line of 20 MiB: not parsed, named (the JSON cap).
        big = "{\"seq\":4,\"pad\":\"%s\"}" % ("x" * (20 << 20))
        log = self.write("w.log", self.good_frames() + watch_frame(big, 4))
        rc, out, err, _ = child("watch", log, timeout=120)
        self.assertEqual(rc, 1, err)
        self.assertNoTraceback(err)
        self.assertIn("seq=4", out)
        self.assertIn("bytes= out of range", out)
        self.assertShortLines(out)

    def test_wrong_types_are_named_not_tracebacks(self):
        recs = watch_records()
        for field, bad in (("offsets", 5), ("events", "x"),
                           ("elapsed_tsc_s", "abc"), ("watchdog_replay", []),
                           ("offsets", [{"cumulative_ns": "x"}]),
                           ("events", [{"at_s": "soon"}])):
            last = dict(recs[-1])
            last[field] = bad
            text = "".join(watch_frame(compact(r), r["seq"])
                           for r in recs[:-1] + [last])
            log = self.write("w.log", text)
            rc, out, err, _ = child("watch", log, "--svg",
                                    os.path.join(self.tmp, "w.svg"))
            self.assertEqual(rc, 1, (field, out, err))
            self.assertNoTraceback(err)
            self.assertIn(field, out)

    def test_svg_with_a_control_byte_is_valid_xml(self):
        recs = watch_records()
        last = dict(recs[-1])
        last["events"] = [{"type": "pause\x01", "at_s": 1.0,
                           "duration_s": 3.0, "evidence": "bell\x07 esc\x1b"}]
        text = "".join(watch_frame(compact(r), r["seq"])
                       for r in recs[:-1] + [last])
        log = self.write("w.log", text)
        svg = os.path.join(self.tmp, "w.svg")
        rc, out, err, _ = child("watch", log, "--svg", svg)
        self.assertEqual(rc, 0, err)
        xml.dom.minidom.parse(svg)
        with open(svg, encoding="utf-8") as f:
            self.assertIn("\\x07", f.read())
        self.assertNotIn("\x1b", out)


# ---------------------------------------------------------------- compare

class CompareRejectsOneKeepsTheRest(Tmp):
    """Each bad input is rejected by name; the good one is still output
    and the exit status says an input was rejected."""

    def check_batch(self, bad_path, reason, *opts):
        rc, out, err = run(*opts, fx("kvm_good.json"), bad_path)
        self.assertEqual(rc, 1, err)
        self.assertIn(bad_path, err)
        self.assertIn(reason, err)
        return out, err

    def test_deep_nesting(self):
        r = load_json("kvm_good.json")
        text = compact(r)[:-1] + ",\"deep\":" + "[" * 100000 + \
            "]" * 100000 + "}"
        p = self.write("deep.json", text)
        out, _ = self.check_batch(p, "nested deeper than")
        self.assertIn("| kvm_good |", out)
        # Just past the bound and as a framed log too.
        text = compact(r)[:-1] + ",\"deep\":" + "[" * 70 + "]" * 70 + "}"
        p = self.write("deep70.log", framed_json(text))
        self.check_batch(p, "nested deeper than")

    def test_nan_and_infinity(self):
        r = load_json("kvm_fallback.json")
        for i, lit in enumerate(("NaN", "Infinity", "-Infinity", "1e999")):
            text = compact(r).replace("\"predicted_read_ns\":",
                                      "\"predicted_read_ns\":%s,\"x\":" % lit,
                                      1)
            p = self.write("nan%d.log" % i, framed_json(text))
            out, _ = self.check_batch(p, "not a finite number")
            self.assertIn("| kvm_good |", out)
            out, _ = self.check_batch(p, "not a finite number", "--jsonl")
            for ln in out.splitlines():
                json.loads(ln, parse_constant=self.fail)

    def test_integers_past_2_63_stored_as_text_in_sqlite(self):
        r = load_json("kvm_fallback.json")
        r["gaps"]["count"] = 2 ** 63 + 5
        r["gaps"]["max_ns"] = -2 ** 63     # fits SQLite: stays a number
        r["verdict"]["predicted_read_ns"] = 2 ** 64 - 1
        p = self.write("big.json", json.dumps(r))
        db = os.path.join(self.tmp, "f.db")
        rc, _, err = run("--sqlite", db, fx("kvm_good.json"), p)
        self.assertEqual(rc, 0, err)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs")
                         .fetchone()[0], 2)
        got = dict(con.execute(
            "SELECT field, value FROM measurements WHERE run_id = ? AND "
            "section = 'gaps'", (r["probe"]["run_id"],)).fetchall())
        self.assertEqual(got["count"], str(2 ** 63 + 5))
        self.assertEqual(got["max_ns"], -2 ** 63)
        # Beyond what the probe can write at all (64 bits): rejected.
        r["gaps"]["count"] = 2 ** 64
        p = self.write("bigger.json", json.dumps(r))
        self.check_batch(p, "outside the 64-bit range", "--sqlite", db)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM rejected")
                         .fetchone()[0], 1)

    def test_5000_digit_bytes(self):
        good = frame.frame_report(load_json("kvm_fallback.json"))
        bad = good.replace(" bytes=", " bytes=" + "9" * 5000, 1)
        p = self.write("digits.log", bad)
        out, _ = self.check_batch(p, "bytes= out of range")
        self.assertIn("| kvm_good |", out)

    def test_a_20_mib_report_is_refused_not_parsed(self):
        r = load_json("kvm_fallback.json")
        r["platform"]["cpu"]["brand"] = "x" * (20 << 20)
        p = self.write("huge.json", json.dumps(r))
        self.check_batch(p, "MiB")

    def test_non_report_json_types(self):
        p = self.write("list.json", "[1, 2, 3]")
        self.check_batch(p, "not a clockprobe report")
        r = load_json("kvm_fallback.json")
        r["sources"] = {"tsc": 5}
        r["platform"]["cpu"] = [1]
        r["probe"]["label"] = {"x": 1}
        r["verdict"]["warnings"] = "none"
        p = self.write("types.json", json.dumps(r))
        for opts in ((), ("--csv",), ("--html",), ("--wide-csv",),
                     ("--jsonl",), ("--sqlite", os.path.join(self.tmp,
                                                            "t.db"))):
            rc, out, err = run(*opts, fx("kvm_good.json"), p)
            self.assertEqual(rc, 0, (opts, err))


class QuadraticTest(Tmp):
    """Sizes that took minutes (the side-by-side table looked every source
    up by a linear scan per row; the long format's list names did the same)
    now go in linear time: a bound on the child's CPU time."""

    BOUND_CPU_S = 30.0

    def test_20000_sources(self):
        r = load_json("kvm_good.json")
        r["probe"]["run_id"] = "many-sources"
        r["sources"] = [{"name": "s%05d" % i, "status": "ok",
                         "read_cost": {"ns": {"p50": i, "p99": 2 * i}}}
                        for i in range(20000)]
        p = self.write("many.json", json.dumps(r))
        self.assertGreater(os.path.getsize(p), 1300000)
        rc, out, err, cpu = child("compare", fx("kvm_good.json"), p,
                                  timeout=600)
        print("\n    20,000 sources side by side: %.1f s CPU" % cpu,
              file=sys.stderr)
        self.assertEqual(rc, 0, err[-2000:])
        self.assertIn("## Source s19999", out)
        self.assertLess(cpu, self.BOUND_CPU_S)

    def test_100000_acpi_tables_csv(self):
        r = load_json("kvm_good.json")
        t = r["platform"]["acpi"]["tables"][0]
        # Distinct signatures (naming each list entry looked for the first
        # entry of its name from the start) and a run of equal ones.
        r["platform"]["acpi"]["tables"] = [
            dict(t, signature="T%05d" % i if i % 2 else "SSDT")
            for i in range(100000)]
        p = self.write("tables.json", json.dumps(r))
        csv_out = os.path.join(self.tmp, "tables.csv")
        rc, _, err, cpu = child("compare", "--csv", "-o", csv_out, p,
                                timeout=600)
        print("\n    100,000 ACPI tables to CSV: %.1f s CPU" % cpu,
              file=sys.stderr)
        self.assertEqual(rc, 0, err[-2000:])
        with open(csv_out) as f:
            out = f.read()
        self.assertIn(",platform,,acpi.tables[T99999].signature,T99999,",
                      out)
        self.assertIn(",platform,,acpi.tables[99998].signature,SSDT,", out)
        self.assertLess(cpu, self.BOUND_CPU_S)


class NotRegularFilesTest(Tmp):
    def test_fifo_device_and_symlinks_in_a_directory(self):
        d = os.path.join(self.tmp, "in")
        os.makedirs(d)
        shutil.copy(fx("kvm_good.json"), d)
        os.mkfifo(os.path.join(d, "pipe.log"))
        os.symlink("/dev/zero", os.path.join(d, "zero.log"))
        os.symlink(fx("kvm_fallback.json"), os.path.join(d, "link.json"))
        rc, out, err, _ = child("compare", d, timeout=60)
        self.assertEqual(rc, 1, err)
        self.assertNoTraceback(err)
        self.assertIn("| kvm_good |", out)
        self.assertIn("pipe.log: rejected: not a regular file (FIFO)", err)
        self.assertIn("zero.log: rejected: a symbolic link", err)
        self.assertIn("link.json: rejected: a symbolic link", err)

    def test_a_device_named_on_the_command_line(self):
        rc, out, err, _ = child("compare", fx("kvm_good.json"), "/dev/zero",
                                timeout=60)
        self.assertEqual(rc, 1, err)
        self.assertIn("/dev/zero: rejected: not a regular file "
                      "(character device)", err)
        self.assertIn("| kvm_good |", out)

    def test_a_file_over_the_size_cap_is_refused_whole(self):
        p = os.path.join(self.tmp, "big.log")
        with open(p, "wb") as f:
            f.truncate((64 << 20) + 1)
        rc, out, err = run(fx("kvm_good.json"), p)
        self.assertEqual(rc, 1, err)
        self.assertIn("larger than 64 MiB", err)


class SilentLossTest(Tmp):
    def test_a_log_with_two_runs_processes_both(self):
        # A first boot that falls back to acpi_pm, then a clean second boot
        # in the same log: --fail-on must see the first one.
        log = self.write("two.log",
                         frame.frame_report(load_json("kvm_fallback.json"))
                         + "reboot\n"
                         + frame.frame_report(load_json("kvm_good.json")))
        rc, out, err = run("--fail-on", "ACPI_PM_FALLBACK", log)
        self.assertEqual(rc, 3, err)
        self.assertIn("| two | two-2 |", out)
        rc, out, err = run("--csv", log)
        ids = {row["run_id"] for row in csv.DictReader(io.StringIO(out))}
        self.assertEqual(ids, {load_json("kvm_fallback.json")["probe"]
                               ["run_id"], load_json("kvm_good.json")
                               ["probe"]["run_id"]})
        # The same report sent twice (a key during the wait) is one run.
        again = frame.frame_report(load_json("kvm_good.json"))
        log = self.write("resent.log", again + "key\n" + again)
        rc, out, err = run(log)
        self.assertEqual(rc, 0, err)
        self.assertIn("| | resent |", out)

    def forged(self):
        """kvm_fallback's report claiming kvm_good's run_id."""
        r = load_json("kvm_fallback.json")
        r["probe"]["run_id"] = load_json("kvm_good.json")["probe"]["run_id"]
        return r

    def test_a_reused_run_id_never_overwrites_the_database_row(self):
        db = os.path.join(self.tmp, "f.db")
        rc, _, err = run("--sqlite", db, fx("kvm_good.log"))
        self.assertEqual(rc, 0, err)
        rid = load_json("kvm_good.json")["probe"]["run_id"]
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        before = con.execute("SELECT * FROM runs").fetchall()
        verdict = con.execute("SELECT linux_clocksource FROM verdicts WHERE "
                              "run_id = ?", (rid,)).fetchone()
        log = self.write("forged.log", frame.frame_report(self.forged()))
        rc, _, err = run("--sqlite", db, log)
        self.assertEqual(rc, 1, err)
        self.assertIn("run_id %s" % rid, err)
        self.assertEqual(con.execute("SELECT * FROM runs WHERE run_id = ?",
                                     (rid,)).fetchall(), before)
        self.assertEqual(con.execute("SELECT linux_clocksource FROM verdicts "
                                     "WHERE run_id = ?", (rid,)).fetchone(),
                         verdict)
        # The newcomer is kept under its own key and flagged.
        flagged = con.execute("SELECT run_id, claimed_run_id, source_file "
                              "FROM run_id_collisions").fetchall()
        self.assertEqual(len(flagged), 1)
        self.assertEqual(flagged[0][1:], (rid, log))
        self.assertEqual(con.execute(
            "SELECT linux_clocksource FROM verdicts WHERE run_id = ?",
            (flagged[0][0],)).fetchone(), ("acpi_pm",))
        # Ingesting both again changes nothing.
        dump = list(con.iterdump())
        run("--sqlite", db, fx("kvm_good.log"), log)
        self.assertEqual(list(con.iterdump()), dump)

    def test_a_reused_run_id_in_a_directory_keeps_both(self):
        d = os.path.join(self.tmp, "fleet")
        os.makedirs(d)
        # Sorted first, the forged log used to make the genuine one "the
        # same run" and drop it.
        self.write("fleet/a-forged.log", frame.frame_report(self.forged()))
        shutil.copy(fx("kvm_good.log"), os.path.join(d, "b-genuine.log"))
        shutil.copy(fx("kvm_good.json"), os.path.join(d, "b-genuine.json"))
        rc, out, err = run(d)
        self.assertEqual(rc, 1, err)
        self.assertIn("| a-forged | b-genuine |", out)
        # the genuine run is its framed log (a folder's logs are read
        # before its .json); the bare copy counts once
        self.assertIn("b-genuine.json: same run as %s" % os.path.join(
            d, "b-genuine.log"), err)
        self.assertIn("run_id", err)


class StreamingLoaderTest(Tmp):
    """compare --sqlite/--postgres alone streams 500 inputs or more
    (cptools/fleetload.py): the same untrusted loader, every report of
    every log, links refused by name and run_id collisions kept and
    flagged -- the very database load_runs + write_sqlite makes."""

    def fleet_dir(self):
        d = os.path.join(self.tmp, "fleet")
        os.makedirs(d)
        forged = load_json("kvm_fallback.json")
        forged["probe"]["run_id"] = load_json("kvm_good.json")["probe"][
            "run_id"]
        self.write("fleet/a-forged.log", frame.frame_report(forged))
        shutil.copy(fx("kvm_good.log"), os.path.join(d, "b-genuine.log"))
        self.write("fleet/c-two-boots.log", frame.frame_report(
            load_json("hyperv.json")) + "reboot\n" + frame.frame_report(
            load_json("kvm_good.json")))
        os.symlink(fx("kvm_fallback.json"), os.path.join(d, "d-link.json"))
        return d

    def tables(self, db):
        con = sqlite3.connect(db)
        try:
            return {t: sorted(con.execute("SELECT * FROM %s" % t)
                              .fetchall(), key=repr)
                    for t in ("runs", "run_digests", "run_id_collisions",
                              "rejected", "sources", "measurement_values")}
        finally:
            con.close()

    def test_streamed_equals_loaded(self):
        from cptools import fleet, fleetdb, fleetload
        d = self.fleet_dir()
        streamed = os.path.join(self.tmp, "s.db")
        written, rejected, dups, _ = fleetload.ingest(
            [d], fleetdb.SqliteSink(streamed))
        runs, rej, dup = fleet.load_runs([d])
        loaded = os.path.join(self.tmp, "l.db")
        n, flagged = fleetdb.write_sqlite(loaded, runs, rej)
        self.assertEqual((written, len(rejected), dups), (n, len(rej),
                                                          len(dup)))
        self.assertEqual(flagged, 1)
        got = self.tables(streamed)
        self.assertEqual(got, self.tables(loaded))
        # a-forged holds the run_id first; b-genuine's different report
        # goes beside it, flagged; c's second boot is b's very report, a
        # duplicate in a directory; hyperv's run is there too.
        self.assertEqual(len(got["runs"]), 3)
        self.assertEqual(len(got["run_id_collisions"]), 1)
        self.assertEqual(got["run_id_collisions"][0][1], load_json(
            "kvm_good.json")["probe"]["run_id"])
        self.assertEqual([r[0] for r in got["rejected"]],
                         [os.path.join(d, "d-link.json")])

    def test_streaming_never_overwrites_a_run_in_the_database(self):
        from cptools import fleetdb, fleetload
        db = os.path.join(self.tmp, "f.db")
        rc, _, err = run("--sqlite", db, fx("kvm_good.log"))
        self.assertEqual(rc, 0, err)
        before = self.tables(db)
        forged = load_json("kvm_fallback.json")
        rid = load_json("kvm_good.json")["probe"]["run_id"]
        forged["probe"]["run_id"] = rid
        log = self.write("forged.log", frame.frame_report(forged))
        msgs = []
        sink = fleetdb.SqliteSink(db, msgs.append)
        fleetload.ingest([log], sink, warn=msgs.append)
        self.assertEqual(sink.flagged, 1)
        self.assertIn("run_id %s is already in the database" % rid,
                      "\n".join(msgs))
        after = self.tables(db)
        self.assertIn(before["runs"][0], after["runs"])
        self.assertEqual([r[1:] for r in after["run_id_collisions"]],
                         [(rid, log, fx("kvm_good.log"))])


class MarkdownEscapingTest(Tmp):
    def test_markup_controls_and_size(self):
        r = load_json("kvm_good.json")
        r["probe"]["label"] = "<script>alert(1)</script>"
        r["platform"]["cpu"]["brand"] = "a\x1b[31mb\x00c\rd\x07e|f"
        r["platform"]["firmware"]["vendor"] = "v" * (1 << 20)
        r["errors"] = ["<img src=x onerror=alert(2)>"]
        p = self.write("h.json", json.dumps(r))
        rc, out, err = run(p)
        self.assertEqual(rc, 0, err)
        # (assertTrue: a failure must not print megabytes of output)
        self.assertLess(len(out), 200000)
        for bad in ("<script", "<img", "\x1b", "\x00", "\r", "\x07"):
            self.assertTrue(bad not in out, "%r in the Markdown" % bad)
        for good in ("&lt;script>", "\\x1b", "more characters cut"):
            self.assertTrue(good in out, "%r not in the Markdown" % good)


# ---------------------------------------------------------------- verdict

class VerdictInputTypesTest(Tmp):
    def report(self):
        r, err = frame.load_report_file(fx("real_make_run.log"))
        self.assertIsNone(err)
        return r

    def verdict(self, r):
        p = self.write("r.json", json.dumps(r))
        rc, out, err, _ = child("verdict", p, timeout=60, memory=None)
        self.assertNoTraceback(err)
        return rc, err

    def test_wrong_types_are_named(self):
        for key, bad in (("drift_uncertainty_ppm", 5),
                         ("read_ns", ["tsc", 3]),
                         ("hypervisor_signatures", "kvm"),
                         ("cpu_family", {"a": 1}),
                         ("read_ns", {"bad name": 3}),
                         ("read_ns", {"tsc": [1]})):
            r = self.report()
            r["verdict"]["inputs"][key] = bad
            rc, err = self.verdict(r)
            self.assertEqual(rc, 2, (key, err))
            self.assertIn("verdict.inputs.%s" % key, err)
        r = self.report()
        r["verdict"]["inputs"] = [1]
        rc, err = self.verdict(r)
        self.assertEqual(rc, 2, err)
        self.assertIn("verdict.inputs", err)
        r = self.report()
        r["verdict"]["linux_kernel"] = 6.1
        rc, err = self.verdict(r)
        self.assertEqual(rc, 2, err)
        self.assertIn("verdict.linux_kernel", err)

    def test_a_long_value_blames_its_own_line(self):
        judge = load_script("verdict").JUDGE
        if not os.path.isfile(judge):
            self.skipTest("build/host/verdict-judge missing (make unit)")
        r = self.report()
        r["verdict"]["inputs"]["harness_anomaly_reason"] = "y" * 3000
        rc, err = self.verdict(r)
        self.assertEqual(rc, 2, err)
        self.assertIn("verdict.inputs.harness_anomaly_reason", err)
        self.assertIn("longer than", err)
        # The judge itself names the long line, not the piece after it.
        lines = ["cpu_vendor amd", "harness_anomaly_reason " + "z" * 3000,
                 "tsc true"]
        p = subprocess.run([judge], input="\n".join(lines) + "\n",
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("line 2", p.stderr)
        self.assertIn("longer than", p.stderr)


# ----------------------------------------------------------------- matrix

class NonFiniteNumbersTest(unittest.TestCase):
    """JSON lets a report carry NaN and Infinity: every tool reads a
    number through one rule (untrusted.is_finite_num), so none of them
    sums, ranks or prints one as a figure."""

    def test_one_rule(self):
        for bad in (float("nan"), float("inf"), -float("inf"), True, "1", None):
            self.assertFalse(untrusted.is_finite_num(bad), bad)
            self.assertIsNone(untrusted.finite_or_none(bad), bad)
        self.assertEqual(untrusted.finite_or_none(4.5), 4.5)

    def test_tools_read_nan_as_absent(self):
        report = json.loads('{"sources": [{"name": "tsc", "status": "ok", '
                            '"read_cost": {"estimate_ns": NaN, "ns": {"p50": Infinity}}}]}')
        self.assertEqual(matrixout.headline_costs(report), {})
        rs = kernels.ranges_from_dicts([{"from": "6.1", "to": None, "linux_clocksource": "tsc",
                                         "predicted_read_ns": float("nan"),
                                         "measured_read_ns": float("inf")}])
        self.assertIsNone(rs[0].predicted_read_ns)
        self.assertIsNone(rs[0].measured_read_ns)
        self.assertIsNone(guestjoin.predicted_cost_ns(report, "tsc", True))

    def test_huge_finite_figures_and_bent_ranges(self):
        # Finite, but no whole milli-ns: the headline says SE unknown
        # instead of raising (one such report stopped compare's judging).
        self.assertIn("(SE unknown)", headline.fmt_ns_se(1e306, 1e306))
        # by_kernel entries without a readable range cover nothing.
        bent = {"by_kernel": [{"to": "6.1"}, {"from": ["6"]}, 7,
                              {"from": "6.1", "to": None, "linux_clocksource": "arch_sys_counter"}]}
        self.assertEqual(arm64agree.entry_for(bent, "6.12")["from"], "6.1")
        self.assertIsNone(arm64agree.entry_for({"by_kernel": {"x": 1}}, "6.12"))
        # A shard's arm64 ranges of the wrong shapes still print.
        rec = {"verdict": matrixout.verdict_of({"verdict": {"arm64": {"by_kernel": [
            {"from": "4.19", "clock_gettime": "vdso", "errata_worked_around": 3}, 5]}}})}
        self.assertEqual(matrixout.set_warnings_text(rec), "4.19+: clock_gettime vdso")


class MatrixMergeConfinedTest(Tmp):
    def test_a_row_name_cannot_leave_out(self):
        shard = os.path.join(self.tmp, "a", "b", "shard")
        os.makedirs(shard)
        row = {"order": 0, "name": "../../escaped", "status": "passed",
               "details": [], "seconds": 1.0, "describe": "q35",
               "classname": "clockprobe.matrix.q35", "exit_desc": "",
               "checks": 1, "log": None, "verdict": None, "costs": {}}
        with open(os.path.join(shard, "results.json"), "w") as f:
            json.dump({"schema": 1, "rows_total": 1, "rows": [row]}, f)
        # The file the row name points at, relative to the shard.
        self.write("a/escaped.log", "x")
        out = os.path.join(self.tmp, "x", "y", "out")
        rc, so, err, _ = child("matrix", "--merge", shard, "OUT=" + out)
        self.assertEqual(rc, 2, so + err)
        self.assertNoTraceback(err)
        self.assertIn("../../escaped", err)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "x",
                                                     "escaped.log")))
        self.assertIn("not a matrix row name", err)
        # A record the outputs cannot read is named, not a KeyError.
        del row["classname"]
        row["name"] = "q35-good"
        with open(os.path.join(shard, "results.json"), "w") as f:
            json.dump({"schema": 1, "rows_total": 1, "rows": [row]}, f)
        rc, so, err, _ = child("matrix", "--merge", shard, "OUT=" + out)
        self.assertEqual(rc, 2, so + err)
        self.assertNoTraceback(err)
        self.assertIn("classname is missing", err)
        # A row's log that is a link in the shard is not followed.
        row["classname"] = "clockprobe.matrix.q35"
        with open(os.path.join(shard, "results.json"), "w") as f:
            json.dump({"schema": 1, "rows_total": 1, "rows": [row]}, f)
        os.symlink("/dev/zero", os.path.join(shard, "q35-good.log"))
        rc, so, err, _ = child("matrix", "--merge", shard, "OUT=" + out)
        self.assertEqual(rc, 2, so + err)
        self.assertIn("q35-good.log: a symbolic link, not copied", err)


if __name__ == "__main__":
    unittest.main()
