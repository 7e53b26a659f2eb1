"""docs/report-schema.json: a valid Draft 2020-12 schema that describes
every name with its unit, holds the fixtures, and whose coverage check
names what it does not describe.  Real reports are checked where they are
made: tests/integration/test_reports_schema.py (every integration boot) and
tests/run.py (every fast matrix row)."""
import copy
import glob
import json
import os
import re
import unittest

from hostlib import FIX, REPO  # noqa: F401  (sets sys.path for cptools)
from cptools import schema

# Synthetic: no host here runs Hyper-V enlightenments, so this one is not
# from a real report and does not carry every contract name.
NOT_REAL = {"hyperv.json"}
UNIT_SUFFIXES = ("_ns", "_ms", "_hz", "_ppm", "_cycles", "_fs", "_bits", "_seconds")


def load(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


class SchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.schema = schema.load_schema()

    def test_is_valid_draft_2020_12(self):
        self.assertEqual(self.schema["$schema"], "https://json-schema.org/draft/2020-12/schema")
        schema.check_schema(self.schema)

    def test_every_name_is_described_and_has_its_unit(self):
        missing, no_unit = [], []
        for path, node in schema.described_paths(self.schema):
            if "description" not in node:
                missing.append(path)
            leaf = path.rsplit(".", 1)[-1]
            types = node.get("type", [])
            numeric = any(t in ("integer", "number") for t in (types if isinstance(types, list) else [types]))
            if numeric and leaf.endswith(UNIT_SUFFIXES) and "x-unit" not in node:
                no_unit.append(path)
        self.assertEqual(missing, [])
        self.assertEqual(no_unit, [])

    def test_fixtures_validate_and_are_covered(self):
        names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(FIX, "*.json")))
        self.assertTrue(names)
        for name in names:
            if name in NOT_REAL:
                continue
            with self.subTest(fixture=name):
                self.assertEqual(schema.check_report(load(name), self.schema), [])

    def test_coverage_names_an_undocumented_path(self):
        rep = load("tcg_q35.json")
        rep = copy.deepcopy(rep)
        rep["platform"]["acpi"]["tables"][0]["made_up"] = 1
        rep["sources"][0]["read_cost"]["cycles"]["p42"] = None
        rep["brand_new"] = {"x": 1}
        self.assertEqual(schema.undocumented(rep, self.schema),
                         ["brand_new", "platform.acpi.tables[].made_up", "sources[].read_cost.cycles.p42"])

    def test_validation_names_a_wrong_type_and_a_lost_name(self):
        rep = copy.deepcopy(load("tcg_q35.json"))
        rep["platform"]["tsc"]["freq_hz"]["measured_vs_hpet"] = "fast"
        del rep["probe"]["run_id"]
        rep["sources"][0]["status"] = "fine"
        problems = schema.validate(rep, self.schema)
        self.assertTrue(any(p.startswith("platform.tsc.freq_hz.measured_vs_hpet:") for p in problems), problems)
        self.assertTrue(any(p.startswith("probe:") and "run_id" in p for p in problems), problems)
        self.assertTrue(any(p.startswith("sources[0].status:") for p in problems), problems)

    def test_identity_names_in_the_contract(self):
        probe = self.schema["properties"]["probe"]
        for name in ("run_id", "started_utc", "label"):
            self.assertIn(name, probe["required"])
        smbios = self.schema["properties"]["platform"]["properties"]["smbios"]
        self.assertIn("uuid", smbios["required"])
        self.assertTrue(re.match(smbios["properties"]["uuid"]["pattern"], "12345678-9abc-def0-1122-334455667788"))


if __name__ == "__main__":
    unittest.main()
