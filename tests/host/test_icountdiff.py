"""cptools/icountdiff: the x86 reports recorded before and after the arch
seam (tests/fixtures/reports/icount/) differ only in the named classes of
docs/architecture.md, and a change of behaviour planted in either side is
named UNEXPECTED, so the comparison can fail."""

import copy
import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import SCRIPTS  # noqa: E402
sys.path.insert(0, SCRIPTS)
from cptools import icountdiff  # noqa: E402

FIX = os.path.join(os.path.dirname(SCRIPTS), "tests", "fixtures", "reports", "icount")


def load(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


def source(report, name):
    return next(s for s in report["sources"] if s["name"] == name)


class SeamPair(unittest.TestCase):
    def setUp(self):
        self.before = load("before-seam-3ec7b9e.json")
        self.after = load("after-seam-7b5ad74.json")

    def test_the_seam_kept_behaviour(self):
        r = icountdiff.classify(self.before, self.after)
        self.assertEqual(r["unexpected"], [])
        counts = {k: len(v) for k, v in r["named"].items()}
        self.assertEqual(counts, {"identity": 1, "stamp": 18, "phase": 28, "rate": 6})
        # What the windows measured did not move: every read cost, the
        # baselines, the gaps' figures and the timers' latencies.
        for name in ("tsc", "acpi_pm", "hpet", "pit"):
            self.assertEqual(source(self.before, name)["read_cost"],
                             source(self.after, name)["read_cost"], name)
        self.assertEqual(self.before["baselines"], self.after["baselines"])

    def test_one_report_against_itself_is_identical(self):
        self.assertEqual(icountdiff.differences(self.before, copy.deepcopy(self.before)), [])

    def test_a_moved_read_cost_is_unexpected(self):
        after = copy.deepcopy(self.after)
        source(after, "acpi_pm")["read_cost"]["estimate_cycles"] += 1
        r = icountdiff.classify(self.before, after)
        self.assertEqual([p for p, _, _ in r["unexpected"]],
                         ["sources[%d].read_cost.estimate_cycles"
                          % after["sources"].index(source(after, "acpi_pm"))])

    def test_a_lost_or_new_name_is_unexpected(self):
        after = copy.deepcopy(self.after)
        del after["gaps"]["threshold_ns"]
        after["probe"]["new_field"] = 1
        r = icountdiff.classify(self.before, after)
        self.assertEqual(sorted(p for p, _, _ in r["unexpected"]),
                         ["gaps.threshold_ns", "probe.new_field"])

    def test_a_figure_in_ns_may_move_only_with_the_chosen_rate(self):
        # Same rate on both sides: a gap threshold in ns that moved is a
        # change, not a conversion.
        before = copy.deepcopy(self.before)
        after = copy.deepcopy(self.before)
        after["gaps"]["threshold_ns"] += 1
        r = icountdiff.classify(before, after)
        self.assertEqual([p for p, _, _ in r["unexpected"]], ["gaps.threshold_ns"])
        # With the rate moved it is a named conversion.
        after["platform"]["tsc"]["freq_chosen"]["hz"] += 100
        r = icountdiff.classify(before, after)
        self.assertEqual(r["unexpected"], [])
        self.assertEqual(sorted(r["named"]["rate"]),
                         ["gaps.threshold_ns", "platform.tsc.freq_chosen.hz"])

    def test_render_and_exit_status(self):
        out = io.StringIO()
        icountdiff.render(icountdiff.classify(self.before, self.after), out)
        self.assertIn("53 difference(s): 53 named, 0 unexpected", out.getvalue())
        bad = os.path.join(FIX, "no-such.json")
        self.assertEqual(icountdiff.main(["reports", bad, bad]), 2)
        self.assertEqual(icountdiff.main(["reports", os.path.join(FIX, "before-seam-3ec7b9e.json"),
                                          os.path.join(FIX, "after-seam-7b5ad74.json")]), 0)


if __name__ == "__main__":
    unittest.main()
