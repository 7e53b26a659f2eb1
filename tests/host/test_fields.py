"""cptools/fields.py: compare's field table, on real reports.

The table must read only names the report contract describes (a renamed
or misspelt path would show "-" in every column without an error), build
one block per clock source and per drift pair the reports hold, and
read each figure from where its row says.  Reports: tests/fixtures/reports
(real captures under TCG, KVM and Hyper-V shapes).
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX  # noqa: E402
from cptools import fields, frame, query, schema  # noqa: E402


def report(name):
    path = os.path.join(FIX, name)
    if name.endswith(".json"):
        with open(path) as f:
            return json.load(f)
    rep, why = frame.load_report_file(path)
    assert rep is not None, why
    return rep


def by_key(fs):
    return {(f.section, f.label): f for f in fs}


class FieldTableTest(unittest.TestCase):
    def test_every_path_read_is_in_the_schema(self):
        described = {p for p, _ in schema.described_paths()}
        read = fields.paths_read()
        self.assertGreater(len(read), 60)
        self.assertEqual([p for p in read if p not in described], [])

    def test_table_is_well_formed(self):
        specs = (fields.HEAD + fields.PER_SOURCE + fields.KVMCLOCK
                 + fields.PER_DRIFT + fields.TAIL)
        for s in specs:
            self.assertIn(s.kind, fields.KINDS, s)
            # a function names what it reads; a path is what it reads
            self.assertTrue(isinstance(s.get, str) or s.reads, s)
        for s in fields.PER_SOURCE:
            self.assertIn("{name}", s.section)
        fs = fields.build_fields([report("tcg_q35.json"),
                                  report("kvm_good.json")])
        keys = [(f.section, f.label) for f in fs]
        self.assertEqual(len(keys), len(set(keys)))

    def test_tcg_report_read_where_the_rows_say(self):
        r = report("tcg_q35.json")
        fs = fields.build_fields([r])
        f = by_key(fs)
        names = [s["name"] for s in r["sources"]]
        self.assertEqual(fields.source_names([r]), names)
        self.assertEqual([sec for sec, lab in f if lab == "status"],
                         ["Source " + n for n in names])
        tsc = query.get_path(r, "sources[tsc]")
        v = lambda sec, lab: f[(sec, lab)].value(r)  # noqa: E731
        self.assertEqual(v("Source tsc", "p50 ns"),
                         tsc["read_cost"]["ns"]["p50"])
        self.assertEqual(v("Source tsc", "min cycles"),
                         tsc["read_cost"]["cycles"]["min"])
        self.assertEqual(v("Source tsc", "status"), "ok")
        # absent: the status says why, and no cost is read
        rd = query.get_path(r, "sources[rdtscp]")
        self.assertEqual(v("Source rdtscp", "status"),
                         "absent (%s)" % rd["reason"])
        self.assertIsNone(v("Source rdtscp", "p50 ns"))
        self.assertEqual(f[("Source kvm-clock", "status")].hv, "kvm")
        self.assertEqual(
            f[("Source hyperv_clocksource_tsc_page", "status")].hv, "hyperv")
        self.assertIsNone(f[("Source hpet", "status")].hv)
        # one drift row per pair, as a magnitude
        pairs = ["%s/%s" % (d["a"], d["b"]) for d in r["drift"]]
        self.assertEqual(fields.drift_pairs([r]), pairs)
        for d in r["drift"]:
            self.assertEqual(v("Drift", "%s/%s ppm" % (d["a"], d["b"])),
                             abs(d["ppm"]))
        self.assertEqual(v("Identity", "signatures"),
                         ["TCGTCGTCGTCG@0x40000000"])
        self.assertEqual(v("Identity", "boot / phase"), "%s / %s" % (
            r["probe"]["boot"], r["probe"]["phase"]))
        self.assertEqual(v("Cross-CPU", "CPUs tested"), "%s of %s" % (
            r["cross_cpu"]["tested"], r["cross_cpu"]["cpus"]))
        self.assertEqual(v("Verdict", "warnings"),
                         [w["code"] for w in r["verdict"]["warnings"]])
        self.assertEqual(v("Verdict", "errors"), len(r["errors"]))
        self.assertEqual(v("Capabilities", "ACPI tables"), [
            t["signature"] + ("!" if t.get("checksum_ok") is False else "")
            for t in r["platform"]["acpi"]["tables"]])
        tabs = f[("TSC frequency", "chosen")]
        self.assertEqual(fields.fmt_cell(tabs, 2445000000), "2445.000 MHz")

    def test_every_path_row_reads_its_path(self):
        for name in ("tcg_q35.json", "kvm_good.json", "hyperv.json",
                     "real_q35_max_smp2.log"):
            r = report(name)
            fs = by_key(fields.build_fields([r]))
            for spec in fields.HEAD + fields.KVMCLOCK + fields.TAIL:
                if isinstance(spec.get, str):
                    self.assertEqual(
                        fs[(spec.section, spec.label)].value(r),
                        query.get_path(r, spec.get), (name, spec.label))

    def test_broken_report_reads_none(self):
        bad = {"sources": [{"name": "tsc", "status": "ok",
                            "read_cost": "not an object"}],
               "errors": "not a list", "platform": {"cpu": []},
               "cross_cpu": {"tested": 1}}
        fs = by_key(fields.build_fields([bad]))
        self.assertIsNone(fs[("Source tsc", "p50 ns")].value(bad))
        self.assertIsNone(fs[("Verdict", "errors")].value(bad))
        self.assertIsNone(fs[("Identity", "family/model/stepping")]
                          .value(bad))
        self.assertEqual(fs[("Cross-CPU", "CPUs tested")].value(bad),
                         "1 of None")
        self.assertIsNone(fields.Field("s", "l", lambda r: r["x"][3])
                          .value({"x": []}))


if __name__ == "__main__":
    unittest.main()
