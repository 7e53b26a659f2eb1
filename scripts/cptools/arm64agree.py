"""The arm64 verdict held to real Debian arm64 kernels (issue 37): the one
place that says whether a verdict.arm64 agrees with what a kernel did.

tests/linux/expected-arm64.json records, per arm64 row of tests/matrix.conf
and kernel (6.1, 6.12), the clocksource that kernel chose and whether its
clock_gettime() stayed in the vDSO.  A verdict agrees with such a boot when
its by_kernel[] entry covering that kernel names the same clocksource and
the same vdso.  scripts/matrix holds every aarch64 row's probe report to
the row's recorded boots; tests/integration/test_arm64_efi.py does it for
its own boot; tests/integration/test_linux_arm64.py for verdicts judged
from the recorded guests' own facts.
"""

import json
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
RECORDED = os.path.join(REPO, "tests", "linux", "expected-arm64.json")

_cache = {}


def version(name):
    """(6, 12) from "6.12", "6.12-deb13" or "4.19": the leading numbers,
    as verdict.arm64.by_kernel's from/to and the kernels' names read."""
    m = re.match(r"\d+(?:\.\d+)*", str(name))
    if not m:
        raise ValueError("not a kernel version: %r" % (name,))
    return tuple(int(x) for x in m.group(0).split("."))


def load_recorded(path=RECORDED):
    """The recorded boots (a list of dicts); [] where the file is not
    there (an installed copy has no tests/)."""
    if path not in _cache:
        try:
            with open(path) as f:
                _cache[path] = json.load(f).get("boots") or []
        except FileNotFoundError:
            _cache[path] = []
    return _cache[path]


def recorded_for(row_name, boots=None):
    """The recorded boots of one row, in file order."""
    boots = load_recorded() if boots is None else boots
    return [b for b in boots if b.get("row") == row_name]


def entry_for(varm64, kernel):
    """The by_kernel entry of verdict.arm64 whose from..to covers kernel
    (to null: that release and every later one), or None."""
    want = version(kernel)
    entries = varm64.get("by_kernel") if isinstance(varm64, dict) else None
    for e in entries if isinstance(entries, list) else []:
        # A report is untrusted: an entry without a readable range
        # covers nothing (the kernel then has no entry, by name).
        try:
            lo = version(e["from"])
            hi = None if e.get("to") is None else version(e["to"])
        except (TypeError, KeyError, AttributeError, ValueError):
            continue
        if lo <= want and (hi is None or want <= hi):
            return e
    return None


def disagreements(varm64, boots):
    """Where verdict.arm64 and the recorded boots part: one line per
    difference, naming the row and kernel; [] when every boot agrees."""
    out = []
    for b in boots:
        where = "%s on %s" % (b.get("kernel"), b.get("row"))
        e = entry_for(varm64, b["kernel"])
        if e is None:
            out.append("verdict.arm64.by_kernel has no entry for Linux %s"
                       % where)
            continue
        for field, seen in (("linux_clocksource", b.get("current")),
                            ("vdso", b.get("in_vdso"))):
            if e.get(field) != seen:
                out.append("verdict.arm64.by_kernel[%s..%s].%s is %s, Linux "
                           "%s had %s" % (e.get("from"), e.get("to") or "",
                                          field, json.dumps(e.get(field)),
                                          where, json.dumps(seen)))
    return out


def report_disagreements(report, row_name, boots=None):
    """(how many recorded boots were compared, disagreements) for one
    probe report booted on the row row_name."""
    rec = recorded_for(row_name, boots)
    varm64 = ((report or {}).get("verdict") or {}).get("arm64")
    if varm64 is None:
        return len(rec), ["the report has no verdict.arm64"] if rec else []
    return len(rec), disagreements(varm64, rec)
