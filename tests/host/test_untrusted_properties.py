"""Property tests (Debian's python3-hypothesis) for the host readers of
untrusted input (issue 25): the frame parser, the watch-log scanner, the
fleet loader and compare's field table, fed what a hostile guest or a
damaged log can hold -- nesting far past the limit, NaN/Infinity, numbers
past 64 bits, thousands of digits in a marker, two runs in one log, reused
run ids, members of the wrong type, control characters and markup.

Each property is what the tools promise: they never raise, every input is
accounted for (a run, a duplicate, or a named rejection), nothing past the
limits of cptools/inputs.py gets through, and what they print is escaped.
"""
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, load_script  # noqa: E402
from cptools import fields, fleet, frame, inputs, watchlog  # noqa: E402

compare = load_script("compare")
watch = load_script("watch")


def _import_hypothesis():
    # Debian's package lives in the system interpreter's dist-packages; an
    # interpreter of the same version built elsewhere (pyenv) looks there.
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        deb = "/usr/lib/python3/dist-packages"
        if os.path.isdir(os.path.join(deb, "hypothesis")) and \
                deb not in sys.path:
            sys.path.append(deb)


_import_hypothesis()
try:
    from hypothesis import HealthCheck, given, settings, strategies as st
except ImportError:  # scripts/install-deps installs python3-hypothesis
    given = None


def frame_line(kind, line, head="schema=1", tail=None):
    """A REPORT or WATCH frame around a JSON line; tail replaces the END
    marker's crc32=/bytes= fields when given (damage)."""
    data = line.encode("utf-8")
    tail = tail or "crc32=%08x bytes=%d" % (zlib.crc32(data) & 0xFFFFFFFF,
                                            len(data))
    return "==== CLOCKPROBE %s BEGIN %s ====\n%s\n==== CLOCKPROBE %s END " \
        "%s ====\n" % (kind, head, line, kind, tail)


def base_report():
    with open(os.path.join(FIX, "kvm_good.json")) as f:
        return json.load(f)


