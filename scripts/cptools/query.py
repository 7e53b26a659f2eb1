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
