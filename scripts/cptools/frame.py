"""Find, verify and extract the framed report in a noisy serial log.

The probe frames its one-line JSON report between BEGIN/END markers that
carry its length and CRC-32 (design.md, "The report contract"), because a
serial console mixes in firmware noise, escape sequences, CR/LF variants,
resets and truncation.  Everything that reads a report (run, matrix,
compare, tests) goes through extract_report() so that all of them accept
and reject exactly the same logs.
"""

import json
import re
import zlib

BEGIN_RE = re.compile(r"==== CLOCKPROBE REPORT BEGIN schema=(\d+) ====")
END_RE = re.compile(
    r"==== CLOCKPROBE REPORT END crc32=([0-9A-Fa-f]{8}) bytes=(\d+) ====")
# CSI sequences (colours, cursor moves) and two-byte escapes (ESC then any
# of 0x30-0x7E: Fp, Fe and Fs, e.g. ESC c, a terminal reset) that a firmware
# console or terminal program sprinkles into captured logs.
ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[0-Z\\-~]")


def _lines(text):
    """Split on LF, CRLF or lone CR; drop ANSI escapes from each line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    # Only lines with an ESC are searched: the report's 20 KB JSON line has
    # none, and a regex pass over it was a fleet load's largest cost.
    return [ANSI_RE.sub("", ln) if "\x1b" in ln else ln
            for ln in re.split(r"\r\n|\r|\n", text)]


def _fail(reason):
    return None, reason, None


def extract_report(text):
    """Return (report, None) or (None, reason); see extract_report_meta."""
    report, err, _ = extract_report_meta(text)
    return report, err


def extract_report_meta(text, keep_json=False):
    """Like extract_report, plus a dict {bytes, crc32, schema} (or None).

    keep_json: also keep the verified JSON line, as the bytes that were
    framed, under meta["json"] (extract_report_json).

    Find and verify the LAST complete framed report in a serial log.

    "Complete" means a BEGIN line followed by an END line before any further
    BEGIN; a trailing copy without END is ignored when an earlier complete
    one exists ("truncated: END marker missing" when none does).

    Line ends may be LF, CRLF
    or CR; escape sequences and other text around the markers are ignored.
    The JSON line must match the END marker's byte count and zlib CRC-32
    exactly (it is checked as UTF-8, the bytes the probe sent).
    """
    return _extract_meta(text, keep_json, BEGIN_RE, END_RE, "report")


def _extract_meta(text, keep_json, begin_re, end_re, what):
    """The last verified frame of one kind (extract_report_meta)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    lines = _lines(text)
    begins = [i for i, ln in enumerate(lines) if begin_re.search(ln)]
    if not begins:
        return _fail("no %s: BEGIN marker not found" % what)
    # Walk back from the last BEGIN to the last one closed by an END before
    # the next BEGIN: a copy cut off by a reset or a full buffer does not
    # hide an earlier whole one.  The chosen pair is then verified as is --
    # a corrupted last copy is an error, never a silent fall-back.
    last_begin = end_idx = None
    for b_i, b in enumerate(reversed(begins)):
        stop = begins[len(begins) - b_i] if b_i else len(lines)
        for j in range(b + 1, stop):
            if end_re.search(lines[j]):
                last_begin, end_idx = b, j
                break
        if end_idx is not None:
            break
    if end_idx is None:
        return _fail("truncated: END marker missing")
    schema = int(begin_re.search(lines[last_begin]).group(1))
    body = [ln for ln in lines[last_begin + 1:end_idx] if ln.strip()]
    if len(body) != 1:
        return _fail("malformed: expected one JSON line between the "
                     "markers, found %d" % len(body))
    json_line = body[0].strip()
    m = end_re.search(lines[end_idx])
    want_crc, want_len = int(m.group(1), 16), int(m.group(2))
    data = json_line.encode("utf-8")
    if len(data) != want_len:
        return _fail("length mismatch: END says %d bytes, JSON line has %d"
                     % (want_len, len(data)))
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if crc != want_crc:
        return _fail("CRC mismatch: END says %08x, JSON bytes give %08x"
                     % (want_crc, crc))
    try:
        report = json.loads(json_line)
    except ValueError as e:
        return _fail("JSON does not parse: %s" % e)
    if not isinstance(report, dict):
        return _fail("JSON is not an object")
    if report.get("schema", schema) != schema:
        return _fail("schema mismatch: marker says %d, JSON says %r"
                     % (schema, report.get("schema")))
    meta = {"bytes": want_len, "crc32": "%08x" % crc, "schema": schema}
    if keep_json:
        meta["json"] = data
    return report, None, meta


