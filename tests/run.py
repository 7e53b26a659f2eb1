#!/usr/bin/env python3
"""Runs every test of the project and ends with the one line CI counts:

    N passed, N failed[, N skipped]

1. host unit tests: build/host/test_* (C, built by `make unit`), one
   PASS/FAIL line per test;
2. host tool tests: tests/host/test_*.py (Python unittest);
3. integration tests: tests/integration/test_*.py (Python unittest), which
   boot the probe under QEMU.  Boots are shared between test files and run
   in parallel (tests/integration/probe_runs.py);
4. the fast rows of the QEMU matrix (scripts/matrix --fast), one test each,
   and each row's report against docs/report-schema.json, one test each.

Set CLOCKPROBE_TESTS=unit,host to run a subset; exit status is non-zero on
any failure.  The unit and host suites run in a child process beside the
boots (CLOCKPROBE_SERIAL=1: one after the other).
"""
import glob
import json
import os
import subprocess
import sys
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Tally(unittest.TextTestResult):
    """Counts like the C harness: one line per test."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.passed = []
        self.durations = []
        self._started = 0.0

    def startTest(self, test):
        self._started = time.time()
        super().startTest(test)

    def stopTest(self, test):
        # The 5-minute budget is spent by a few boots; naming them is what
        # lets the next change keep the suite inside it.
        self.durations.append((time.time() - self._started, test.id()))
        super().stopTest(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)


def run_unit():
    passed = failed = 0
    binaries = sorted(glob.glob(os.path.join(REPO, "build", "host", "test_*")))
    if not binaries:
        print("FAIL unit: no unit test binaries (run `make unit`)")
        return 0, 1
    for b in binaries:
        proc = subprocess.run([b], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=600)
        lines = proc.stdout.splitlines()
        for line in lines:
            if line.startswith("PASS "):
                passed += 1
            elif line.startswith("FAIL "):
                failed += 1
                print(line)
        if proc.returncode != 0 and not any(l.startswith("FAIL ") for l in lines):
            failed += 1  # crashed (a sanitizer report, a signal) outside a test
            print("FAIL %s: exit status %d\n%s" % (os.path.basename(b), proc.returncode,
                                                   proc.stdout[-3000:]))
    print("unit: %d passed, %d failed (%d binaries)" % (passed, failed, len(binaries)))
    return passed, failed


def run_unittest_dir(name, top):
    if not os.path.isdir(top):
        return 0, 0, 0
    sys.path.insert(0, top)
    sys.path.insert(0, os.path.join(REPO, "scripts"))
    suite = unittest.defaultTestLoader.discover(top, pattern="test_*.py", top_level_dir=top)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=Tally)
    res = runner.run(suite)
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    for secs, test_id in sorted(res.durations, reverse=True)[:8]:
        if secs >= 2:
            print("%s: slow: %5.1f s %s" % (name, secs, test_id))
    print("%s: %d passed, %d failed, %d skipped" % (name, len(res.passed), failed, len(res.skipped)))
    return len(res.passed), failed, len(res.skipped)


def run_matrix_fast():
    """The rows of tests/matrix.conf tagged fast, each row one test."""
    import xml.etree.ElementTree as ET
    out = os.path.join(REPO, "build", "matrix-fast")
    proc = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "matrix"), "--fast",
                           "--out", out], cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=1800)
    print(proc.stdout[-4000:])
    junit = os.path.join(out, "junit.xml")
    if not os.path.exists(junit):
        print("FAIL matrix: no junit.xml (exit %d)" % proc.returncode)
        return 0, 1, 0
    passed = failed = skipped = 0
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("skipped") is not None:
            skipped += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            print("FAIL matrix:%s" % case.get("name"))
        else:
            passed += 1
    if proc.returncode != 0 and not failed:
        failed += 1
    # Every row's report against docs/report-schema.json, one test each.
    sys.path.insert(0, os.path.join(REPO, "scripts"))
    from cptools import schema
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        if os.path.basename(path) == "results.json":
            continue    # the matrix's own row records, not a probe report
        with open(path) as f:
            problems = schema.check_report(json.load(f))
        if problems:
            failed += 1
            print("FAIL schema:%s\n  %s" % (os.path.basename(path), "\n  ".join(problems[:20])))
        else:
            passed += 1
    print("matrix: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return passed, failed, skipped


def start_beside(parts):
    """The unit and host suites in a child process beside the boots.

    The boots (integration, matrix) and the host tools' tests each keep
    about one of this machine's cores busy, so running them one after the
    other left a core idle for most of the 5-minute budget.  The child's
    output is kept and printed whole after the boots' own, so each suite
    reads as one block; CLOCKPROBE_SERIAL=1 runs everything in order."""
    import tempfile
    log = tempfile.TemporaryFile(mode="w+")
    env = dict(os.environ, CLOCKPROBE_TESTS=",".join(parts))
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)], cwd=REPO,
                            env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    return proc, log


def finish_beside(proc, log):
    """Print the child's output; its counts from its last line."""
    rc = proc.wait()
    log.seek(0)
    text = log.read()
    log.close()
    lines = [l for l in text.splitlines() if l.strip()]
    print("\n".join(l for l in lines if not l.startswith("test run took")))
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    last = lines[-1] if lines else ""
    for piece in last.split(","):
        words = piece.split()
        if len(words) == 2 and words[0].isdigit() and words[1] in counts:
            counts[words[1]] = int(words[0])
    if rc != 0 and not counts["failed"]:
        counts["failed"] = 1    # it died without its summary line
        print("FAIL unit/host suites: exit status %d" % rc)
    return counts["passed"], counts["failed"], counts["skipped"]


def main():
    wanted = os.environ.get("CLOCKPROBE_TESTS", "unit,host,integration,matrix").split(",")
    start = time.time()
    passed = failed = skipped = 0
    beside = None
    quick = [w for w in ("unit", "host") if w in wanted]
    if quick and ("integration" in wanted or "matrix" in wanted) and \
            os.environ.get("CLOCKPROBE_SERIAL") != "1":
        beside = start_beside(quick)
        wanted = [w for w in wanted if w not in quick]
    if "unit" in wanted:
        p, f = run_unit()
        passed += p
        failed += f
    for name, top in (("host", os.path.join(REPO, "tests", "host")),
                      ("integration", os.path.join(REPO, "tests", "integration"))):
        if name in wanted:
            p, f, s = run_unittest_dir(name, top)
            passed += p
            failed += f
            skipped += s
    if "matrix" in wanted:
        p, f, s = run_matrix_fast()
        passed += p
        failed += f
        skipped += s
    if beside:
        p, f, s = finish_beside(*beside)
        passed += p
        failed += f
        skipped += s
    print("test run took %.0f s" % (time.time() - start))
    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
