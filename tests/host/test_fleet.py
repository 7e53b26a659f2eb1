"""Host tests for compare's fleet outputs: labels, long format, SQLite,
hypervisor-aware regressions, --fail-on, hostile input, a thousand logs.

Run: python3 -m unittest discover -s tests/host -p test_fleet.py -v
"""

import contextlib
import csv
import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, load_script  # noqa: E402
import hostile  # noqa: E402
from cptools import fleet, frame, policy  # noqa: E402

compare = load_script("compare")


def fx(name):
    return os.path.join(FIX, name)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    rc = compare.main(list(argv), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def readme_queries():
    """The SQL of the README's fleet-database examples, in order."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    start = text.index("<!-- fleet-queries -->")
    end = text.index("<!-- /fleet-queries -->")
    blocks = text[start:end].split("```sql")[1:]
    return [b.split("```")[0].strip() for b in blocks]


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p


class LabelTest(Tmp):
    def test_equal_file_names_get_their_folder(self):
        with open(fx("kvm_good.json")) as f:
            good = f.read()
        with open(fx("hyperv.json")) as f:
            hv = f.read()
        a = self.write("a/report.json", good)
        b = self.write("b/report.json", hv)
        rc, out, err = run(a, b)
        self.assertEqual(rc, 0, err)
        self.assertIn("| | a/report | b/report |", out)

    def test_label_option_and_probe_label(self):
        r = load_json(fx("kvm_good.json"))
        r["probe"]["label"] = "host-17 m5.large"
        p = self.write("x.log", frame.frame_report(r))
        rc, out, _ = run("--label", "kvm-lab", fx("kvm_good.json"), p,
                         fx("hyperv.json"))
        self.assertIn("| | kvm-lab | host-17 m5.large | hyperv |", out)
        # A rejected input keeps its label's place.
        rc, out, _ = run("--label", "A", "--label", "B", "--label", "C",
                         fx("kvm_good.json"), fx("bad_crc.log"),
                         fx("hyperv.json"))
        self.assertIn("| | A | C |", out)

    def test_run_id_probe_then_crc(self):
        r = load_json(fx("kvm_good.json"))
        del r["probe"]["run_id"]    # a report from before probe.run_id
        crc = fleet.canonical_run_id(r)
        self.assertRegex(crc, r"^crc32:[0-9a-f]{8}$")
        # The .log and the .json copy of one run are one run.
        p = self.write("x.log", frame.frame_report(r))
        self.assertEqual(fleet.canonical_run_id(
            frame.load_report_file(p)[0]), crc)
        r["probe"]["run_id"] = "7d3c-0001"
        self.assertEqual(fleet.canonical_run_id(r), "7d3c-0001")

    def test_directory_counts_a_run_once_and_skips_bad_crc(self):
        d = os.path.join(self.tmp, "m")
        os.makedirs(d)
        for n in ("kvm_fallback.json", "kvm_fallback.log", "bad_crc.log",
                  "hyperv.json"):
            shutil.copy(fx(n), d)
        with open(os.path.join(d, "results.json"), "w") as f:
            json.dump({"schema": 1, "rows_total": 0, "rows": []}, f)
        runs, rejected, dups = fleet.load_runs([d])
        # A folder's logs are read before its .json files: the run of
        # kvm_fallback is its framed .log (verified), the .json its copy.
        self.assertEqual([(r.label, r.verified) for r in runs],
                         [("kvm_fallback", "crc32"),
                          ("hyperv", "unverified")])
        self.assertEqual([os.path.basename(p) for p, _ in rejected],
                         ["bad_crc.log"])
        self.assertTrue(rejected[0][1].startswith("CRC mismatch"))
        self.assertEqual(len(dups), 1)


class LongFormatTest(unittest.TestCase):
    def test_csv_long_rows(self):
        rc, out, err = run("--csv", fx("kvm_good.json"), fx("hyperv.json"))
        self.assertEqual(rc, 0, err)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(list(rows[0]), list(fleet.LONG_COLUMNS))
        by = {(r["label"], r["section"], r["name"], r["field"]): r
              for r in rows}
        rep = load_json(fx("kvm_good.json"))
        tsc = [s for s in rep["sources"] if s["name"] == "tsc"][0]
        cell = by[("kvm_good", "sources", "tsc", "read_cost.ns.p50")]
        self.assertEqual(cell["unit"], "ns")
        self.assertEqual(float(cell["value"]), tsc["read_cost"]["ns"]["p50"])
        cell = by[("kvm_good", "sources", "tsc", "read_cost.cycles.p50")]
        self.assertEqual((cell["value"], cell["unit"]),
                         (str(tsc["read_cost"]["cycles"]["p50"]),
                          "tsc_ticks"))
        cell = by[("hyperv", "platform", "", "tsc.freq_chosen.hz")]
        self.assertEqual((cell["value"], cell["unit"]), ("2593905000", "Hz"))
        cell = by[("kvm_good", "drift", "tsc/hpet", "ppm")]
        self.assertEqual(cell["unit"], "ppm")
        cell = by[("kvm_good", "verdict", "", "vdso")]
        self.assertEqual(cell["value"], "true")
        # Every row's path resolves on the report again.
        rep = load_json(fx("kvm_good.json"))
        from cptools import query
        for r in rows:
            if r["label"] != "kvm_good" or not r["field"] or \
                    r["field"].startswith("[") or r["section"] == "input":
                continue
            p = r["section"] + ("[%s]" % r["name"] if r["name"] else "") \
                + "." + r["field"]
            self.assertTrue(query.has_path(rep, p), p)

    def test_jsonl_keeps_types(self):
        rc, out, _ = run("--jsonl", fx("kvm_fallback.log"))
        rows = [json.loads(ln) for ln in out.splitlines()]
        w = [r for r in rows if r["section"] == "verdict.warnings"
             and r["name"] == "ACPI_PM_FALLBACK" and r["field"] ==
             "severity"]
        self.assertEqual(w[0]["value"], "critical")
        pred = [r for r in rows if r["field"] == "predicted_read_ns"]
        want = frame.load_report_file(fx("kvm_fallback.log"))[0]
        self.assertEqual((pred[0]["value"], pred[0]["unit"]),
                         (want["verdict"]["predicted_read_ns"], "ns"))
        self.assertIs([r for r in rows if r["field"] == "vdso"][0]["value"],
                      False)


class RegressionByHypervisorTest(unittest.TestCase):
    def test_kvm_capabilities_not_regressions_on_hyperv(self):
        rc, out, err = run("--baseline", fx("kvm_good.json"),
                           fx("hyperv.json"))
        for msg in ("kvm-clock lost", "kvm-clock stable bit lost",
                    "Linux clocksource tsc -> hyperv",
                    "Source kvm-clock"):
            self.assertNotIn(msg, err)
        self.assertIn("(kvm only)", out)
        # Still a regression: a capability both could have.
        self.assertIn("TSC deadline lost", err)

    def test_hyperv_capability_not_regression_on_kvm(self):
        rc, out, err = run("--baseline", fx("hyperv.json"),
                           fx("kvm_good.json"))
        self.assertNotIn("hyperv_clocksource_tsc_page", err)

    def test_hidden_kvm_is_still_a_regression(self):
        # kvm=off hides the signature: the hypervisor is not "another one",
        # and losing kvm-clock is the very incident.
        rc, out, err = run("--baseline", fx("kvm_good.json"),
                           fx("kvm_fallback.json"))
        self.assertIn("kvm-clock lost", err)
        self.assertEqual(rc, 1)


class FailOnTest(unittest.TestCase):
    def test_code_and_severity(self):
        rc, _, err = run("--fail-on", "ACPI_PM_FALLBACK",
                         fx("kvm_good.json"), fx("kvm_fallback.json"))
        self.assertEqual(rc, policy.POLICY_EXIT)
        self.assertIn("kvm_fallback: 4.19+ (5.10, 5.15, 6.1, 6.6, 6.12, 6.18, "
                      "7.2): ACPI_PM_FALLBACK (critical)", err)
        # hyperv.json predates by_kernel: only its own kernel (6.1) can be
        # judged, and a gate over lts says it cannot vouch for the others
        rc, _, err = run("--fail-on", "ACPI_PM_FALLBACK", fx("kvm_good.json"),
                         fx("hyperv.json"))
        self.assertEqual(rc, 1, err)
        self.assertIn("hyperv: cannot judge: by_kernel covers none of 5.10",
                      err)
        rc, _, err = run("--kernels", "6.1", "--fail-on", "ACPI_PM_FALLBACK",
                         fx("kvm_good.json"), fx("hyperv.json"))
        self.assertEqual(rc, 0, err)
        rc, _, _ = run("--fail-on", "critical", fx("kvm_fallback.json"))
        self.assertEqual(rc, policy.POLICY_EXIT)
        rc, _, _ = run("--fail-on", "warning", fx("tcg_q35.json"))
        self.assertEqual(rc, policy.POLICY_EXIT)
        rc, _, _ = run("--fail-on", "critical", fx("tcg_q35.json"))
        self.assertEqual(rc, 0)

    def test_parse(self):
        p = policy.FailOn("warning,ACPI_PM_FALLBACK")
        self.assertEqual(p.matches([{"code": "X", "severity": "info"}]), [])
        self.assertEqual(len(p.matches([{"code": "X",
                                         "severity": "critical"}])), 1)
        for bad in ("", "severe", "acpi-pm", ","):
            self.assertRaises(policy.PolicyError, policy.FailOn, bad)
        with self.assertRaises(SystemExit) as cm, \
                contextlib.redirect_stderr(io.StringIO()):
            compare.parse_args(["--fail-on", "bogus!", fx("hyperv.json")])
        self.assertEqual(cm.exception.code, 2)


class SqliteTest(Tmp):
    def test_a_run_without_a_verdict_over_the_set_is_named(self):
        """No --fail-on: the load still says which runs have no verdict
        over the set (their headline is empty) and why, once per reason."""
        db = os.path.join(self.tmp, "nv.db")
        rc, _, err = run("--sqlite", db, fx("hyperv.json"),
                         fx("kvm_good.json"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(err.count("have no verdict over the set"), 1, err)
        self.assertIn("compare: kernels lts: 1 run(s) have no verdict over "
                      "the set (headline left empty): by_kernel covers none "
                      "of 5.10", err)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        self.assertEqual(sorted(con.execute(
            "SELECT headline IS NULL FROM verdicts")), [(0,), (1,)])
        # Its own kernel is judged: no such line.
        rc, _, err = run("--sqlite", os.path.join(self.tmp, "61.db"),
                         "--kernels", "6.1", fx("hyperv.json"))
        self.assertEqual(rc, 0, err)
        self.assertNotIn("no verdict", err)

    def test_matrix_reports_and_readme_queries(self):
        db = os.path.join(self.tmp, "fleet.db")
        d = os.path.join(self.tmp, "m")
        os.makedirs(d)
        for n in ("kvm_good.json", "kvm_fallback.log", "hyperv.json",
                  "tcg_q35.json", "bad_crc.log"):
            shutil.copy(fx(n), d)
        rc, out, err = run("--sqlite", db, d)
        self.assertEqual(rc, 1)       # bad_crc.log was rejected
        self.assertEqual(out, "")     # --sqlite alone prints no table
        self.assertIn("4 run(s) written", err)
        rc, _, _ = run("--sqlite", db, d)   # twice: same database
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs")
                         .fetchone()[0], 4)
        self.assertEqual(con.execute("SELECT source_file, reason FROM "
                                     "rejected").fetchall()[0][1][:12],
                         "CRC mismatch")
        self.assertEqual(con.execute("SELECT COUNT(*) FROM rejected")
                         .fetchone()[0], 1)
        queries = readme_queries()
        self.assertEqual(len(queries), 3)
        results = [con.execute(q).fetchall() for q in queries]
        # 1: which runs send a kernel to acpi_pm (every kernel, here)
        self.assertEqual([r[:4] for r in results[0]],
                         [("kvm_fallback", "hidden", "4.19", None)])
        # 2: predicted read cost per hypervisor
        hv = {r[0]: r for r in results[1]}
        self.assertEqual(set(hv), {"hidden", "hyperv", "kvm", "tcg"})
        # 3: runs per warning code and severity
        codes = {(r[0], r[1]) for r in results[2]}
        self.assertIn(("ACPI_PM_FALLBACK", "critical"), codes)
        self.assertIn(("TSC_NOT_INVARIANT", "warning"), codes)


def watch_frame(rec, corrupt=False):
    line = json.dumps(rec, separators=(",", ":"))
    data = line.encode()
    crc = zlib.crc32(data) & 0xFFFFFFFF
    return ("==== CLOCKPROBE WATCH BEGIN schema=1 seq=%d ====\r\n%s\r\n"
            "==== CLOCKPROBE WATCH END crc32=%08x bytes=%d ====\r\n"
            % (rec["seq"], line, crc ^ (1 if corrupt else 0), len(data)))


class WatchRecordsTest(Tmp):
    """Watch records after the report load as a time series; a damaged
    record is named and skipped, the others kept."""

    def test_watch_time_series(self):
        r = load_json(fx("kvm_good.json"))
        r["probe"]["run_id"] = "w-1"
        recs = [{"seq": i, "run_id": "w-1", "elapsed_tsc_s": 2.0 * i,
                 "elapsed_rtc_s": 2.0 * i + 0.01,
                 "offsets": [{"against": "hpet", "cumulative_ns": 10 * i}]}
                for i in (1, 2, 3)]
        log = self.write("watch.log", frame.frame_report(r) + "".join(
            watch_frame(x, corrupt=(x["seq"] == 2)) for x in recs)
            + watch_frame({"seq": 4, "run_id": "other"}))
        db = os.path.join(self.tmp, "w.db")
        rc, _, err = run("--sqlite", db, log)
        self.assertEqual(rc, 1)
        self.assertIn("watch record seq=2): rejected: CRC mismatch", err)
        self.assertIn("watch record seq=4): rejected: run_id", err)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        self.assertEqual(con.execute(
            "SELECT seq, elapsed_tsc_s FROM watch WHERE run_id = 'w-1' "
            "ORDER BY seq").fetchall(), [(1, 2.0), (3, 6.0)])
        self.assertEqual(con.execute(
            "SELECT name, value, unit FROM measurements WHERE section = "
            "'watch_records' AND field = 'offsets[0].cumulative_ns' "
            "ORDER BY name"
        ).fetchall(), [("1", 10, "ns"), ("3", 30, "ns")])


class HostileReportTest(Tmp):
    def setUp(self):
        super().setUp()
        self.log = self.write("hostile.log",
                              frame.frame_report(hostile.hostile_report()))

    def test_csv_has_no_formula_cells(self):
        rc, out, err = run("--csv", self.log, fx("kvm_good.json"))
        rows = list(csv.reader(io.StringIO(out)))
        values = [c for r in rows for c in r]
        for c in values:
            if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
                float(c)    # only a plain number may start like that
        self.assertIn("'" + hostile.FORMULA, values)
        self.assertIn("'" + hostile.PLUS_FORMULA, values)
        self.assertIn("'" + hostile.AT_FORMULA, values)
        # Control characters are shown, not written raw (issue 41: a CSV
        # on stdout reaches a terminal).
        from cptools.untrusted import term_text
        self.assertIn(term_text(hostile.CONTROL), values)
        self.assertFalse(any("\x1b" in c for c in values))
        self.assertIn(hostile.SCRIPT_TAG, values)
        # The megabyte of text is cut, and says so.
        huge = [c for c in values if c.startswith("xxxx")][0]
        self.assertLess(len(huge), 70000)
        self.assertIn("more characters cut]", huge)
        rc, out, err = run("--wide-csv", self.log, fx("kvm_good.json"))
        for r in csv.reader(io.StringIO(out)):
            for c in r:
                if c[:1] in ("=", "+", "-", "@"):
                    float(c)

    def test_sqlite_holds_strings_verbatim(self):
        db = os.path.join(self.tmp, "h.db")
        run("--sqlite", db, self.log)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        row = con.execute("SELECT label, system_manufacturer, system_product,"
                          " firmware_vendor, cpu_brand, hypervisor FROM runs"
                          ).fetchone()
        S = hostile.STRINGS
        self.assertEqual(row, (
            S["probe.label"], S["platform.smbios.manufacturer"],
            S["platform.smbios.product"], S["platform.firmware.vendor"],
            S["platform.cpu.brand"], S["platform.hypervisor.name"]))
        self.assertEqual(con.execute(
            "SELECT message, evidence, fix FROM warnings").fetchone(),
            (hostile.IMG_ATTR, hostile.FORMULA, hostile.SCRIPT_TAG))
        vals = [v for (v,) in con.execute(
            "SELECT value FROM measurements WHERE section = 'errors'")]
        self.assertEqual(vals[:2], [hostile.PLUS_FORMULA,
                                    hostile.AT_FORMULA])
        self.assertIn("more characters cut]", vals[2])

    def test_html_escapes_everything(self):
        rc, out, _ = run("--html", self.log, fx("kvm_good.json"))
        self.assertEqual(out.count("<script"), 1)
        self.assertNotIn("<img", out)
        self.assertNotIn("<svg onload", out)
        self.assertNotIn("\x00", out)
        self.assertNotIn("\x1b", out)
        self.assertIn("&lt;script&gt;window.__pwned=1&lt;/script&gt;", out)
        self.assertIn("red\\x1b[31m bell\\x07", out)
        self.assertLess(len(out), 200000)


HPET_OFF = "real_q35_hpet_off_2026.log"   # a make run MACHINE=q35,hpet=off


class KernelSetTest(Tmp):
    """Gates and fleet data over the kernels a fleet runs (issue 29): on
    q35,hpet=off Linux 6.1 falls back to acpi_pm while 6.12+ keep tsc."""

    def test_fail_on_names_the_older_kernels(self):
        rc, out, err = run("--fail-on", "ACPI_PM_FALLBACK", fx(HPET_OFF))
        self.assertEqual(rc, policy.POLICY_EXIT, err)
        self.assertIn("real_q35_hpet_off_2026: 4.19-6.11 (5.10, 5.15, 6.1, "
                      "6.6): ACPI_PM_FALLBACK (critical)", err)
        rc, _, err = run("--kernels", "6.18", "--fail-on",
                         "ACPI_PM_FALLBACK", fx(HPET_OFF))
        self.assertEqual(rc, 0, err)
        rc, _, err = run("--kernels", "6.1,6.18", "--fail-on", "critical",
                         fx(HPET_OFF))
        self.assertEqual(rc, policy.POLICY_EXIT, err)
        self.assertIn("4.19-6.11 (6.1): ACPI_PM_FALLBACK (critical)", err)
        # A release the rules do not know is a usage error before any
        # report is read (issue 38): never a pass, never a late "cannot
        # judge".
        with self.assertRaises(SystemExit) as c, \
                contextlib.redirect_stderr(io.StringIO()) as e:
            run("--kernels", "9.9", "--fail-on", "critical", fx(HPET_OFF))
        self.assertEqual(c.exception.code, 2)
        self.assertIn("9.9 is not a release the rules know", e.getvalue())

    def test_old_reports_are_judged_again_or_named(self):
        # real_make_run.log was recorded before by_kernel carried warnings
        # but has verdict.inputs: the rules judge each range again.
        r = frame.load_report_file(fx("real_q35_max_smp2.log"))[0]
        self.assertNotIn("inputs", r["verdict"])
        rc, _, err = run("--fail-on", "critical", fx("real_q35_max_smp2.log"))
        self.assertEqual(rc, 1, err)      # 4.19-6.11 cannot be judged
        self.assertIn("4.19-6.11 not judged per kernel: the report has no "
                      "verdict.inputs", err)

    def test_markdown_headline_and_unverified(self):
        with open(fx("kvm_good.json")) as f:
            bare = self.write("edited.json", f.read())
        rc, out, err = run(fx(HPET_OFF), bare)
        self.assertEqual(rc, 0, err)
        self.assertIn("## Verdict for the kernels lts", out)
        self.assertIn("- **real_q35_hpet_off_2026**: Linux 7.1+: tsc ~", out)
        self.assertIn("; 4.19-6.11 (Debian 12's 6.1): acpi_pm ~", out)
        self.assertIn("(unverified: a bare .json, no CRC)", out)
        self.assertNotIn("real_q35_hpet_off_2026**: Linux 7.1+: tsc ~8.4 ns"
                         "; 4.19-6.11 (Debian 12's 6.1): acpi_pm ~242 ns per "
                         "read - confidence low (unverified", out)

    def test_headline_words_are_the_probes(self):
        # The line made here for another set has the words the C rules
        # write (verdict-judge --kernels, verdict.headline) for that set.
        from cptools import headline, judgment, kernels
        verdict = load_script("verdict")
        r = frame.load_report_file(fx(HPET_OFF))[0]
        for kset in ("lts", "all", "6.1", "6.18", "6.1,6.18", "5.4,7.2"):
            want = verdict.judge(r, kernels=kset)["headline"]
            j = judgment.Judgment(r, kernels.KernelSet(kset))
            self.assertEqual(headline.headline(j), want, kset)

    def test_label_options_between_inputs(self):
        rc, out, err = run("--label", "q35", fx("kvm_good.json"),
                           "--label", "nohpet", fx(HPET_OFF))
        self.assertEqual(rc, 0, err)
        self.assertIn("| | q35 | nohpet |", out)

    def test_sqlite_per_kernel_table(self):
        db = os.path.join(self.tmp, "k.db")
        rc, _, err = run("--sqlite", db, fx(HPET_OFF), fx("kvm_good.json"))
        self.assertEqual(rc, 0, err)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        rows = con.execute(readme_queries()[0]).fetchall()
        self.assertEqual([r[:4] for r in rows], [
            ("real_q35_hpet_off_2026", "tcg", "4.19", "6.11")])
        self.assertEqual(rows[0][4], "5.10,5.15,6.1,6.6")
        self.assertGreater(rows[0][5], 150)     # a syscall and a port read
        k = con.execute("SELECT warning_codes, worst_severity, confidence, "
                        "judged, releases FROM by_kernel WHERE run_id = "
                        "(SELECT run_id FROM runs WHERE label = ?) AND "
                        "from_kernel = '6.12'", ("real_q35_hpet_off_2026",)
                        ).fetchone()
        self.assertNotIn("ACPI_PM_FALLBACK", k[0])
        self.assertEqual((k[1], k[2], k[3]), ("warning", "low", "report"))
        self.assertEqual(k[4], "6.12,6.13,6.14,6.15,6.16,6.17,6.18,6.19,7.0")
        v = con.execute("SELECT risk, headline FROM verdicts JOIN runs "
                        "USING (run_id) WHERE label = ?",
                        ("real_q35_hpet_off_2026",)).fetchone()
        self.assertEqual(v[0], "jiffies_watchdog -> acpi_pm")
        self.assertTrue(v[1].startswith("Linux 7.1+: tsc ~"), v[1])
        self.assertEqual(con.execute(
            "SELECT verified FROM runs ORDER BY label").fetchall(),
            [("unverified",), ("crc32",)])


def os_cpu():
    """CPU seconds of this process and its finished children (the
    loading processes): what load on a shared machine does not inflate."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _shift(d, by):
    """Every number of a dict of figures (a read cost's percentiles)
    moved by one amount: the distribution keeps its shape, its values are
    this report's own."""
    for k, v in d.items():
        if type(v) is int:
            d[k] = v + int(by * 1000) % 7
        elif type(v) is float:
            d[k] = round(v + by, 3)


def perturb(r, i):
    """Report i of a fleet made distinct in its measured content, not only
    in its run_id: read costs, estimates, drift, elapsed time and start
    time differ from report to report (as they do between real boots), so
    no cache of whole reports could make the copies cheap to load.  Only
    values already there change: the field layout stays the base's."""
    by = (i % 997 + 1) * 0.001
    p = r["probe"]
    p["label"] = "host-%05d" % i
    # One boot, one run id: copies of one capture are distinct runs.
    p["run_id"] = "%032x" % (i + 1)
    if type(p.get("elapsed_ms")) is int:
        p["elapsed_ms"] += i % 1009
    if isinstance(p.get("started_utc"), str):
        s = i % 86400
        p["started_utc"] = "2026-12-%02dT%02d:%02d:%02dZ" % (
            1 + i // 86400 % 28, s // 3600, s // 60 % 60, s % 60)
    for src in r.get("sources") or ():
        rc = src.get("read_cost") if isinstance(src, dict) else None
        if not isinstance(rc, dict):
            continue
        for unit in ("ns", "cycles"):
            if isinstance(rc.get(unit), dict):
                _shift(rc[unit], by)
        if type(rc.get("estimate_ns")) is float:
            rc["estimate_ns"] = round(rc["estimate_ns"] + by, 3)
    for dr in r.get("drift") or ():
        if isinstance(dr, dict) and type(dr.get("ppm")) is float:
            dr["ppm"] = round(dr["ppm"] + by / 10, 4)
    return r


def make_fleet(d, n):
    base = []
    for name in (HPET_OFF, "real_q35_max_smp2.log", "kvm_fallback.log",
                 "hyperv.json"):
        base.append(frame.load_report_file(fx(name))[0])
    os.makedirs(d)
    for i in range(n):
        r = perturb(json.loads(json.dumps(base[i % len(base)])), i)
        with open(os.path.join(d, "host-%05d.log" % i), "w") as f:
            f.write("noise before\r\n" + frame.frame_report(r))


class ScalingTest(Tmp):
    """The cost per report stays flat as a fleet grows (issue 29: linear,
    and fast enough for 100,000 in a minute): 500 and then 2000 distinct
    logs, CPU per report compared; the figures are printed."""

    def load(self, n):
        d = os.path.join(self.tmp, "fleet%d" % n)
        make_fleet(d, n)
        db = os.path.join(self.tmp, "fleet%d.db" % n)
        t0, c0 = time.monotonic(), os_cpu()
        rc, _, err = run("--sqlite", db, "-j", "2", d)
        took, cpu = time.monotonic() - t0, os_cpu() - c0
        self.assertEqual(rc, 0, err)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs")
                         .fetchone()[0], n)
        self.assertEqual(con.execute("SELECT COUNT(DISTINCT run_id) FROM "
                                     "measurement_values").fetchone()[0], n)
        print("\n    %d logs into SQLite: %.2f s wall, %.2f s CPU, %.2f ms "
              "CPU per report (load %.1f)" % (n, took, cpu, cpu * 1000 / n,
                                              os.getloadavg()[0]),
              file=sys.stderr)
        return cpu / n

    def test_cost_per_report_is_flat(self):
        small, large = self.load(500), self.load(2000)
        # Linear: four times the reports, about four times the work (pool
        # start-up weighs more on the small run, so the large one's share
        # is the lower one when it scales).
        self.assertLess(large, small * 1.5)
        # CPU of the writer and both loading processes together, which the
        # wall time is on 2 idle cores about half of: 1.2 ms a report here
        # at load 1.2, start-up included (100,000 take 0.8 ms each: 43-47 s
        # on 2 cores, README); before the shapes of
        # cptools/flatshape.py it was 1.3 at load 1.5 and 2.4 at load 3.4
        # (two cores shared with other jobs slow every process down).  The
        # bound leaves room for a loaded machine and fails a loader more
        # than twice this one's cost.
        self.assertLess(large * 1000, 2.8, "ms of CPU per report")

    def test_measurements_view_reads_back_the_long_format(self):
        d = os.path.join(self.tmp, "few")
        make_fleet(d, 8)
        db = os.path.join(self.tmp, "few.db")
        rc, _, err = run("--sqlite", db, "-j", "2", d)
        self.assertEqual(rc, 0, err)
        runs, _, _ = fleet.load_runs([d])
        want = sorted((r[0], r[2], r[3], r[4], r[5], r[6])
                      for run_ in runs for r in fleet.long_rows(run_))
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        got = sorted(con.execute("SELECT run_id, section, name, field, "
                                 "value, unit FROM measurements"))
        norm = [(a, b, c, d_, int(v) if isinstance(v, bool) else v, u)
                for a, b, c, d_, v, u in want]
        self.assertEqual(len(got), len(norm))
        self.assertEqual(got, sorted(norm))


class ThousandLogsTest(Tmp):
    """compare --sqlite on a directory of 1000 logs (real matrix reports
    re-framed with 1000 labels): wall and CPU time are printed.  The bound
    is on the CPU time this process spent, which other jobs on a shared
    machine do not inflate the way they inflate the wall time (seen: 5 s
    wall at load 4, 37 s at load 18 on 2 cores); the issue's target is
    10 s on an idle machine, the bound three times that."""

    BOUND_CPU_S = 30.0

    def test_thousand_logs(self):
        base = []
        for n in ("real_q35_hpet_off.log", "real_q35_max_smp2.log",
                  "kvm_fallback.log", "hyperv.json"):
            base.append(frame.load_report_file(fx(n))[0])
        d = os.path.join(self.tmp, "fleet")
        os.makedirs(d)
        for i in range(1000):
            r = json.loads(json.dumps(base[i % len(base)]))
            r["probe"]["label"] = "host-%04d" % i
            # One boot, one run id: copies of one capture are distinct runs.
            r["probe"]["run_id"] = "%032x" % (i + 1)
            with open(os.path.join(d, "host-%04d.log" % i), "w") as f:
                f.write("noise before\r\n" + frame.frame_report(r))
        db = os.path.join(self.tmp, "fleet.db")
        t0, c0 = time.monotonic(), os_cpu()
        rc, _, err = run("--sqlite", db, d)
        took, cpu = time.monotonic() - t0, os_cpu() - c0
        print("\n    1000 logs ingested into SQLite in %.2f s wall, %.2f s "
              "CPU (load average %.1f)" % (took, cpu, os.getloadavg()[0]),
              file=sys.stderr)
        self.assertEqual(rc, 0, err)
        con = sqlite3.connect(db)
        self.addCleanup(con.close)
        self.assertEqual(con.execute("SELECT COUNT(*) FROM runs")
                         .fetchone()[0], 1000)
        self.assertEqual(con.execute(
            "SELECT COUNT(*) FROM verdicts WHERE linux_clocksource = "
            "'acpi_pm'").fetchone()[0], 250)
        self.assertLess(cpu, self.BOUND_CPU_S)


if __name__ == "__main__":
    unittest.main()