def extract_report_json(text):
    """Return (json_bytes, None) or (None, reason): the last verified
    report's JSON line exactly as the probe framed it -- its length and
    CRC-32 are the END marker's, which a re-serialised copy's are not."""
    _, error, meta = extract_report_meta(text, keep_json=True)
    return (meta["json"], None) if meta else (None, error)


def frame_report(report_or_json):
    """Frame a report as the probe does (used by fixture generators/tests)."""
    if isinstance(report_or_json, str):
        line = report_or_json
    else:
        line = json.dumps(report_or_json, separators=(",", ":"),
                          ensure_ascii=False)
    data = line.encode("utf-8")
    return ("==== CLOCKPROBE REPORT BEGIN schema=1 ====\n%s\n"
            "==== CLOCKPROBE REPORT END crc32=%08x bytes=%d ====\n"
            % (line, zlib.crc32(data) & 0xFFFFFFFF, len(data)))


def load_report_file(path, how=None):
    """Read a report from a .json file or a raw serial log.

    Returns (report, None) or (None, reason).  A file that parses as a JSON
    object is taken as an already extracted report; anything else is searched
    for the framed report.

    how: a dict that, on success, gets "verified": "crc32" for a framed
    report whose length and CRC-32 checked out, "unverified" for a bare
    JSON object (nothing vouches that it is what a probe wrote: an edited
    .json reads as well as the original), so that every output can say so.
    """
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return None, "cannot read: %s" % e.strerror
    return load_report_bytes(raw, how)


def load_report_bytes(raw, how=None):
    """load_report_file() on bytes already read (a file, stdin)."""
    text = raw.decode("utf-8", "replace")
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except ValueError as e:
            if "CLOCKPROBE REPORT" not in text:
                return None, "JSON does not parse: %s" % e
        else:
            if isinstance(obj, dict):
                if how is not None:
                    how["verified"] = "unverified"
                return obj, None
    report, err = extract_report(text)
    if report is not None and how is not None:
        how["verified"] = "crc32"
    return report, err


# clockprobe-guest's report from inside a running Linux guest (issue 27):
# the same frame rules, its own marker word, so a log holding both kinds
# (or a guest's serial console) is never mistaken for the other.
GUEST_BEGIN_RE = re.compile(r"==== CLOCKPROBE GUEST BEGIN schema=(\d+) ====")
GUEST_END_RE = re.compile(
    r"==== CLOCKPROBE GUEST END crc32=([0-9A-Fa-f]{8}) bytes=(\d+) ====")


def extract_guest_report_meta(text, keep_json=False):
    """extract_report_meta() for the CLOCKPROBE GUEST frame."""
    return _extract_meta(text, keep_json, GUEST_BEGIN_RE, GUEST_END_RE,
                         "guest report")


def extract_guest_report(text):
    """Return (guest report, None) or (None, reason)."""
    report, err, _ = extract_guest_report_meta(text)
    return report, err


def frame_guest_report(report_or_json):
    """Frame a guest report as clockprobe-guest does (tests, fixtures)."""
    text = frame_report(report_or_json)
    return text.replace("CLOCKPROBE REPORT BEGIN", "CLOCKPROBE GUEST BEGIN") \
        .replace("CLOCKPROBE REPORT END", "CLOCKPROBE GUEST END")


def is_guest_report(obj):
    """A JSON object that is a guest report, not the probe's."""
    return isinstance(obj, dict) and isinstance(obj.get("guest"), dict) \
        and "measurements" in obj and "probe" not in obj


def load_any_report_file(path, how=None):
    """(report, kind, None) or (None, kind, reason) for a .json file or a
    serial log: kind "guest" when it holds a CLOCKPROBE GUEST frame (or is
    a guest report's JSON), else "probe" (load_report_file)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return None, "probe", "cannot read: %s" % e.strerror
    text = raw.decode("utf-8", "replace")
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except ValueError as e:
            if "CLOCKPROBE " not in text:
                return None, "probe", "JSON does not parse: %s" % e
        else:
            if isinstance(obj, dict):   # as load_report_file takes it
                if how is not None:
                    how["verified"] = "unverified"
                return obj, "guest" if is_guest_report(obj) else "probe", \
                    None
    if how is not None:
        how["verified"] = "crc32"
    if "CLOCKPROBE GUEST BEGIN" in text and not BEGIN_RE.search(text):
        report, err = extract_guest_report(text)
        return report, "guest", err
    report, err = extract_report(text)
    return report, "probe", err
