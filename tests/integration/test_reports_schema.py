"""Issue #12: every integration boot's report validates against
docs/report-schema.json and uses no name the schema does not describe
(the boots are the shared ones of probe_runs: this costs no extra boot)."""
import os
import sys

from base import ProbeTest
import probe_runs

sys.path.insert(0, os.path.join(probe_runs.REPO, "scripts"))
from cptools import schema  # noqa: E402


class ReportsMatchTheSchema(ProbeTest):
    def test_every_boot(self):
        sch = schema.load_schema()
        checked = 0
        for name in probe_runs.reporting():
            b = probe_runs.get(name)
            if b.skip or b.report is None:
                continue  # the boot's own tests say why
            with self.subTest(boot=name):
                self.assertEqual(schema.check_report(b.report, sch), [])
                checked += 1
        # CLOCKPROBE_BOOTS (iterating on a few boots) validates those only.
        self.assertGreater(checked, 0 if os.environ.get("CLOCKPROBE_BOOTS") else 10)
