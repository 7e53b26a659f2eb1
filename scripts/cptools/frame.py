"""Find, verify and extract the framed report in a noisy serial log.

The probe frames its one-line JSON report between BEGIN/END markers that
carry its length and CRC-32 (docs/architecture.md, "The report contract"), because a
serial console mixes in firmware noise, escape sequences, CR/LF variants,
resets and truncation.  Everything that reads a report (run, matrix,
compare, tests) goes through extract_report() so that all of them accept
and reject exactly the same logs.
"""

import json
import re
import zlib

from . import inputs
from .untrusted import cap

SCHEMA_MAX = 1 << 31    # a schema= beyond this is damage, not a version
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
    # The same split as re.split(r"\r\n|\r|\n") -- CRLF pairs first, then
    # a lone CR -- with str methods, which a fleet load's 20 KB JSON lines
    # pass through in a tenth of the regex's time.  Only lines with an ESC
    # are searched: the report's JSON line has none.
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [ANSI_RE.sub("", ln) if "\x1b" in ln else ln
            for ln in text.split("\n")]


def _fail(reason):
    return None, reason, None


_MARK = "==== CLOCKPROBE "


def _frames(lines, begin_re=None, end_re=None):
    """[(begin, end or None)]: each BEGIN line with the END line that
    closes it before the next BEGIN (None: cut off).  One pass."""
    begin_re, end_re = begin_re or BEGIN_RE, end_re or END_RE
    # Every marker starts so: a substring test (no regex pass over the
    # 20 KB JSON line, twice) picks the lines worth a search; one walk
    # over them pairs each BEGIN with the first END before the next BEGIN.
    out, open_at = [], None
    for i, ln in enumerate(lines):
        if _MARK not in ln:
            continue
        if begin_re.search(ln):
            if open_at is not None:
                out.append((open_at, None))
            open_at = i
        elif open_at is not None and end_re.search(ln):
            out.append((open_at, i))
            open_at = None
    if open_at is not None:
        out.append((open_at, None))
    return out


def _verify(lines, begin, end, keep_json=False, begin_re=None, end_re=None):
    """(report, None, meta) or (None, reason, None) for one frame."""
    begin_re, end_re = begin_re or BEGIN_RE, end_re or END_RE
    try:
        schema = inputs.parse_count(begin_re.search(lines[begin]).group(1),
                                    "schema", SCHEMA_MAX)
        m = end_re.search(lines[end])
        want_len = inputs.parse_count(m.group(2), "bytes",
                                      inputs.MAX_JSON_BYTES)
    except inputs.InputError as e:
        return _fail("malformed marker: %s" % e)
    body = [ln for ln in lines[begin + 1:end] if ln.strip()]
    if len(body) != 1:
        return _fail("malformed: expected one JSON line between the "
                     "markers, found %d" % len(body))
    json_line = body[0].strip()
    want_crc = int(m.group(1), 16)
    data = json_line.encode("utf-8")
    if len(data) != want_len:
        return _fail("length mismatch: END says %d bytes, JSON line has %d"
                     % (want_len, len(data)))
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if crc != want_crc:
        return _fail("CRC mismatch: END says %08x, JSON bytes give %08x"
                     % (want_crc, crc))
    try:
        report = inputs.loads(json_line)
    except inputs.InputError as e:
        return _fail(str(e))
    if not isinstance(report, dict):
        return _fail("JSON is not an object")
    if report.get("schema", schema) != schema:
        return _fail("schema mismatch: marker says %d, JSON says %s"
                     % (schema, cap(repr(report.get("schema")), 40)))
    meta = {"bytes": want_len, "crc32": "%08x" % crc, "schema": schema}
    if keep_json:
        meta["json"] = data
    return report, None, meta


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
    exactly (it is checked as UTF-8, the bytes the probe sent), and is
    parsed within cptools.inputs' limits (depth, size, finite numbers).
    A log holding several runs: extract_reports gives every one.
    """
    return _extract_meta(text, keep_json, BEGIN_RE, END_RE, "report")


def _extract_meta(text, keep_json, begin_re, end_re, what):
    """The last verified frame of one kind (extract_report_meta)."""
    lines = _lines(text)
    frames = _frames(lines, begin_re, end_re)
    if not frames:
        return _fail("no %s: BEGIN marker not found" % what)
    # The last copy closed by an END before the next BEGIN: a copy cut off
    # by a reset or a full buffer does not hide an earlier whole one.  The
    # chosen pair is then verified as is -- a corrupted last copy is an
    # error, never a silent fall-back.
    whole = [f for f in frames if f[1] is not None]
    if not whole:
        return _fail("truncated: END marker missing")
    return _verify(lines, *whole[-1], keep_json=keep_json,
                   begin_re=begin_re, end_re=end_re)


def extract_reports(text, keep_json=False, begin_re=None, end_re=None,
                    what="report"):
    """Every complete framed report of a log, in order: a list of
    (report, reason, meta) as extract_report_meta gives for one, so that
    a log holding two boots (a reboot, a second run) gives both and a
    damaged copy is named next to the good ones.  A copy cut off before
    its END is left out where the log holds a whole one (a late console,
    a reset mid-report); with none whole the list is that one error."""
    begin_re, end_re = begin_re or BEGIN_RE, end_re or END_RE
    lines = _lines(text)
    frames = _frames(lines, begin_re, end_re)
    if not frames:
        return [_fail("no %s: BEGIN marker not found" % what)]
    whole = [f for f in frames if f[1] is not None]
    if not whole:
        return [_fail("truncated: END marker missing")]
    return [_verify(lines, b, e, keep_json, begin_re, end_re)
            for b, e in whole]


# The first run id of a JSON line, whole or cut: the probe writes
# probe.run_id, clockprobe-guest guest.run_id, among the first members of
# the line, so a copy cut later than that still tells whose it was.
RUN_ID_RE = re.compile(r'"run_id"\s*:\s*"([!#-\[\]-~]{1,200})"')


def _first_run_id(lines):
    return next((m.group(1) for m in map(RUN_ID_RE.search, lines) if m), None)


def _marker_offsets(raw, begin_re):
    """Byte offsets of each BEGIN marker in the log as read, and the
    log's length (trailing blank space left out)."""
    if isinstance(raw, bytes):
        pat = re.compile(begin_re.pattern.encode("ascii"))
        return [m.start() for m in pat.finditer(raw)], len(raw.rstrip())
    out, pos, done = [], 0, 0
    for m in begin_re.finditer(raw):
        pos += len(raw[done:m.start()].encode("utf-8", "replace"))
        done = m.start()
        out.append(pos)
    return out, pos + len(raw[done:].rstrip().encode("utf-8", "replace"))


