"""Find and verify watch-mode records in serial logs (issue 14).

Each interval of a watch run emits one framed record:

    ==== CLOCKPROBE WATCH BEGIN schema=1 seq=<n> ====
    <one-line JSON>
    ==== CLOCKPROBE WATCH END crc32=<hex> bytes=<N> ====

with the same CRC-32 / byte-count rules as the report frame (frame.py).
Records must survive the VM dying or moving: a run migrated to another QEMU
continues in the destination's log, so records are gathered from several
logs and checked together: every one verifies, seq runs from 1 without
gaps, and every record carries the same run_id.
"""

import json
import re
import zlib

from .frame import _lines

BEGIN_RE = re.compile(r"==== CLOCKPROBE WATCH BEGIN schema=(\d+) seq=(\d+) ====")
END_RE = re.compile(
    r"==== CLOCKPROBE WATCH END crc32=([0-9A-Fa-f]{8}) bytes=(\d+) ====")


def scan(text, origin="log"):
    """Every WATCH frame in one log, in order.

    Returns a list of dicts: {seq, origin, line, record (dict or None),
    error (None or why it does not verify)}.  A BEGIN without its END
    before the next BEGIN (or the end of the log) is "truncated".
    """
    lines = _lines(text)
    out = []
    i = 0
    while i < len(lines):
        m = BEGIN_RE.search(lines[i])
        if not m:
            i += 1
            continue
        seq = int(m.group(2))
        entry = {"seq": seq, "origin": origin, "line": i + 1,
                 "record": None, "error": None}
        body, j = [], i + 1
        end = None
        while j < len(lines):
            if BEGIN_RE.search(lines[j]):
                break
            e = END_RE.search(lines[j])
            if e:
                end = e
                break
            if lines[j].strip():
                body.append(lines[j].strip())
            j += 1
        if end is None:
            entry["error"] = "truncated: END marker missing"
        elif len(body) != 1:
            entry["error"] = "malformed: %d lines between the markers" % len(body)
        else:
            entry["error"], entry["record"] = _verify(body[0], end, seq)
        out.append(entry)
        i = j + (1 if end is not None else 0)
    return out


def _verify(line, end, seq):
    data = line.encode("utf-8")
    want_crc, want_len = int(end.group(1), 16), int(end.group(2))
    if len(data) != want_len:
        return ("length mismatch: END says %d bytes, JSON has %d"
                % (want_len, len(data))), None
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if crc != want_crc:
        return "CRC mismatch: END says %08x, JSON gives %08x" % (want_crc, crc), None
    try:
        rec = json.loads(line)
    except ValueError as e:
        return "JSON does not parse: %s" % e, None
    if not isinstance(rec, dict):
        return "JSON is not an object", None
    if rec.get("seq") != seq:
        return "seq mismatch: marker %d, JSON %r" % (seq, rec.get("seq")), None
    return None, rec


def check(entries):
    """Judge the records of one run gathered from one or more logs.

    Returns {records: [good records by seq], damaged: [entries],
    missing: [seq...], duplicates: [seq...], run_ids: [...], ok: bool}.
    A seq seen twice (the same record in two logs) counts once if the
    copies are identical.
    """
    good, damaged, dup = {}, [], []
    for e in entries:
        if e["error"]:
            damaged.append(e)
            continue
        s = e["seq"]
        if s in good:
            if good[s] != e["record"]:
                dup.append(s)
            continue
        good[s] = e["record"]
    damaged_seqs = {e["seq"] for e in damaged}
    top = max(list(good) + list(damaged_seqs) + [0])
    missing = [s for s in range(1, top + 1) if s not in good]
    run_ids = sorted({r.get("run_id") for r in good.values()}, key=str)
    ok = bool(good) and not missing and not dup and len(run_ids) == 1
    return {"records": [good[s] for s in sorted(good)], "damaged": damaged,
            "missing": missing, "duplicates": dup, "run_ids": run_ids,
            "ok": ok}


def load(paths):
    """scan() every log file, in the order given."""
    entries = []
    for p in paths:
        with open(p, "rb") as f:
            entries += scan(f.read().decode("utf-8", "replace"), origin=p)
    return entries


def offset_series(records):
    """{against: [(elapsed_s, cumulative_offset_ns), ...]} over the records.

    Time is wall time (elapsed_rtc_s) where the record has it, else the
    TSC's own elapsed time."""
    series = {}
    for r in records:
        t = r.get("elapsed_rtc_s")
        if t is None:
            t = r.get("elapsed_tsc_s")
        for o in r.get("offsets") or []:
            series.setdefault(o.get("against"), []).append(
                (float(t or 0), float(o.get("cumulative_ns") or 0)))
    return series
