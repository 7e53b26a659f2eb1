"""Issue 22: on five TCG boots (q35, qemu64) every ok source's estimate and
its check (estimate_batch_cycles: window pairs held out of the estimate,
two in every six, the same code, memory and estimator) agree within three
combined standard errors, and both SEs are in the report.

Opt-in (CLOCKPROBE_AGREEMENT=1; five boots of their own, about 30 s on an
idle machine): the claim is statistical.  Twenty z values a set, each
within 3 SE with probability 0.997 if the SEs are right, fail a set about
one time in twenty even then -- too often for the default suite, often
enough to show a bias.  Four sets passed when the held-out pairs were made
to run exactly as the others (before: 1-5 of 20 outside, the check moved
1-7 ticks by what ran before it and which memory it wrote).  The test
prints every z so a failure says which."""
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
