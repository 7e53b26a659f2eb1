"""The tidy long format of a report: one row per scalar, named
(section, name, field) so that section[name].field is a path that
cptools.query resolves on the report again (see cptools/fleet.py's
docstring for the rules and examples).  flatten() is what a fleet of
100,000 reports spends its load time in, so it walks each report once
with no helper call per value; long_rows() adds run id, label and unit.
"""

import functools
import hashlib
import json
import math
import re

from . import query
from .untrusted import TEXT_CAP, cap

SKIP_SECTIONS = ("raw",)
# Watch records (cptools/watchlog.py) in the long format: name = seq.
WATCH_SECTION = "watch_records"
LONG_COLUMNS = ("run_id", "label", "section", "name", "field", "value",
                "unit")


@functools.lru_cache(maxsize=4096)
def unit_for(segments):
    """The unit of a field from its path segments (a tuple)."""
    for seg in reversed(segments):
        s = seg.lower()
        if s == "ns" or s.endswith("_ns"):
            return "ns"
        if s == "cycles" or s.endswith("_cycles"):
            return "tsc_ticks"
        if s == "hz" or s.endswith("_hz"):
            return "Hz"
        if s == "ppm" or s.endswith("_ppm"):
            return "ppm"
        if s.endswith("_ms"):
            return "ms"
        if s.endswith("_us"):
            return "us"
        if s.endswith("_s"):
            return "s"
        if s == "bytes" or s.endswith("_bytes"):
            return "bytes"
    return ""


def _entry_key(e):
    if not isinstance(e, dict):
        return None
    if e.get("a") is not None and e.get("b") is not None:
        return "%s/%s" % (e["a"], e["b"])
    for k in query.KEY_FIELDS:
        v = e.get(k)
        if isinstance(v, (str, int)) and not isinstance(v, bool) and \
                str(v) != "":
            return str(v)
    return None


def _keyed_names(entries):
    keys = [_entry_key(e) for e in entries]
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    out = []
    for i, k in enumerate(keys):
        # query's [key] picks the first match: a repeated key (two SSDTs)
        # is addressed by index so that the path finds this very entry.
        # (A dict of first places: keys.index() per entry was quadratic
        # in a hostile report's list of 100,000 tables.)
        unique = k is not None and first[k] == i and \
            "]" not in k and "." not in k
        out.append(k if unique else str(i))
    return out


def _list_names(values):
    if any(isinstance(e, dict) for e in values):
        return _keyed_names(values)
    return [str(i) for i in range(len(values))]


_INDEX_RE = re.compile(r"\[[^\]]*\]")


def unit_of(section, field):
    """unit_for over the names of section and field, list keys left out
    (cached on the path without them: a fleet repeats the same few
    hundred fields, a list of 100,000 tables the same few)."""
    return _unit_of_path(_INDEX_RE.sub("", section + "." + field))


@functools.lru_cache(maxsize=8192)
def _unit_of_path(p):
    return unit_for(tuple(x for x in p.split(".") if x))


