"""Issue 22, issue 40: on five TCG boots (q35, qemu64) every ok source's
estimate and its check (estimate_batch_cycles: window pairs held out of the
estimate, two in every six, the same code, memory and estimator) agree
within the tails their window counts have, and both SEs are in the report.

The bound is Student's t, not a normal 3 SE: the estimate's SE comes from
its windows (estimate_windows, 8 in quick mode, ~16 by default) and the
check's from its pairs (estimate_batch_pairs, 9-16), so z = d / se has
t-like tails with Welch-Satterthwaite degrees of freedom.  A normal 3-SE
bound over a 20-row set failed 10-17 % of the time with correct SEs (issue
40), not the 0.3 % per row it seemed to promise.  Each row is judged at the
two-sided t quantile for a family level of FAMILY_ALPHA over every row of
the run (Bonferroni): with right SEs the whole set fails at most 1 % of the
time, so a failure points at a bias.

Opt-in (CLOCKPROBE_AGREEMENT=1; five boots of their own, about 30 s on an
idle machine).  The test prints every z, its t bound and its df so a
failure says which.  T quantiles come from the t density integrated here
(no scipy in the probe's test environment); TQuantile checks them against
table values and runs by default."""
import math
import os
import unittest

import probe_runs

RUN = os.environ.get("CLOCKPROBE_AGREEMENT") == "1"
BOOTS = 5
FAMILY_ALPHA = 0.01


def t_cdf(x, df):
    """P(T <= x) for Student's t with df degrees of freedom (df > 0), by
    Simpson's rule on the density from 0 to |x| (the density is smooth and
    bounded, 2000 panels give 1e-9)."""
    if x == 0:
        return 0.5
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def f(t):
        return c * (1 + t * t / df) ** (-(df + 1) / 2)

    a, n = abs(x), 2000
    h = a / n
    s = f(0) + f(a) + sum((4 if k % 2 else 2) * f(k * h) for k in range(1, n))
    half = s * h / 3
    return 0.5 + half if x > 0 else 0.5 - half


def t_quantile(p, df):
    """The x with t_cdf(x, df) = p, p in (0.5, 1), by bisection."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def welch_df(se1, n1, se2, n2):
    """Welch-Satterthwaite degrees of freedom of a difference of two means
    whose SEs rest on n1 and n2 windows."""
    v1, v2 = se1 * se1, se2 * se2
    den = (v1 * v1 / (n1 - 1) if n1 > 1 else 0) + (v2 * v2 / (n2 - 1) if n2 > 1 else 0)
    if den == 0:
        return max(min(n1, n2) - 1, 1)
    return max((v1 + v2) ** 2 / den, 1.0)


class TQuantile(unittest.TestCase):
    def test_table_values(self):
        for p, df, want in ((0.975, 8, 2.306), (0.975, 15, 2.131), (0.995, 10, 3.169),
                            (0.9995, 16, 4.015), (0.975, 1000, 1.962)):
            self.assertAlmostEqual(t_quantile(p, df), want, places=2, msg=(p, df))

    def test_welch_df_equal_parts(self):
        # Two equal SEs of 9 windows each: 16 degrees of freedom.
        self.assertAlmostEqual(welch_df(1.0, 9, 1.0, 9), 16.0)


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
                se1, se2 = rc["estimate_se_cycles"], rc["estimate_batch_se_cycles"]
                se = math.hypot(se1, se2)
                d = rc["estimate_cycles"] - rc["estimate_batch_cycles"]
                df = welch_df(se1, rc["estimate_windows"], se2, rc["estimate_batch_pairs"])
                rows.append([i, s["name"], rc["estimate_cycles"], se1, rc["estimate_batch_cycles"], se2,
                             d / se if se else 0.0, df, d, se])
        per_row = 1 - FAMILY_ALPHA / (2 * max(len(rows), 1))
        for row in rows:
            bound = t_quantile(per_row, row[7])
            row.append(bound)
            row.append(abs(row[8]) <= bound * row[9] + 0.01)
        for row in rows:
            print("boot %d %-8s est %.2f +- %.2g  check %.2f +- %.2g  z %+.1f  df %.1f  bound %.2f %s" %
                  (tuple(row[:8]) + (row[10], "" if row[11] else "OUTSIDE")))
        self.assertTrue(all(r[11] for r in rows), [r for r in rows if not r[11]])
