#!/usr/bin/env python3
"""A generated fleet for the fleet page's scale tests (issue 38): N framed
serial logs in G groups, made from the real captures in
tests/fixtures/reports by varying what differs between a fleet's machines
-- the label, the SMBIOS product (a cloud's instance type), the start
time, the read costs -- so that the page, the loader and the gate meet
fleets of any size without a boot per run.

The captures are chosen for what the gate makes of them over the lts
kernel set (scripts/compare --fail-on critical):

    real_q35_hpet_off_2026.log  fails: 4.19-6.11 (Debian 12's 6.1) falls
                                back to acpi_pm (ACPI_PM_FALLBACK,
                                critical) while the report's own 6.18
                                keeps tsc with warnings only -- the case
                                the page once showed in grey
    real_make_run.log           passes: 6.1 gets hpet (a warning)

Each group is one SMBIOS product; every FAIL_EVERY-th group has its runs
from the failing capture, the others from the passing one, so a test
knows which groups the gate fails.  Deterministic: the same arguments
give the same files.

    python3 tests/host/fleetgen.py OUT_DIR [RUNS [GROUPS]]
"""

import copy
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(REPO, "tests", "fixtures", "reports")
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import frame  # noqa: E402

FAILING = "real_q35_hpet_off_2026.log"
PASSING = "real_make_run.log"
FAIL_EVERY = 4      # groups 0, 4, 8, ...: the gate fails their runs
# Instance-type-like products (what a cloud writes into SMBIOS type 1).
FAMILIES = ("m6i", "c6i", "r6i", "m7i", "c7a", "t3", "n2", "e2", "d4s",
            "c5")
SIZES = ("large", "xlarge", "2xlarge", "4xlarge")


def product(g):
    return "%s.%s" % (FAMILIES[g % len(FAMILIES)],
                      SIZES[(g // len(FAMILIES)) % len(SIZES)])


def group_of(i, runs, groups):
    """Run i's group: contiguous blocks, the first groups one run larger
    when runs does not divide evenly."""
    per, extra = divmod(runs, groups)
    big = (per + 1) * extra
    return i // (per + 1) if i < big else extra + (i - big) // max(per, 1)


def _scale_costs(rep, factor):
    """Every read cost of the report times factor (what another machine
    of the same kind measures), the verdict's predictions alike."""
    for s in rep.get("sources") or []:
        rc = s.get("read_cost") if isinstance(s, dict) else None
        if not isinstance(rc, dict):
            continue
        if isinstance(rc.get("estimate_ns"), (int, float)):
            rc["estimate_ns"] = round(rc["estimate_ns"] * factor, 3)
        ns = rc.get("ns")
        for k, v in (ns.items() if isinstance(ns, dict) else ()):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                ns[k] = round(v * factor, 3)
    v = rep.get("verdict") or {}
    if isinstance(v.get("predicted_read_ns"), (int, float)):
        v["predicted_read_ns"] = round(v["predicted_read_ns"] * factor, 3)
    for b in v.get("by_kernel") or []:
        if isinstance(b.get("predicted_read_ns"), (int, float)):
            b["predicted_read_ns"] = round(b["predicted_read_ns"] * factor,
                                           3)


def base_reports():
    out = {}
    for name in (FAILING, PASSING):
        rep, err = frame.load_report_file(os.path.join(FIX, name))
        if rep is None:
            raise SystemExit("%s: %s" % (name, err))
        out[name] = rep
    return out


def fleet(runs, groups, seed=38):
    """[(file name, report, group index)] for runs reports in groups."""
    rnd = random.Random(seed)
    bases = base_reports()
    out = []
    for i in range(runs):
        g = group_of(i, runs, groups)
        rep = copy.deepcopy(bases[FAILING if g % FAIL_EVERY == 0
                                  else PASSING])
        p = rep["probe"]
        p["run_id"] = "%032x" % rnd.getrandbits(128)
        p["label"] = "%s-%04d" % (product(g).replace(".", "-"), i)
        # A fleet started over ten days, one run every few minutes.
        t = 1796083200 + i * 431 + rnd.randrange(60)
        p["started_utc"] = "2026-12-%02dT%02d:%02d:%02dZ" % (
            1 + t // 86400 % 28, t // 3600 % 24, t // 60 % 60, t % 60)
        rep["platform"]["smbios"]["product"] = product(g)
        _scale_costs(rep, 0.7 + 0.6 * rnd.random())
        out.append(("run-%05d.log" % i, rep, g))
    return out


def write_fleet(out_dir, runs, groups, seed=38):
    """The fleet as framed serial logs in out_dir; returns its
    [(path, report, group)]."""
    os.makedirs(out_dir, exist_ok=True)
    made = []
    for name, rep, g in fleet(runs, groups, seed):
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(frame.frame_report(rep))
        made.append((path, rep, g))
    return made


def main(argv):
    if not argv or len(argv) > 3:
        raise SystemExit(__doc__.rsplit("\n\n", 1)[-1])
    runs = int(argv[1]) if len(argv) > 1 else 2000
    groups = int(argv[2]) if len(argv) > 2 else 20
    write_fleet(argv[0], runs, groups)
    print("%d runs in %d groups in %s" % (runs, groups, argv[0]))


if __name__ == "__main__":
    main(sys.argv[1:])