def flatten(report, watch=()):
    """Every scalar of a report as two parallel lists: keys, one
    (section, name, field) per value, and the values, in report order.

    A list of objects directly under the report or one level down becomes
    the section (sources, drift, verdict.warnings, platform.acpi.tables),
    its entries the names; anything deeper stays in the field path.  Watch
    records (seq, record) come last as section watch_records, name = seq.
    Strings are capped; None is left out.  One walk, no recursion through
    helpers per value: a fleet of 100,000 reports spends its load time
    here (about 540 values a report)."""
    keys, vals = [], []
    add_key, add_val = keys.append, vals.append
    dict_, list_, str_ = dict, list, str
    limit = TEXT_CAP

    def walk(section, name, field, value):
        if type(value) is dict_:
            pre = field + "." if field else ""
            for k, v in value.items():
                if v is None:
                    continue
                t = type(v)
                if t is dict_ or t is list_:
                    walk(section, name, pre + k, v)
                else:
                    add_key((section, name, pre + k))
                    add_val(v if t is not str_ or len(v) <= limit
                            else cap(v))
        elif type(value) is list_:
            if not any(type(v) is dict_ or type(v) is list_ for v in value):
                # A list of scalars (histogram bins, release names): named
                # by index, no helper per entry.
                for i, v in enumerate(value):
                    if v is not None:
                        add_key((section, name, "%s[%d]" % (field, i)))
                        add_val(v if type(v) is not str_ or len(v) <= limit
                                else cap(v))
                return
            for nm, v in zip(_list_names(value), value):
                if v is None:
                    continue
                f = "%s[%s]" % (field, nm)
                t = type(v)
                if t is dict_ or t is list_:
                    walk(section, name, f, v)
                else:
                    add_key((section, name, f))
                    add_val(v if t is not str_ or len(v) <= limit
                            else cap(v))
        elif value is not None:
            add_key((section, name, field))
            add_val(cap(value) if isinstance(value, str) else value)

    for section, value in report.items():
        if section in SKIP_SECTIONS:
            continue
        if isinstance(value, list):
            for nm, v in zip(_list_names(value), value):
                walk(section, nm, "", v)
        elif isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, list) and any(isinstance(e, dict)
                                               for e in v):
                    sec = section + "." + k
                    for nm, e in zip(_keyed_names(v), v):
                        walk(sec, nm, "", e)
                else:
                    walk(section, "", k, v)
        else:
            walk(section, "", "", value)
    for seq, rec in watch:
        walk(WATCH_SECTION, str(seq), "", rec)
    return keys, vals


def long_rows(run):
    """The long-format rows of one run, in report order:
    (run_id, label, section, name, field, value, unit); see flatten()."""
    rid, lab = run.run_id, run.label
    keys, vals = flatten(run.report, run.watch)
    return [(rid, lab, s, n, f, v, unit_of(s, f))
            for (s, n, f), v in zip(keys, vals)]


# An integer past 64 bits is a number token of 19 digits or more, right
# after the array's "[" or a ",": with every digit of the text made a "9",
# one of _LONG_TOKENS is in it only if some token (or a string holding
# such text) is that long, and only then do the values take the exact
# check below.  (A regex search for them took longer than json.dumps
# itself on a report's array of digits; translate and `in` run in C.)
_DIGITS_TO_9 = str.maketrans("0123456789", "9" * 10)
_LONG_TOKENS = tuple(p + "9" * 19 for p in ("[", ",", "[-", ",-"))


def _long_token(text):
    t = text.translate(_DIGITS_TO_9)
    return any(tok in t for tok in _LONG_TOKENS)


def values_json(vals, text_of=str):
    """flatten()'s values as one compact JSON array: NaN/Infinity as null
    (JSON has none), an integer past 64 bits as its decimal text (a
    database reads a JSON number as a 64-bit integer or a lossy real)."""
    try:
        text = json.dumps(vals, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return values_json([None if isinstance(v, float) and
                            not math.isfinite(v) else v for v in vals],
                           text_of)
    except TypeError:
        return values_json([text_of(v) if not isinstance(
            v, (int, float, str, bool)) else v for v in vals], text_of)
    if _long_token(text) and any(
            type(v) is int and not -2 ** 63 <= v < 2 ** 63 for v in vals):
        return values_json([str(v) if type(v) is int and
                            not -2 ** 63 <= v < 2 ** 63 else v
                            for v in vals], text_of)
    return text


def flat_digest(layout_id, vals_text, report):
    """A report's identity from what flatten() made of it (its layout and
    its values as JSON) and the sections flatten leaves out (raw), hashed
    with BLAKE2b (128 bits: 100,000 reports cannot share one by chance,
    where a CRC-32 would, likely): equal for the .log and .json copy of a
    report, different for two reports any stored value tells apart."""
    h = hashlib.blake2b(digest_size=16)
    h.update(layout_id.encode("ascii", "replace"))
    h.update(b"\x1e")
    h.update(vals_text.encode("utf-8", "replace"))
    for s in SKIP_SECTIONS:
        if s in report:
            h.update(b"\x1e")
            h.update(json.dumps(report[s], sort_keys=True,
                                separators=(",", ":")).encode(
                                    "utf-8", "replace"))
    return "b2:" + h.hexdigest()
