"""Property sweep of issue 41: every field of both report kinds (a probe
report, tests/fixtures/reports/kvm_good.json; a clockprobe-guest report,
tests/fixtures/guest/) replaced by a hostile value -- wrong types, finite
extremes (1e308, -1e308, the largest double), integers past 64 bits,
terminal escapes, NaN-like strings -- and run through compare (default,
--csv, --wide-csv, --baseline, --sqlite) and the guest pairing.

What must hold for every example: compare returns (no traceback), the
hostile input is either used or rejected by name (its file name on
stderr), the good runs are always kept, and no escape reaches stderr raw.

Sized for make test (~10 s); CLOCKPROBE_PROPERTY_FULL=1 runs the full
campaign (many more examples per property).
"""
import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, load_script  # noqa: E402
from test_untrusted_properties import _import_hypothesis  # noqa: E402
from test_validate_inputs import (  # noqa: E402
    GUEST, PROBE, guest_report)
from cptools import frame  # noqa: E402

_import_hypothesis()
try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:  # scripts/install-deps installs python3-hypothesis
    given = None

compare = load_script("compare")
FULL = os.environ.get("CLOCKPROBE_PROPERTY_FULL") == "1"
EXAMPLES = 3000 if FULL else 150
GOOD = os.path.join(FIX, "kvm_good.json")


def leaf_paths(obj, path=()):
    """Every member path of obj (objects and lists, all items)."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(path + (k,))
            out += leaf_paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.append(path + (i,))
            out += leaf_paths(v, path + (i,))
    return out


def replaced(obj, path, value):
    obj = json.loads(json.dumps(obj))
    node = obj
    for k in path[:-1]:
        node = node[k]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return obj


DELETE = object()
HOSTILE = [DELETE, None, True, 0, -1, 1e308, -1e308,
           1.7976931348623157e308, -1.7976931348623157e308, 5e-324,
           2 ** 63 - 1, -2 ** 63, 2 ** 64, 2 ** 200, "", "\x1b[2J",
           "\x1b]0;owned\x07", "NaN", "Infinity", "-1e999", "tsc",
           [], [1], ["\x1b[2J"], {}, {"x": "\x1b[2J"}, {"name": "tsc"}]
MODES = [[], ["--csv"], ["--wide-csv"], ["--baseline"], ["--sqlite"]]

with open(GOOD) as f:
    PROBE_REPORT = json.load(f)
GUEST_REPORT = guest_report(GUEST)
PROBE_PATHS = leaf_paths(PROBE_REPORT)
GUEST_PATHS = leaf_paths(GUEST_REPORT)


class Campaign:
    examples = 0


def run_compare(argv):
    out, err = io.StringIO(), io.StringIO()
    rc = compare.main(argv, out, err)
    return rc, out.getvalue(), err.getvalue()


if given is not None:
    SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                        derandomize=not FULL, database=None,
                        suppress_health_check=[HealthCheck.too_slow,
                                               HealthCheck.data_too_large])
    hostile = st.sampled_from(HOSTILE) | st.text(max_size=8) | \
        st.floats(allow_nan=False, allow_infinity=False) | \
        st.integers(-2 ** 70, 2 ** 70)

    class ValidateProperties(unittest.TestCase):
        @classmethod
        def tearDownClass(cls):
            # The campaign's size, for the record (docs/hostile-machine.md)
            print("\n    property sweep: %d compare runs over %d probe and "
                  "%d guest report fields%s" % (
                      Campaign.examples, len(PROBE_PATHS), len(GUEST_PATHS),
                      " (full)" if FULL else ""), file=sys.stderr)

        def setUp(self):
            self.tmp = tempfile.mkdtemp(prefix="cp-v41p-")
            self.addCleanup(shutil.rmtree, self.tmp)

        def check_mode(self, mode, inputs, good_label, bad_name):
            argv = list(inputs)
            db = None
            if mode == ["--baseline"]:
                argv = ["--baseline", GOOD] + argv
            elif mode == ["--sqlite"]:
                db = os.path.join(self.tmp, "fleet.db")
                if os.path.exists(db):
                    os.remove(db)
                argv = ["--sqlite", db] + argv
            else:
                argv = mode + argv
            rc, out, err = run_compare(argv)
            Campaign.examples += 1
            self.assertIn(rc, (0, 1), err[-2000:])
            self.assertNotIn("\x1b", err)
            # Exit 1 is compare's "an input was rejected" -- the hostile
            # file must then be the one named, on stderr -- or, with
            # --baseline, a regression of the hostile run (its value used,
            # as a finite number is), named by its label.
            if rc == 1:
                stem = os.path.splitext(os.path.basename(bad_name))[0]
                if mode == ["--baseline"] and \
                        "regression in %s " % stem in err:
                    # a figure at the edge of the double range stays short
                    self.assertNotRegex(err, r"\d{40}")
                else:
                    self.assertIn(os.path.basename(bad_name), err,
                                  err[-2000:])
            if db:
                con = sqlite3.connect(db)
                try:
                    labels = [r[0] for r in con.execute(
                        "SELECT label FROM runs")]
                finally:
                    con.close()
                self.assertIn(good_label, labels)
            else:
                self.assertIn(good_label, out)

        @SETTINGS
        @given(st.sampled_from(PROBE_PATHS), hostile,
               st.sampled_from(MODES))
        def test_probe_report_field(self, path, value, mode):
            rep = replaced(PROBE_REPORT, path, value)
            if isinstance(rep.get("probe"), dict):
                rep["probe"]["run_id"] = "hostile"
            bad = os.path.join(self.tmp, "hostile.json")
            with open(bad, "w") as f:
                json.dump(rep, f)
            inputs = [GOOD, bad] if mode != ["--baseline"] else [bad]
            self.check_mode(mode, inputs, "kvm_good" if mode != [
                "--baseline"] else "kvm_good (baseline)", bad)

        @SETTINGS
        @given(st.sampled_from(GUEST_PATHS), hostile,
               st.sampled_from([[], ["--csv"], ["--wide-csv"],
                                ["--sqlite"]]))
        def test_guest_report_field(self, path, value, mode):
            rep = replaced(GUEST_REPORT, path, value)
            bad = os.path.join(self.tmp, "hostile-guest.log")
            with open(bad, "w", encoding="utf-8") as f:
                f.write(frame.frame_guest_report(rep))
            self.check_mode(mode, [PROBE, bad, GUEST],
                            "probe-q35-qemu64-smp2", bad)
else:
    class ValidateProperties(unittest.TestCase):
        def test_hypothesis_installed(self):
            self.fail("python3-hypothesis is missing: run "
                      "scripts/install-deps")

if __name__ == "__main__":
    unittest.main()
