"""Watch records in a serial log (the probe's watch mode), for the fleet
database's time series.

After its report a watching probe writes one framed record per interval:

    ==== CLOCKPROBE WATCH BEGIN schema=1 seq=<n> ====
    <one-line JSON: seq, run_id, elapsed_tsc_s, elapsed_rtc_s, ...>
    ==== CLOCKPROBE WATCH END crc32=<hex> bytes=<N> ====

with the CRC-32 and byte count of the JSON line as for the report.  Each
record is verified on its own: a damaged one is named and skipped, the
others are kept.  Only the frame and the fields above are relied on; the
rest of a record is loaded as it is (long format).
"""

import json
import re
import zlib

from .frame import _lines

BEGIN_RE = re.compile(
    r"==== CLOCKPROBE WATCH BEGIN schema=(\d+) seq=(\d+) ====")
END_RE = re.compile(
    r"==== CLOCKPROBE WATCH END crc32=([0-9A-Fa-f]{8}) bytes=(\d+) ====")


def _check(body, end_line, seq):
    if len(body) != 1:
        return None, "expected one JSON line, found %d" % len(body)
    m = END_RE.search(end_line)
    data = body[0].strip().encode("utf-8")
    if len(data) != int(m.group(2)):
        return None, "length mismatch: END says %s bytes, line has %d" % (
            m.group(2), len(data))
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if crc != int(m.group(1), 16):
        return None, "CRC mismatch: END says %s, JSON bytes give %08x" % (
            m.group(1).lower(), crc)
    try:
        rec = json.loads(data)
    except ValueError as e:
        return None, "JSON does not parse: %s" % e
    if not isinstance(rec, dict):
        return None, "JSON is not an object"
    if rec.get("seq", seq) != seq:
        return None, "seq mismatch: marker says %d, JSON says %r" % (
            seq, rec.get("seq"))
    return rec, None


def extract_watch_records(text):
    """([(seq, record)], [(seq, reason)]) for every watch record in a log."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if "CLOCKPROBE WATCH BEGIN" not in text:
        return [], []
    lines = _lines(text)
    good, bad = [], []
    i = 0
    while i < len(lines):
        m = BEGIN_RE.search(lines[i])
        if not m:
            i += 1
            continue
        seq = int(m.group(2))
        body, j = [], i + 1
        while j < len(lines) and not END_RE.search(lines[j]) and \
                not BEGIN_RE.search(lines[j]):
            if lines[j].strip():
                body.append(lines[j])
            j += 1
        if j >= len(lines) or BEGIN_RE.search(lines[j]):
            bad.append((seq, "truncated: END marker missing"))
            i = j
            continue
        rec, why = _check(body, lines[j], seq)
        if rec is None:
            bad.append((seq, why))
        else:
            good.append((seq, rec))
        i = j + 1
    return good, bad
