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

Logs are untrusted (cptools.inputs): a seq= beyond MAX_SEQ (more than the
probe can write) is a damaged frame, not a range to walk; a record's JSON
is parsed within the loader's limits, and a record whose members the
tools read have the wrong type (offsets not a list, a number as text) is
damaged with the member named (shape_problem), so scripts/watch and the
fleet database agree on which records are sound and neither trips over
one.
"""

import re
import zlib

from . import inputs
from .frame import _lines

# watch= is at most 604,800 s and interval= at least 1 s (src/lib/settings.c)
MAX_SEQ = 1000000

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
        try:
            seq = inputs.parse_count(m.group(2), "seq", MAX_SEQ)
            bad_seq = None if seq >= 1 else "seq=0: records count from 1"
        except inputs.InputError as e:
            seq, bad_seq = 0, str(e)
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
        if bad_seq:
            entry["error"] = bad_seq
        elif end is None:
            entry["error"] = "truncated: END marker missing"
        elif len(body) != 1:
            entry["error"] = "malformed: %d lines between the markers" % len(body)
        else:
            entry["error"], entry["record"] = _verify(body[0], end, seq)
        out.append(entry)
        i = j + (1 if end is not None else 0)
    return out


def _verify(line, end, seq):
    try:
        want_len = inputs.parse_count(end.group(2), "bytes",
                                      inputs.MAX_JSON_BYTES)
    except inputs.InputError as e:
        return "malformed marker: %s" % e, None
    data = line.encode("utf-8")
    want_crc = int(end.group(1), 16)
    if len(data) != want_len:
        return ("length mismatch: END says %d bytes, JSON has %d"
                % (want_len, len(data))), None
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if crc != want_crc:
        return "CRC mismatch: END says %08x, JSON gives %08x" % (want_crc, crc), None
    try:
        rec = inputs.loads(line)
    except inputs.InputError as e:
        return str(e), None
    if not isinstance(rec, dict):
        return "JSON is not an object", None
    if rec.get("seq") != seq:
        return "seq mismatch: marker %d, JSON %s" % (
            seq, _short(rec.get("seq"))), None
    problem = shape_problem(rec)
    if problem:
        return "wrong type: %s" % problem, None
    return None, rec


def _short(v):
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


_NUM = (int, float)
_TYPE_NAMES = {dict: "an object", list: "a list", str: "a string",
               bool: "a boolean", int: "a number", float: "a number",
               type(None): "null"}
# The members scripts/watch and offset_series() read, with the types the
# record format (docs/watch-mode.md) gives them; None: may be null.
_SHAPE = {"run_id": (str, None), "elapsed_tsc_s": (_NUM, None),
          "elapsed_rtc_s": (_NUM, None), "events_total": (int, None),
          "offsets": (list, None), "events": (list, None),
          "watchdog_replay": (dict, None)}
_OFFSET = {"against": (str, None), "cumulative_ns": (_NUM, None),
           "drift_ppm": (_NUM, None), "uncertainty_ppm": (_NUM, None)}
_EVENT = {"type": (str, None), "at_s": (_NUM, None),
          "duration_s": (_NUM, None)}
_REPLAY = {"summary": (str, None), "runs": (list, None)}
_REPLAY_RUN = {"checks": (int, None), "skipped_long_interval": (int, None),
               "skipped_readback": (int, None), "unstable_at_s": (_NUM, None)}


def _check(obj, shape, where):
    for key, (want, _) in shape.items():
        v = obj.get(key)
        if v is None:
            continue
        ok = isinstance(v, want) and not isinstance(v, bool)
        if not ok:
            names = want if isinstance(want, tuple) else (want,)
            return "%s%s is %s, not %s" % (where, key, _TYPE_NAMES.get(
                type(v), type(v).__name__), _TYPE_NAMES[names[0]])
    return None


def _each(items, shape, where):
    for k, e in enumerate(items or []):
        if not isinstance(e, dict):
            return "%s[%d] is %s, not an object" % (
                where, k, _TYPE_NAMES.get(type(e), type(e).__name__))
        p = _check(e, shape, "%s[%d]." % (where, k))
        if p:
            return p
    return None


def shape_problem(rec):
    """None, or which member of a record has a type the tools cannot read
    ("offsets is a number, not a list")."""
    wd = rec.get("watchdog_replay")
    return (_check(rec, _SHAPE, "")
            or _each(rec.get("offsets"), _OFFSET, "offsets")
            or _each(rec.get("events"), _EVENT, "events")
            or _check(wd or {}, _REPLAY, "watchdog_replay.")
            or _each((wd or {}).get("runs"), _REPLAY_RUN,
                     "watchdog_replay.runs"))


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
    # seq is 1..MAX_SEQ here (scan): the walk below is bounded.
    damaged_seqs = {e["seq"] for e in damaged if e["seq"] >= 1}
    top = max(list(good) + list(damaged_seqs) + [0])
    missing = [s for s in range(1, top + 1) if s not in good]
    run_ids = sorted({r.get("run_id") for r in good.values()}, key=str)
    # A frame whose seq is impossible (0, beyond MAX_SEQ) names no record
    # to miss, but the log is damaged all the same.
    ok = bool(good) and not missing and not dup and len(run_ids) == 1 \
        and all(e["seq"] >= 1 for e in damaged)
    return {"records": [good[s] for s in sorted(good)], "damaged": damaged,
            "missing": missing, "duplicates": dup, "run_ids": run_ids,
            "ok": ok}


def load(paths):
    """scan() every log file, in the order given (read through
    cptools.inputs: regular files only, size-capped; inputs.InputError
    names a file that is not)."""
    entries = []
    for p in paths:
        try:
            text = inputs.read_text(p)
        except inputs.InputError as e:
            raise inputs.InputError("%s: %s" % (p, e))
        entries += scan(text, origin=p)
    return entries


def ranges(seqs, limit=20):
    """"1-4, 7, 9-12" for sorted numbers, at most `limit` ranges (then
    "... and N more"): a gap of a million records is one range."""
    out, start, prev = [], None, None
    for s in seqs:
        if start is not None and s == prev + 1:
            prev = s
            continue
        if start is not None:
            out.append((start, prev))
        start = prev = s
    if start is not None:
        out.append((start, prev))
    text = ", ".join("%d" % a if a == b else "%d-%d" % (a, b)
                     for a, b in out[:limit])
    if len(out) > limit:
        text += ", ... and %d more ranges" % (len(out) - limit)
    return text


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
