"""A short path language that addresses one field of a report.

    sources[hpet].status   drift[tsc/hpet].ppm   cross_cpu.per_cpu[2]

Matrix expectations, scripts/compare and the tests all name report fields
this way, so a path written in tests/matrix.conf means the same thing
everywhere.  The syntax is documented on get_path().
"""

import re

_MISSING = object()
_SEG_RE = re.compile(r"([^.\[\]]+)((?:\[[^\]]*\])*)")
KEY_FIELDS = ("name", "code", "signature", "leaf")


def split_path(path):
    """Split "a.b[x].c[0]" into [("a", []), ("b", ["x"]), ("c", ["0"])]."""
    parts = []
    for seg in path.split("."):
        m = _SEG_RE.fullmatch(seg)
        if not m:
            raise ValueError("bad path segment %r in %r" % (seg, path))
        keys = re.findall(r"\[([^\]]*)\]", m.group(2))
        parts.append((m.group(1), keys))
    return parts


def _select(array, key):
    """Pick an array entry by key (see get_path)."""
    if re.fullmatch(r"-?\d+", key):
        i = int(key)
        return array[i] if -len(array) <= i < len(array) else _MISSING
    if "=" in key:
        field, _, want = key.partition("=")
        for e in array:
            if isinstance(e, dict) and str(e.get(field)) == want:
                return e
        return _MISSING
    if "/" in key:
        a, _, b = key.partition("/")
        for e in array:
            if isinstance(e, dict) and e.get("a") == a and e.get("b") == b:
                return e
        return _MISSING
    for e in array:
        if isinstance(e, dict) and any(e.get(f) == key for f in KEY_FIELDS):
            return e
    for e in array:  # plain lists of strings, e.g. acpi.tables
        if e == key:
            return e
    return _MISSING


def get_path(report, path, default=None):
    """Look up a field by path; return `default` when any step is missing.

    Syntax: dot-separated object keys; [KEY] after a key selects an array
    entry:
      sources[hpet].status          entry whose "name" is hpet
      verdict.warnings[ACPI_PM_FALLBACK].severity
                                    entry whose "code" is ACPI_PM_FALLBACK
                                    (lookup order: name, code, signature,
                                    leaf)
      drift[tsc/hpet].ppm           entry with a == "tsc" and b == "hpet"
      cross_cpu.per_cpu[2]          by index (negative counts from the end)
      platform.hypervisor.signatures[leaf=1073742080].name
                                    explicit FIELD=VALUE (compared as text)
      platform.acpi.tables[HPET]    the entry whose "signature" is HPET (or
                                    a plain string member of a list)
    A bare array (no [KEY]) is returned as a list; "len(...)" is not part of
    the syntax -- use count() in the matrix for that.
    """
    value = get_path_or_missing(report, path)
    return default if value is _MISSING else value


def has_path(report, path):
    return get_path_or_missing(report, path) is not _MISSING


_SPLIT_CACHE = {}


def _split_cached(path):
    """split_path's answer, kept: a fleet asks the same few dozen paths of
    every report (a split is a regex pass; a lookup is not)."""
    parts = _SPLIT_CACHE.get(path)
    if parts is None:
        parts = tuple((k, tuple(sel)) for k, sel in split_path(path))
        if len(_SPLIT_CACHE) < 4096:
            _SPLIT_CACHE[path] = parts
    return parts


def get_path_or_missing(report, path):
    cur = report
    for key, selectors in _split_cached(path):
        if not isinstance(cur, dict) or key not in cur:
            return _MISSING
        cur = cur[key]
        for sel in selectors:
            if not isinstance(cur, list):
                return _MISSING
            cur = _select(cur, sel)
            if cur is _MISSING:
                return _MISSING
    return cur


MISSING = _MISSING


# Entries by name in O(1).  compare's table (cptools/fields.py) asks for
# every source (and drift pair) of every report once per row: a linear
# get_path per ask made a report with 20,000 sources take minutes.  An index per report list, built on first use:
# the first entry whose name (or code, signature, leaf; query.KEY_FIELDS)
# is the key, as query's [key] picks it.  Held with the list itself, so a
# list freed and another allocated at its address can never hit.
_INDEX = {}


def _index(report, key, names):
    lst = report.get(key) if isinstance(report, dict) else None
    if not isinstance(lst, list):
        return {}
    hit = _INDEX.get((id(lst), key))
    if hit is not None and hit[0] is lst and hit[1] == len(lst):
        return hit[2]
    idx = {}
    for e in lst:
        if isinstance(e, dict):
            for n in names(e):
                idx.setdefault(n, e)
    _INDEX[(id(lst), key)] = (lst, len(lst), idx)
    return idx


def _source_keys(e):
    return [v for v in (e.get(f) for f in KEY_FIELDS)
            if isinstance(v, str)]


def _drift_key(e):
    a, b = e.get("a"), e.get("b")
    return ["%s/%s" % (a, b)] if isinstance(a, str) and \
        isinstance(b, str) else []


def source_entry(report, name):
    """sources[name] of a report (None when it has none)."""
    return _index(report, "sources", _source_keys).get(name)


def drift_entry(report, pair):
    """drift[a/b] of a report (None when it has none)."""
    return _index(report, "drift", _drift_key).get(pair)


def clear_index():
    """Forget the indexes (compare builds a table: only its reports)."""
    _INDEX.clear()


# The names compare's table (cptools/fields.py) has rows for.

def _list_of(r, key):
    v = r.get(key) if isinstance(r, dict) else None
    return v if isinstance(v, list) else []


def source_names(reports):
    """Every source name the reports list (strings only), first seen
    first."""
    names = {}
    for r in reports:
        for s in _list_of(r, "sources"):
            n = s.get("name") if isinstance(s, dict) else None
            if isinstance(n, str) and n:
                names.setdefault(n, None)
    return list(names)


def drift_pairs(reports):
    pairs = {}
    for r in reports:
        for d in _list_of(r, "drift"):
            if isinstance(d, dict) and isinstance(d.get("a"), str) and \
                    isinstance(d.get("b"), str) and d["a"] and d["b"]:
                pairs.setdefault("%s/%s" % (d["a"], d["b"]), None)
    return list(pairs)
