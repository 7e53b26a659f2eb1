"""scripts/matrix --merge: reading the shards' results.json as one run.

A shard folder is a CI artifact, so its results.json and row files are
untrusted input: read through cptools.inputs (a regular file, size and
JSON limits), every record checked for the fields and types the outputs
(cptools/matrixout.py) read, every row name held to the matrix's own row
names (matrixconf.NAME_RE) so that <name>.log and <name>.json are copied
from the shard into OUT and nowhere else, and only regular files copied.
"""

import os

from . import inputs, shapecheck
from .matrixconf import NAME_RE
from .matrixout import RESULTS, RESULTS_SCHEMA, MergeError


_STATUSES = ("passed", "failed", "error", "skipped")
# Record field -> the types a shard's results.json may give it (what the
# writers below read); None allows null.
_RECORD = {"order": (int,), "name": (str,), "describe": (str,),
           "classname": (str,), "status": (str,), "details": (list,),
           "seconds": (int, float), "exit_desc": (str,), "checks": (int,),
           "log": (str, None), "verdict": (dict, None), "costs": (dict,),
           # issue 29's kernel set; absent in a record from before it
           "by_kernel": (list, None), "headline": (str, None)}


# The nested members a record's readers use (matrixout's texts, JUnit
# properties, TAP, --fail-on), as a schema for cptools/shapecheck.py.
_NESTED = {"type": "object", "properties": {
    "verdict": {"type": ["object", "null"], "required": ["warnings"],
                "properties": {
                    "linux_clocksource": {"type": ["string", "null"]},
                    "vdso": {"type": ["boolean", "null"]},
                    "predicted_read_ns": {"type": ["number", "null"]},
                    "confidence": {"type": ["string", "null"]},
                    "warnings": {"type": "array", "items": {
                        "type": "object", "required": ["code", "severity"],
                        "properties": {"code": {"type": "string"},
                                       "severity": {"type": "string"}}}}}},
    "costs": {"type": "object", "additionalProperties": {"type": "number"}},
    "by_kernel": {"type": ["array", "null"], "items": {"type": "object"}}}}


def _check_record(r, where):
    """A shard's record is untrusted (a CI artifact): every field the
    outputs read has its type, and the name is a matrix row name, so that
    --merge copies <name>.log and <name>.json from the shard into OUT and
    nowhere else ("../../x" is refused, not joined)."""
    if not isinstance(r, dict):
        raise MergeError("%s: a row is not an object" % where)
    for key, types in _RECORD.items():
        v = r.get(key)
        ok = (v is None and None in types) or (
            v is not None and not isinstance(v, bool) and
            isinstance(v, tuple(t for t in types if t is not None)))
        if not ok:
            raise MergeError("%s: row %s: %s is %s" % (
                where, _shown(r.get("name")), key,
                "missing" if key not in r else "of the wrong type"))
    if not NAME_RE.match(r["name"]) or len(r["name"]) > 200:
        raise MergeError("%s: row name %s is not a matrix row name (letters, "
                         "digits, . _ + -): refused, nothing is copied "
                         "outside OUT" % (where, _shown(r["name"])))
    if r["log"] not in (None, r["name"] + ".log"):
        raise MergeError("%s: row %s: log %s is not the row's own"
                         % (where, r["name"], _shown(r["log"])))
    bad = shapecheck.problems({k: r[k] for k in _NESTED["properties"]
                               if k in r}, _NESTED, limit=2)
    if bad:
        raise MergeError("%s: row %s: %s" % (where, r["name"],
                                             "; ".join(bad)))
    if r["status"] not in _STATUSES or \
            not all(isinstance(d, str) for d in r["details"]):
        raise MergeError("%s: row %s: bad status or details"
                         % (where, r["name"]))


def _shown(v):
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def read_merged(dirs):
    """The records of several shard folders as one run, in row order.

    Refuses shards of different selections, the same row twice, and a set
    of shards that leaves rows out (a lost shard must not pass as green);
    and a results.json that is not a regular file, is beyond the loader's
    limits (cptools.inputs) or has a record the outputs cannot read."""
    records, totals = [], set()
    for d in dirs:
        p = os.path.join(d, RESULTS)
        try:
            data = inputs.loads(inputs.read_text(p))
        except inputs.InputError as e:
            raise MergeError("%s: %s" % (p, e))
        if not isinstance(data, dict):
            raise MergeError("%s: not a results object" % p)
        if data.get("schema") != RESULTS_SCHEMA:
            raise MergeError("%s: unknown schema %s" % (
                p, _shown(data.get("schema"))))
        total = data.get("rows_total")
        if not isinstance(total, int) or isinstance(total, bool) or \
                not 0 <= total <= 100000:
            raise MergeError("%s: rows_total %s is not a row count"
                             % (p, _shown(total)))
        totals.add(total)
        rows = data.get("rows")
        if not isinstance(rows, list):
            raise MergeError("%s: rows is not a list" % p)
        for r in rows:
            _check_record(r, p)
            if not 0 <= r["order"] < total:
                raise MergeError("%s: row %s: order %d outside 0..%d"
                                 % (p, r["name"], r["order"], total - 1))
            r["_dir"] = d
            records.append(r)
    if len(totals) != 1:
        raise MergeError("shards come from different selections (row "
                         "counts %s)" % sorted(totals, key=str))
    total = totals.pop()
    seen = {}
    for r in records:
        if r["order"] in seen:
            raise MergeError("row %s is in both %s and %s" % (
                r["name"], seen[r["order"]]["_dir"], r["_dir"]))
        seen[r["order"]] = r
    missing = sorted(set(range(total)) - set(seen))
    if missing:
        raise MergeError("the shards cover %d of %d rows; missing row "
                         "numbers %s" % (len(seen), total,
                                         ", ".join(str(i + 1)
                                                   for i in missing)))
    return sorted(records, key=lambda r: r["order"])


def copy_row_file(src_dir, out_dir, name):
    """Copy a shard's row file into OUT: a regular file only (a link or
    FIFO in a shard is refused, not followed), at most the loader's file
    size; name is a checked row name plus its extension."""
    src = os.path.join(src_dir, name)
    try:
        st = os.lstat(src)
    except FileNotFoundError:
        return False
    except OSError as e:
        raise MergeError("%s: %s" % (src, e.strerror))
    if not os.path.isfile(src) or os.path.islink(src):
        raise MergeError("%s: %s, not copied" % (src, "a symbolic link"
                         if os.path.islink(src) else "not a regular file (%s)"
                         % inputs.file_kind(st.st_mode)))
    try:
        data = inputs.read_file(src)
    except inputs.InputError as e:
        raise MergeError("%s: %s" % (src, e))
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)
    return True
