"""Issue 22: on five TCG boots (q35, qemu64) every ok source's estimate and
its check (estimate_batch_cycles: the same per-call loop as extra window
pairs between the sample windows, the same estimator) agree within three
combined standard errors, and both SEs are in the report.

Opt-in (CLOCKPROBE_AGREEMENT=1; five boots of their own, about 30 s on an
idle machine): the claim is statistical, and on a host shared with other
work TCG's per-call cost drifts between windows.  It does not pass yet:
four five-boot sets while this was written (four developers on two cores)
had 1, 2, 1 and 5 of 20 source-boots outside three SEs, the estimate above
its check in most (the tsc row by 1.5-2.6 ticks in four boots of the last
set, z 3.1-5.0; once the PIT, z 4.5): a bias the SEs do not cover, not yet
explained.  The test prints every z so a failure says which."""
import math
import os
import unittest

import probe_runs

RUN = os.environ.get("CLOCKPROBE_AGREEMENT") == "1"
BOOTS = 5


@unittest.skipUnless(RUN, "opt-in: CLOCKPROBE_AGREEMENT=1 (five extra boots)")
class EstimateAgreesWithItsCheck(unittest.TestCase):
    def test_five_q35_boots(self):
        rows = []
        for i in range(BOOTS):
            name = "agreement_%d" % i
            probe_runs.CONFIGS[name] = dict()
            b = probe_runs._boot(name)
            self.assertIsNone(b.error, (name, b.error))
            r = b.report
            self.assertIn("rdtsc_raw", r["baselines"])
            for s in r["sources"]:
                if s["status"] != "ok":
                    continue
                rc = s["read_cost"]
                self.assertIsNotNone(rc["estimate_se_cycles"], s["name"])
                self.assertIsNotNone(s["throughput_net_se_cycles"], s["name"])
                se = math.hypot(rc["estimate_se_cycles"], rc["estimate_batch_se_cycles"])
                d = rc["estimate_cycles"] - rc["estimate_batch_cycles"]
                rows.append((i, s["name"], rc["estimate_cycles"], rc["estimate_se_cycles"],
                             rc["estimate_batch_cycles"], rc["estimate_batch_se_cycles"],
                             d / se if se else 0.0, abs(d) <= 3 * se + 0.01))
        for row in rows:
            print("boot %d %-8s est %.2f +- %.2g  check %.2f +- %.2g  z %+.1f %s" %
                  (row[:7] + ("" if row[7] else "OUTSIDE 3 SE",)))
        self.assertTrue(all(r[7] for r in rows), [r for r in rows if not r[7]])
