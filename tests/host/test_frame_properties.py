"""Property tests (Debian's python3-hypothesis) for the report reader every
tool shares, scripts/cptools/frame.py: whatever a serial console does to a
log -- noise around the frame, CR/LF/CRLF, escape sequences, a second copy,
a cut, a damaged byte, arbitrary bytes -- the reader returns the last whole
report exactly, or a reason, and never raises."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts"))
from cptools.frame import extract_report, frame_report  # noqa: E402

def _import_hypothesis():
    # Debian's package lives in the system interpreter's dist-packages; an
    # interpreter of the same version built elsewhere (pyenv) looks there last.
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        deb = "/usr/lib/python3/dist-packages"
        if os.path.isdir(os.path.join(deb, "hypothesis")) and deb not in sys.path:
            sys.path.append(deb)


_import_hypothesis()
try:
    from hypothesis import given, settings, strategies as st, HealthCheck
except ImportError:  # scripts/install-deps installs python3-hypothesis
    given = None

if given is not None:
    SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow])
    scalars = st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.text(max_size=20)
    values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) |
                          st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)
    reports = st.dictionaries(st.text(max_size=8), values, max_size=6).map(
        lambda d: dict(d, schema=1))
    # Console noise: anything without the markers' text or a line break of
    # its own (line ends are chosen separately).
    noise_line = st.text(max_size=40).filter(
        lambda s: "CLOCKPROBE" not in s and not any(c in s for c in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))
    noise = st.lists(noise_line, max_size=5)
    eols = st.sampled_from(["\n", "\r\n", "\r"])
    escapes = st.sampled_from(["", "\x1b[0m", "\x1b[2J\x1b[1;1H", "\x1b[31;1m", "\x1bc"])

    def framed(report, eol, esc):
        lines = frame_report(report).split("\n")[:-1]
        return eol.join(esc + ln for ln in lines) + eol

    def noisy(lines, eol):
        return eol.join(lines) + (eol if lines else "")

    class FrameProperties(unittest.TestCase):
        @SETTINGS
        @given(reports, noise, noise, eols, escapes)
        def test_noise_line_ends_and_escapes_keep_the_report(self, rep, before, after, eol, esc):
            log = noisy(before, eol) + framed(rep, eol, esc) + noisy(after, eol)
            got, err = extract_report(log)
            self.assertIsNone(err)
            self.assertEqual(got, json.loads(json.dumps(rep)))

        @SETTINGS
        @given(reports, reports, noise, eols)
        def test_doubled_report_gives_the_last(self, first, second, between, eol):
            log = framed(first, eol, "") + noisy(between, eol) + framed(second, eol, "")
            got, err = extract_report(log)
            self.assertIsNone(err)
            self.assertEqual(got, json.loads(json.dumps(second)))

        @SETTINGS
        @given(reports, eols, st.data())
        def test_cut_report_is_an_error_or_the_earlier_copy(self, rep, eol, data):
            one = framed(rep, eol, "")
            # Cut anywhere before the END marker's last digit of "bytes=".
            end_at = one.rindex(" ====")
            cut = data.draw(st.integers(0, end_at - 1))
            got, err = extract_report(one[:cut])
            self.assertIsNone(got)
            self.assertIsInstance(err, str)
            # An earlier whole copy survives a later cut one.
            got, err = extract_report(one + one[:cut])
            self.assertIsNone(err)
            self.assertEqual(got, json.loads(json.dumps(rep)))

        @SETTINGS
        @given(reports, st.data())
        def test_one_damaged_byte_is_never_accepted(self, rep, data):
            log = frame_report(rep)
            start = log.index("\n") + 1
            stop = log.index("\n", start)
            i = data.draw(st.integers(start, stop - 1))
            repl = data.draw(st.characters(max_codepoint=0x7f).filter(lambda c: c != log[i]))
            got, err = extract_report(log[:i] + repl + log[i + 1:])
            self.assertIsNone(got)
            self.assertIsInstance(err, str)

        @SETTINGS
        @given(st.binary(max_size=400) | st.text(max_size=400))
        def test_arbitrary_input_never_raises(self, blob):
            got, err = extract_report(blob)
            self.assertTrue((got is None) != (err is None))
            if got is not None:
                self.assertIsInstance(got, dict)

        @settings(max_examples=300, deadline=None, derandomize=True,
                  database=None)
        @given(st.lists(st.sampled_from(["\r", "\n", "\r\n", "a", "{}",
                                         "\x1b[31m", "\x1bc", "\u2028",
                                         "\x85", "\x0b", "\x1c"]),
                        max_size=16).map("".join))
        def test_line_split_is_the_regex_split(self, text):
            # _lines splits with str methods for speed (a fleet load): the
            # very lines re.split(r"\r\n|\r|\n") gave, and only those (no
            # split at the other line breaks str.splitlines knows).
            from cptools.frame import ANSI_RE, _lines
            import re
            want = [ANSI_RE.sub("", ln) if "\x1b" in ln else ln
                    for ln in re.split(r"\r\n|\r|\n", text)]
            self.assertEqual(_lines(text), want)
            self.assertEqual(_lines(text.encode("utf-8")), want)
else:
    class FrameProperties(unittest.TestCase):
        def test_hypothesis_installed(self):
            self.fail("python3-hypothesis is missing: run scripts/install-deps")

if __name__ == "__main__":
    unittest.main()