def cut_runs(raw, begin_re=None, end_re=None):
    """The copies a log begins and never ends (no END before the next
    BEGIN or the end of the log) that are not a re-sent copy of a run the
    log holds whole: [(run_id or None, byte)], byte the offset in the log
    where the cut copy's text stops.  A re-sent, cut copy of a whole run
    (the same run_id) is no loss and is left out, as is everything when
    the log holds no whole copy (its error already says "truncated").
    A different run cut short would otherwise vanish without a word: the
    callers (extract, compare, verdict) name each one (cut_text)."""
    begin_re, end_re = begin_re or BEGIN_RE, end_re or END_RE
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    lines = _lines(text)
    frames = _frames(lines, begin_re, end_re)
    if not any(e is not None for _, e in frames) or all(e is not None for _, e in frames):
        return []
    offsets, size = _marker_offsets(raw, begin_re)
    whole, out, seen = set(), [], set()  # seen: each cut run named once
    for k, (b, e) in enumerate(frames):
        stop = e if e is not None else (frames[k + 1][0] if k + 1 < len(frames) else len(lines))
        rid = _first_run_id(lines[b + 1:stop])
        if e is not None:
            whole.add(rid)
            continue
        # The k-th BEGIN line is the k-th marker of the raw log unless an
        # escape sequence split one; then the offset is not known.
        at = (offsets[k + 1] if k + 1 < len(offsets) else size) \
            if len(offsets) == len(frames) else None
        out.append((rid, at))
    return [(rid, at) for rid, at in out
            if rid is None or not (rid in whole or rid in seen or seen.add(rid))]


def cut_text(run_id, at):
    """What a caller says of one of cut_runs()."""
    where = "at byte %d" % at if at is not None else "before its END marker"
    if run_id is None:
        return "a report cut short %s (END marker missing, its run_id " \
            "unreadable): not counted" % where
    return "the report of run %s, cut short %s (END marker missing): not " \
        "counted" % (cap(run_id, 80), where)


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
    for the framed report (the last one: load_reports_file gives all).  The
    file is read through cptools.inputs: a regular file, size-capped.

    how: a dict that, on success, gets "verified": "crc32" for a framed
    report whose length and CRC-32 checked out, "unverified" for a bare
    JSON object (nothing vouches that it is what a probe wrote: an edited
    .json reads as well as the original), so that every output can say so.
    """
    # Several copies: the last, verified as is (extract_report's rule).
    return _told(load_reports_file(path)[-1], how)


def _told(found, how):
    """(report, reason) of one (report, reason, meta), and how it was
    verified into how: a framed copy has its meta, a bare JSON object none."""
    report, err, meta = found
    if report is not None and how is not None:
        how["verified"] = "unverified" if meta is None else "crc32"
    return report, err


def load_reports_file(path):
    """Every report in a file: [(report, reason, meta)], as extract_reports
    gives them for a log; a JSON file is one report (meta None)."""
    try:
        raw = inputs.read_file(path)
    except inputs.InputError as e:
        return [(None, str(e), None)]
    return reports_from_bytes(raw)


def load_report_bytes(raw, how=None):
    """load_report_file() on bytes already read (a file, stdin)."""
    return _told(reports_from_bytes(raw)[-1], how)


def reports_from_bytes(raw):
    """load_reports_file on a file's bytes (or text) already read."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            obj = inputs.loads(stripped)
        except inputs.InputError as e:
            if "CLOCKPROBE REPORT" not in text:
                return [(None, str(e), None)]
        else:
            if isinstance(obj, dict):
                return [(obj, None, None)]
            if "CLOCKPROBE REPORT" not in text:
                return [(None, "JSON is not an object, so not a "
                         "clockprobe report", None)]
    return extract_reports(text)


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
    found, kind = load_any_reports_file(path)
    report, err = _told(found[-1], how)
    return report, kind, err


def load_any_reports_file(path):
    """([(report, reason, meta)], kind): every report of the file, of the
    kind load_any_report_file tells (read through cptools.inputs)."""
    try:
        raw = inputs.read_file(path)
    except inputs.InputError as e:
        return [(None, str(e), None)], "probe"
    return any_reports_from_bytes(raw)


def any_reports_from_bytes(raw):
    """load_any_reports_file on a file's bytes already read."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("{"):
        try:
            obj = inputs.loads(stripped)
        except inputs.InputError:
            obj = None
        if isinstance(obj, dict):   # as load_report_file takes it
            return [(obj, None, None)], \
                "guest" if is_guest_report(obj) else "probe"
    if "CLOCKPROBE GUEST BEGIN" in text and not BEGIN_RE.search(text):
        return extract_reports(text, begin_re=GUEST_BEGIN_RE,
                               end_re=GUEST_END_RE,
                               what="guest report"), "guest"
    return reports_from_bytes(text), "probe"