if given is not None:
    SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                        database=None,
                        suppress_health_check=[HealthCheck.too_slow,
                                               HealthCheck.data_too_large])
    texts = st.text(alphabet=st.characters(max_codepoint=0x2030),
                    max_size=30) | st.sampled_from([
                        "<script>x</script>", "\x1b[31m", "\x00", "a\rb",
                        "=1+1", "|", "[x](http://e/)", "\u2028"])
    numbers = st.integers(-2 ** 63, 2 ** 64 - 1) | st.floats(
        allow_nan=False, allow_infinity=False)
    scalars = st.none() | st.booleans() | numbers | texts
    values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) |
                          st.dictionaries(texts, kids, max_size=4),
                          max_leaves=16)
    # What a hostile line may hold beyond plain JSON values.
    poison = st.sampled_from([
        "NaN", "Infinity", "-Infinity", "1e999", "-1e999",
        str(2 ** 64), str(-2 ** 63 - 1), "9" * 5000,
        "[" * 70 + "]" * 70, "[" * 5000 + "]" * 5000])
    # Report-like objects: the keys the tools read, with any values.
    report_like = st.fixed_dictionaries({
        "schema": st.just(1),
        "probe": st.fixed_dictionaries({}, optional={
            "run_id": st.sampled_from(["r1", "r2", "r3"]) | values,
            "label": values, "version": values}),
        "platform": values | st.fixed_dictionaries({}, optional={
            "cpu": values, "hypervisor": values, "tsc": values,
            "acpi": st.fixed_dictionaries({}, optional={
                "tables": st.lists(values, max_size=5)})}),
        "sources": values | st.lists(
            st.fixed_dictionaries({"name": texts | values}, optional={
                "status": st.sampled_from(["ok", "absent"]) | values,
                "read_cost": values, "reason": values}), max_size=5),
        "drift": values | st.lists(st.fixed_dictionaries(
            {"a": texts | values, "b": texts | values},
            optional={"ppm": values}), max_size=4),
        "verdict": values | st.fixed_dictionaries({}, optional={
            "warnings": values, "linux_clocksource": values,
            "predicted_read_ns": values, "by_kernel": values}),
    }, optional={"errors": values, "gaps": values, "cross_cpu": values})

    def dumps(obj):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)

    class FrameParserProperties(unittest.TestCase):
        @SETTINGS
        @given(report_like, poison, st.sampled_from(["bytes", "schema"]),
               st.booleans())
        def test_poison_is_named_never_raised(self, rep, bad, where, dmg):
            line = dumps(rep)[:-1] + ",\"x\":" + bad + "}"
            data = line.encode()
            if where == "bytes" and dmg:
                log = frame_line("REPORT", line, tail="crc32=%08x bytes=%s"
                                 % (zlib.crc32(data), "9" * 5000))
            elif where == "schema" and dmg:
                log = frame_line("REPORT", line, head="schema=" + "1" * 5000)
            else:
                log = frame_line("REPORT", line)
            found = frame.extract_reports(log)
            self.assertEqual(len(found), 1)
            got, why, _ = found[0]
            self.assertIsNone(got)   # every poison here is out of bounds
            self.assertIsInstance(why, str)
            self.assertLess(len(why), 400)

        @SETTINGS
        @given(st.lists(report_like, min_size=1, max_size=4), st.data())
        def test_every_whole_report_of_a_log_comes_back(self, reps, data):
            # Some frames damaged (one CRC bit), the rest whole: each whole
            # one is returned, in order, each damaged one named.
            damaged = [data.draw(st.booleans()) for _ in reps]
            log = "noise\r\n"
            for rep, bad in zip(reps, damaged):
                line = dumps(rep)
                data_ = line.encode()
                crc = zlib.crc32(data_) ^ (1 if bad else 0)
                log += frame_line("REPORT", line, tail="crc32=%08x bytes=%d"
                                  % (crc & 0xFFFFFFFF, len(data_)))
                log += "reboot\r\n"
            found = frame.extract_reports(log)
            self.assertEqual(len(found), len(reps))
            for (got, why, _), rep, bad in zip(found, reps, damaged):
                if bad:
                    self.assertIsNone(got)
                    self.assertIn("CRC mismatch", why)
                else:
                    self.assertEqual(got, json.loads(dumps(rep)))
                    inputs.check(got)

        @SETTINGS
        @given(values)
        def test_loads_accepts_exactly_what_check_allows(self, v):
            text = dumps(v)
            self.assertEqual(inputs.loads(text), json.loads(text))

    class WatchScannerProperties(unittest.TestCase):
        @SETTINGS
        @given(st.lists(st.tuples(
            st.integers(0, 10 ** 12).map(str) | st.sampled_from(
                ["9" * 5000, "0" * 30 + "7"]),
            values | st.fixed_dictionaries({}, optional={
                "offsets": values, "events": values,
                "watchdog_replay": values, "elapsed_tsc_s": values,
                "run_id": values, "events_total": values}),
            st.booleans()), max_size=6))
        def test_scan_check_and_summary_never_raise(self, frames):
            log = ""
            for seq, rec, with_seq in frames:
                if isinstance(rec, dict) and with_seq and len(seq) < 20:
                    rec = dict(rec, seq=int(seq))
                log += frame_line("WATCH", dumps(rec),
                                  head="schema=1 seq=%s" % seq)
            entries = watchlog.scan(log)
            self.assertEqual(len(entries), len(frames))
            for e in entries:
                self.assertTrue(0 <= e["seq"] <= watchlog.MAX_SEQ)
                self.assertTrue((e["record"] is None) != (e["error"] is None))
                if e["record"] is not None:
                    self.assertIsNone(watchlog.shape_problem(e["record"]))
            c = watchlog.check(entries)
            self.assertLessEqual(len(c["missing"]), watchlog.MAX_SEQ)
            out = io.StringIO()
            watch.print_summary(c, out)
            text = out.getvalue()
            self.assertLess(max(map(len, text.splitlines() or [""])), 4096)
            self.assertNotIn("\x1b", text)
            if c["records"]:
                watch.svg(c["records"], "t")

    class FleetLoaderProperties(unittest.TestCase):
        @SETTINGS
        @given(st.lists(st.tuples(report_like, st.sampled_from(
            ["log", "json", "damaged", "junk", "twice"])), min_size=1,
            max_size=6))
        def test_every_report_is_a_run_a_duplicate_or_named(self, files):
            tmp = tempfile.mkdtemp(prefix="cp-prop-")
            try:
                wanted = set()   # digests of the whole reports written
                for i, (rep, how) in enumerate(files):
                    line = dumps(rep)
                    text = frame_line("REPORT", line)
                    if how == "json":
                        name, text = "f%d.json" % i, line
                    elif how == "damaged":
                        name = "f%d.log" % i
                        text = text.replace(" bytes=", " bytes=1", 1)
                    elif how == "junk":
                        name, text = "f%d.txt" % i, "no report\n" + line[:9]
                    elif how == "twice":
                        name, text = "f%d.log" % i, text + "key\n" + text
                    else:
                        name = "f%d.log" % i
                    with open(os.path.join(tmp, name), "w",
                              encoding="utf-8") as f:
                        f.write(text)
                    if how in ("log", "json", "twice"):
                        wanted.add(fleet.report_digest(json.loads(line)))
                runs, rejected, dups = fleet.load_runs([tmp])
                self.assertEqual({r.digest for r in runs}, wanted)
                self.assertEqual(len({r.run_id for r in runs}), len(runs))
                for r in runs:
                    if r.claimed_run_id is not None:
                        self.assertEqual(r.run_id, "%s#%s" % (
                            r.claimed_run_id, r.digest))
                bad = sum(how in ("damaged", "junk") for _, how in files)
                self.assertEqual(len(rejected), bad)
            finally:
                shutil.rmtree(tmp)

    class FieldTableProperties(unittest.TestCase):
        @SETTINGS
        @given(st.lists(report_like, min_size=1, max_size=3),
               st.booleans())
        def test_table_and_markdown_never_raise_and_stay_escaped(self, reps,
                                                                  base):
            labels = ["r%d" % i for i in range(len(reps))]
            for r in reps:
                for f in fields.build_fields(reps):
                    f.value(r)
            t = compare.Table(labels, reps, 0 if base else None)
            md = compare.render_markdown(t, [("<x>\x1b", "why\r\n")])
            for bad in ("\x1b", "\x00", "\r", "\u2028"):
                self.assertNotIn(bad, md)
            # Markup: "<" only inside a code span, where it is text.
            self.assertNotIn("<", re.sub(r"`[^`\n]*`", "", md))
            compare.render_wide_csv(t, [])
            compare.build_charts(labels, reps)
else:
    class UntrustedProperties(unittest.TestCase):
        def test_hypothesis_installed(self):
            self.fail("python3-hypothesis is missing: run "
                      "scripts/install-deps")

if __name__ == "__main__":
    unittest.main()
