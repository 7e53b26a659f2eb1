"""compare --postgres against a real PostgreSQL server (no mock).

The test starts its own server (Debian's postgresql: initdb and pg_ctl) in
a temporary folder, listening on a Unix socket there only (no TCP), as
the postgres user when run as root (initdb refuses root).  It checks the
same tables as SQLite, the README's queries, idempotence (a folder loaded
twice is the same database), and two loaders writing the same database at
once: nothing lost, nothing duplicated.

Skipped, with the reason, where Debian's postgresql or python3-psycopg2 is
missing (scripts/install-deps test installs both) or the server cannot
start.  About 10-20 s.
"""

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO  # noqa: E402
import test_fleet  # noqa: E402
from cptools import fleetdb, fleetpg  # noqa: E402

COMPARE = os.path.join(REPO, "scripts", "compare")


def pg_bin(name):
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/" + name))
    return found[-1] if found else shutil.which(name)


class Server:
    """A throwaway PostgreSQL cluster on a socket in a temp folder."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cp-pg-")
        self.data = os.path.join(self.dir, "data")
        self.sock = os.path.join(self.dir, "sock")
        os.makedirs(self.sock)
        self.prefix = []
        self.user = pwd.getpwuid(os.getuid()).pw_name
        if os.getuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise unittest.SkipTest("running as root and there is no "
                                        "postgres user for initdb")
            for p in (self.dir, self.sock):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
            self.user = "postgres"

    def run(self, argv, **kw):
        return subprocess.run(self.prefix + argv, capture_output=True,
                              text=True, timeout=120, **kw)

    def start(self):
        initdb, pg_ctl = pg_bin("initdb"), pg_bin("pg_ctl")
        if not initdb or not pg_ctl:
            raise unittest.SkipTest("no initdb/pg_ctl: Debian's postgresql "
                                    "is not installed (scripts/install-deps)")
        p = self.run([initdb, "-D", self.data, "-A", "trust", "-U",
                      self.user, "--no-sync", "-E", "UTF8"])
        if p.returncode:
            raise unittest.SkipTest("initdb failed: " + p.stderr[-500:])
        p = self.run([pg_ctl, "-D", self.data, "-w", "-t", "60", "-l",
                      os.path.join(self.dir, "log"), "-o",
                      "-k %s -c listen_addresses='' -c fsync=off" % self.sock,
                      "start"])
        if p.returncode:
            log = ""
            try:
                with open(os.path.join(self.dir, "log")) as f:
                    log = f.read()[-800:]
            except OSError:
                pass
            raise unittest.SkipTest("the server did not start: %s %s"
                                    % (p.stderr[-400:], log))
        self.dsn = "host=%s dbname=postgres user=%s" % (self.sock, self.user)

    def stop(self):
        pg_ctl = pg_bin("pg_ctl")
        if pg_ctl and os.path.isdir(self.data):
            self.run([pg_ctl, "-D", self.data, "-m", "immediate", "-w",
                      "stop"])
        shutil.rmtree(self.dir, ignore_errors=True)


class PostgresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            cls.pg = fleetpg.import_psycopg2()
        except fleetdb.FleetDbError as e:
            raise unittest.SkipTest(str(e))
        cls.server = Server()
        try:
            cls.server.start()
        except unittest.SkipTest:
            cls.server.stop()
            raise
        cls.tmp = tempfile.mkdtemp(prefix="cp-pgdata-")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        # each test its own database
        self.db = "t_%s" % self._testMethodName.lower()[-40:]
        con = self.pg.connect(self.server.dsn)
        con.autocommit = True
        with con.cursor() as c:
            c.execute("DROP DATABASE IF EXISTS %s" % self.db)
            c.execute("CREATE DATABASE %s" % self.db)
        con.close()
        self.dsn = "host=%s dbname=%s user=%s" % (
            self.server.sock, self.db, self.server.user)

    def query(self, sql, args=()):
        con = self.pg.connect(self.dsn)
        try:
            with con.cursor() as c:
                c.execute(sql, args)
                return c.fetchall()
        finally:
            con.close()

    def compare(self, *argv):
        return subprocess.run([sys.executable, COMPARE] + list(argv),
                              capture_output=True, text=True, timeout=300)

    def test_tables_queries_and_idempotence(self):
        inputs = [os.path.join(FIX, n) for n in (
            test_fleet.HPET_OFF, "kvm_fallback.log", "kvm_good.json",
            "hyperv.json", "bad_crc.log")]
        for _ in range(2):      # twice: the same database
            p = self.compare("--postgres", self.dsn, *inputs)
            self.assertEqual(p.returncode, 1, p.stderr)   # bad_crc rejected
            self.assertIn("4 run(s) written to PostgreSQL (1 rejected)",
                          p.stderr)
        self.assertEqual(self.query("SELECT COUNT(*) FROM runs"), [(4,)])
        self.assertEqual(self.query("SELECT COUNT(*) FROM rejected"), [(1,)])
        q = test_fleet.readme_queries()
        fallback = self.query(q[0])
        self.assertEqual([r[:4] for r in fallback], [
            ("kvm_fallback", "hidden", "4.19", None),
            ("real_q35_hpet_off_2026", "tcg", "4.19", "6.11")])
        self.assertEqual(fallback[1][4], "5.10,5.15,6.1,6.6")
        self.assertEqual(len(self.query(q[1])), 4)      # per hypervisor
        self.assertIn(("ACPI_PM_FALLBACK", "critical", 1), self.query(q[2]))
        # the measurements view: a value of each run, typed as JSON
        got = self.query("SELECT value FROM measurements WHERE section = "
                         "'verdict' AND field = 'linux_kernel' ORDER BY "
                         "run_id")
        self.assertEqual(len(got), 4)
        # the times appended to runs (issue 38), as in SQLite
        times = dict((lab, (s, i)) for lab, s, i in self.query(
            "SELECT label, started_utc, ingested_utc FROM runs"))
        self.assertEqual(times["real_q35_hpet_off_2026"][0],
                         "2026-12-01T21:07:17Z")
        self.assertIsNone(times["hyperv"][0])
        for _, ingested in times.values():
            self.assertRegex(ingested, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_two_loaders_at_once_lose_and_duplicate_nothing(self):
        d = os.path.join(self.tmp, "fleet")
        if not os.path.isdir(d):
            test_fleet.make_fleet(d, 400)
        files = sorted(os.path.join(d, f) for f in os.listdir(d))
        # Overlapping halves: 0..299 and 100..399, so 200 runs are loaded
        # by both at the same time (hard links: regular files, as an input
        # directory must hold).
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        for sub, part in ((a, files[:300]), (b, files[100:])):
            shutil.rmtree(sub, ignore_errors=True)
            os.makedirs(sub)
            for f in part:
                os.link(f, os.path.join(sub, os.path.basename(f)))
        procs = [subprocess.Popen([sys.executable, COMPARE, "--postgres",
                                   self.dsn, "-j", "1", sub],
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for sub in (a, b)]
        t0 = time.monotonic()
        outs = [p.communicate(timeout=600) for p in procs]
        took = time.monotonic() - t0
        for p, (_, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        print("\n    two loaders, 300 reports each (200 shared), into one "
              "PostgreSQL database at once: %.1f s" % took, file=sys.stderr)
        self.assertEqual(self.query("SELECT COUNT(*), COUNT(DISTINCT "
                                    "run_id) FROM runs"), [(400, 400)])
        # Each run's rows as one loader alone writes them (SQLite, same
        # files): every table, every run, the same count -- nothing lost,
        # nothing twice (warnings and watch have no key to stop a double).
        ref_db = os.path.join(self.tmp, "ref.db")
        if os.path.exists(ref_db):
            os.unlink(ref_db)
        p = self.compare("--sqlite", ref_db, "-j", "1", d)
        self.assertEqual(p.returncode, 0, p.stderr)
        import sqlite3
        ref = sqlite3.connect(ref_db)
        self.addCleanup(ref.close)
        for table in ("verdicts", "by_kernel", "sources", "warnings",
                      "measurement_values"):
            sql = ("SELECT run_id, COUNT(*) FROM %s GROUP BY run_id "
                   "ORDER BY run_id" % table)
            self.assertEqual(sorted(self.query(sql)),
                             sorted(ref.execute(sql).fetchall()), table)
        sql = "SELECT COUNT(*) FROM measurements"
        self.assertEqual(self.query(sql), ref.execute(sql).fetchall())

    def claimants(self, d, name, n):
        """n logs of fixture `name`, run ids 1..n (the same ids whatever
        the fixture: reports that claim each other's run_id)."""
        from cptools import frame
        os.makedirs(d)
        base = frame.load_report_file(os.path.join(FIX, name))[0]
        for i in range(n):
            r = dict(base, probe=dict(base["probe"], run_id="%032x" % (i + 1),
                                      label="%s-%d" % (name, i)))
            with open(os.path.join(d, "r%03d.log" % i), "w") as f:
                f.write(frame.frame_report(r))

    def test_a_reused_run_id_never_overwrites_a_run(self):
        genuine = os.path.join(self.tmp, "genuine-one")
        forged = os.path.join(self.tmp, "forged-one")
        for d, name in ((genuine, "kvm_good.log"),
                        (forged, "kvm_fallback.log")):
            shutil.rmtree(d, ignore_errors=True)
            self.claimants(d, name, 1)
        p = self.compare("--postgres", self.dsn, genuine)
        self.assertEqual(p.returncode, 0, p.stderr)
        before = self.query("SELECT * FROM runs")
        for _ in range(2):      # twice: nothing changes the second time
            p = self.compare("--postgres", self.dsn, forged)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("1 run_id collision(s) flagged", p.stderr)
        rid = "%032x" % 1
        self.assertEqual(self.query("SELECT * FROM runs WHERE run_id = %s",
                                    (rid,)), before)
        got = self.query("SELECT run_id, claimed_run_id, source_file FROM "
                         "run_id_collisions")
        self.assertEqual([g[1:] for g in got],
                         [(rid, os.path.join(forged, "r000.log"))])
        self.assertEqual(self.query(
            "SELECT linux_clocksource FROM verdicts WHERE run_id = %s",
            (got[0][0],)), [("acpi_pm",)])

    def test_two_loaders_claiming_the_same_run_ids_overwrite_nothing(self):
        n = 150
        dirs = [os.path.join(self.tmp, "claim-" + k) for k in "ab"]
        for d, name in zip(dirs, ("kvm_good.log", "kvm_fallback.log")):
            shutil.rmtree(d, ignore_errors=True)
            self.claimants(d, name, n)
        procs = [subprocess.Popen([sys.executable, COMPARE, "--postgres",
                                   self.dsn, d], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for d in dirs]
        outs = [p.communicate(timeout=600) for p in procs]
        for p, (_, err) in zip(procs, outs):
            self.assertIn(p.returncode, (0, 1), err)
        # Every report is in, each under one id; for each run_id one
        # report holds it and the other is beside it, flagged once.
        self.assertEqual(self.query("SELECT COUNT(*), COUNT(DISTINCT "
                                    "source_file) FROM runs"),
                         [(2 * n, 2 * n)])
        self.assertEqual(self.query("SELECT COUNT(*), COUNT(DISTINCT "
                                    "claimed_run_id) FROM "
                                    "run_id_collisions"), [(n, n)])
        held = self.query("SELECT r.run_id, d.digest FROM runs r JOIN "
                          "run_digests d ON d.run_id = r.run_id")
        self.assertEqual(len(held), 2 * n)
        for rid, digest in held:
            if "#" in rid:
                self.assertTrue(rid.endswith("#" + digest), rid)


if __name__ == "__main__":
    unittest.main()
