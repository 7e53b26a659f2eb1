"""The A/B of two QEMU binaries: the same matrix rows booted on both
(scripts/matrix --qemu-ab PATH) and each row's two reports side by side
(scripts/compare --ab DIR) -- what a hypervisor developer runs before and
after a change to the device model.

A is the QEMU the matrix run selects anyway (--qemu PATH, $QEMU, else the
system's qemu-system-x86_64), B the one --qemu-ab names (the name qemu2
stands for the second QEMU, cptools.qemu2).  Each selected row runs once
on each, as the rows NAME@qemu-VERSION (the version `QEMU --version`
prints; -a/-b appended when both print the same), with the row's own
settings and expectations, so every output of the matrix (the logs and
reports, results.json, junit.xml, summary.md) holds both.  ab.json, next
to them, names the two binaries and their versions and, per row, its two
runs.

compare --ab reads ab.json and the two reports of each row (verified like
any input: a report that does not verify is rejected by name and its row
has no ratio), and shows per row, A beside B: the machine type each
report's SMBIOS names (the report's own word on which QEMU ran it), the
verdict, the yardsticks (empty harness, CPUID, the port reads) and every
clock source's read cost -- the interleaved estimate, in TSC ticks, the
figure that stays meaningful below the TSC's step -- with the ratio B/A;
a ratio at or over the threshold is marked **!!** and listed as a
regression (B costs that much more than A).  Then one table of the ratios,
a row per figure and a column per matrix row.  TCG figures are emulation
costs and move with host load: an A/B is read from several rows or
repeated runs, not from one figure.
"""

import json
import os

from . import fields, fleet, inputs, paths, query, untrusted
from .matrixconf import Row
from .untrusted import cap, md_code, md_text, show_controls

MANIFEST = "ab.json"
SCHEMA = 1
SIDES = ("a", "b")
DEFAULT_THRESHOLD = 2.0

# The yardsticks a read path is judged by, then the sources (their own
# names, in report order).
# The empty harness is not subtracted from itself: it has no estimate, and
# its batch mean stands for it.
YARDSTICKS = (
    ("harness (batch mean)", "baselines.harness_cycles.throughput"),
    ("cpuid", "baselines.cpuid_cycles.estimate_cycles"),
    ("unassigned port", "baselines.unassigned_port_cycles.estimate_cycles"),
    ("kernel port", "baselines.kernel_port_cycles.estimate_cycles"),
)


class AbError(Exception):
    pass


class Side:
    def __init__(self, key, binary, version, suffix):
        self.key = key
        self.binary = binary
        self.version = version
        self.suffix = suffix


def make_sides(a_binary, b_binary, version_of):
    """The two sides; version_of(binary) gives `QEMU --version`'s number."""
    va, vb = version_of(a_binary), version_of(b_binary)
    sa, sb = "@qemu-" + va, "@qemu-" + vb
    if sa == sb:
        sa, sb = sa + "-a", sb + "-b"
    return (Side("a", a_binary, va, sa), Side("b", b_binary, vb, sb))


def ab_rows(rows, sides):
    """Each row twice, A then B: the same settings and expectations, its
    name with the side's suffix, and the binary the side runs."""
    out = []
    for r in rows:
        for s in sides:
            c = Row(r.name + s.suffix, r.settings, r.expects)
            c.binary = s.binary
            c.ab_row, c.ab_side = r.name, s.key
            out.append(c)
    return out


def write_manifest(out_dir, sides, rows, status=None):
    """ab.json: the sides, and per row its two runs' names and, from
    status ({run name: passed | failed | error | skipped}), how each
    ended: a skipped run has no report, and that is no fault."""
    status = status or {}
    data = {
        "schema": SCHEMA,
        "sides": {s.key: {"qemu": s.binary, "version": s.version}
                  for s in sides},
        "rows": [dict({"row": r.name},
                      **{s.key: r.name + s.suffix for s in sides},
                      status={s.key: status.get(r.name + s.suffix)
                              for s in sides})
                 for r in rows],
    }
    path = os.path.join(out_dir, MANIFEST)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    return path


def read_manifest(folder):
    path = os.path.join(folder, MANIFEST)
    # A matrix folder may be a CI artifact: untrusted input, read through
    # cptools.inputs (a regular file, size and JSON limits).
    try:
        data = inputs.loads(inputs.read_text(path))
    except inputs.InputError as e:
        raise AbError("%s: %s (is %s the output of %s --qemu-ab?)"
                      % (path, e, folder, paths.tool("matrix")))
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise AbError("%s: unknown schema %s" % (path, md_text(repr(
            data.get("schema") if isinstance(data, dict) else data), 60)))
    sides = data.get("sides")
    rows = data.get("rows")
    if not isinstance(sides, dict) or set(sides) != set(SIDES) or \
            not all(isinstance(sides[k], dict) and all(
                isinstance(sides[k].get(f), str) for f in ("qemu", "version"))
                    for k in sides) or \
            not isinstance(rows, list) or not all(
                isinstance(r, dict) and all(isinstance(r.get(k), str)
                                            for k in ("row",) + SIDES)
                for r in rows):
        raise AbError("%s: not an A/B manifest (sides a and b, rows with "
                      "row, a and b)" % path)
    for r in rows:
        st = r.get("status", {})
        if not isinstance(st, dict) or not all(
                v is None or isinstance(v, str) for v in st.values()):
            raise AbError("%s: row %s: status is not {a: text, b: text}"
                          % (path, md_text(repr(r["row"]), 80)))
        for k in SIDES:
            if os.path.basename(r[k]) != r[k] or r[k].startswith("."):
                raise AbError("%s: row %s names a file outside the folder"
                              % (path, md_text(repr(r["row"]), 80)))
    return data


# ----------------------------------------------------------------- figures

def source_names(a, b):
    names = []
    for r in (a, b):
        for s in (r or {}).get("sources") or []:
            n = s.get("name") if isinstance(s, dict) else None
            if isinstance(n, str) and n not in names:
                names.append(n)
    return names


def cost(report, label, path=None):
    """(estimate in TSC ticks or None, text for the cell)."""
    if report is None:
        return None, "no report"
    if path is not None:
        v = query.get_path(report, path)
        return (v, "%.1f" % v) if untrusted.is_finite_num(v) else (None, "-")
    s = query.get_path(report, "sources[%s]" % label)
    if not isinstance(s, dict):
        return None, "-"
    if s.get("status") != "ok":
        return None, str(s.get("status"))
    v = query.get_path(s, "read_cost.estimate_cycles")
    return (v, "%.1f" % v) if untrusted.is_finite_num(v) else (None, "-")


def contention_levels(a, b, name):
    """CPU counts of the source's contention curve on either side
    (issue 24: the same source read by that many CPUs at once)."""
    cpus = []
    for r in (a, b):
        s = query.get_path(r, "sources[%s]" % name) if r is not None else None
        for lv in (s or {}).get("contention") or []:
            n = lv.get("cpus") if isinstance(lv, dict) else None
            if isinstance(n, int) and not isinstance(n, bool) and n not in cpus:
                cpus.append(n)
    return sorted(cpus)


def contention_cost(report, name, cpus):
    """(the per-read estimate with that many CPUs reading, cell text)."""
    if report is None:
        return None, "no report"
    s = query.get_path(report, "sources[%s]" % name)
    for lv in (s or {}).get("contention") or [] if isinstance(s, dict) else []:
        if isinstance(lv, dict) and lv.get("cpus") == cpus:
            v = lv.get("estimate_cycles")
            if untrusted.is_finite_num(v):
                return v, "%.1f" % v + (" (outnumbered)" if lv.get("outnumbered") else "")
    return None, "-"


def fmt_ratio(r):
    return "x" + fields.fmt_ratio(r)


def pair_rows(a, b, threshold):
    """[(figure, a text, b text, ratio or None, flagged)] for one row."""
    rows = []
    figures = [(lab, path) for lab, path in YARDSTICKS] + \
        [("sources[%s]" % n, None) for n in source_names(a, b)]
    for lab, path in figures:
        name = lab if path else lab[len("sources["):-1]
        va, ta = cost(a, name, path)
        vb, tb = cost(b, name, path)
        r = vb / va if untrusted.is_finite_num(va) and untrusted.is_finite_num(vb) and va > 0 else None
        rows.append((lab, ta, tb, r, r is not None and r >= threshold))
    # Each source's contention curve, level by level: a device-model lock
    # taken or removed between the two QEMUs shows at the upper levels
    # (QEMU 10.2 made HPET and PM timer reads lock-free).  "outnumbered"
    # marks a level where fewer CPUs ran together than read.
    for n in source_names(a, b):
        for cpus in contention_levels(a, b, n):
            if cpus < 2:
                continue
            lab = "sources[%s] at %d CPUs" % (n, cpus)
            va, ta = contention_cost(a, n, cpus)
            vb, tb = contention_cost(b, n, cpus)
            r = vb / va if untrusted.is_finite_num(va) and untrusted.is_finite_num(vb) and va > 0 else None
            rows.append((lab, ta, tb, r, r is not None and r >= threshold))
    return rows


def _text(report, path):
    v = query.get_path(report, path) if report is not None else None
    return "-" if v is None else str(v)


def _md(s):
    """A report string in a Markdown cell: capped, control characters
    shown, no cell break, no tag or entity ("<" and "&" as entities)."""
    return show_controls(cap(str(s), 200)).replace("&", "&amp;").replace(
        "<", "&lt;").replace("|", "\\|").replace("\n", " ").replace(
        "\r", " ")


# --------------------------------------------------------------- compare

def load_pairs(folder, warn):
    """(manifest, [(row name, report A or None, report B or None)],
    rejected [(path, why)])."""
    man = read_manifest(folder)
    pairs, rejected = [], []
    for r in man["rows"]:
        got = {}
        for k in SIDES:
            path = os.path.join(folder, r[k] + ".json")
            got[k] = None
            if (r.get("status") or {}).get(k) == "skipped":
                continue    # nothing to compare, and nothing wrong
            if not os.path.exists(path):
                warn("compare: %s: no report (the row did not produce one)"
                     % path)
                rejected.append((path, "no report"))
                continue
            runs, rej, _ = fleet.load_runs([path], (), warn)
            rejected += rej
            got[k] = runs[0].report if runs else None
        pairs.append((r["row"], got["a"], got["b"]))
    return man, pairs, rejected


def _skipped(man, row):
    for r in man["rows"]:
        if r["row"] == row:
            return [k for k in SIDES if (r.get("status") or {}).get(k)
                    == "skipped"]
    return []


def render_markdown(man, pairs, rejected, threshold=DEFAULT_THRESHOLD):
    """The A/B as Markdown, and the regressions [(row, message)]."""
    va, vb = man["sides"]["a"]["version"], man["sides"]["b"]["version"]
    ha, hb = "A: QEMU %s" % _md(va), "B: QEMU %s" % _md(vb)
    out = ["# clockprobe A/B: QEMU %s (A) vs QEMU %s (B)" % (_md(va), _md(vb)),
           "",
           "A: %s; B: %s.  Read costs are the interleaved estimate in "
           "TSC ticks; B/A at x%s or more is marked **!!**." % (
               md_code(man["sides"]["a"]["qemu"], 200),
               md_code(man["sides"]["b"]["qemu"], 200),
               "%.3g" % threshold), ""]
    regressions = []
    summary = {}   # figure -> {row: ratio text}
    for row, a, b in pairs:
        skipped = _skipped(man, row)
        if skipped:
            out += ["## %s" % _md(row), "", "Skipped on %s (see "
                    "results.json for why)." % " and ".join(
                        ha if k == "a" else hb for k in skipped), ""]
            if len(skipped) == 2:
                continue
        else:
            out += ["## %s" % _md(row), ""]
        out += ["| | %s | %s | B/A |" % (ha, hb), "| --- | --- | --- | --- |"]
        for lab, path in (("SMBIOS version", "platform.smbios.version"),
                          ("Linux clocksource", "verdict.linux_clocksource"),
                          ("predicted read ns", "verdict.predicted_read_ns")):
            out.append("| %s | %s | %s | |" % (lab, _md(_text(a, path)),
                                              _md(_text(b, path))))
        for lab, ta, tb, r, flag in pair_rows(a, b, threshold):
            rt = fmt_ratio(r) if r is not None else ""
            out.append("| %s | %s | %s | %s%s |" % (
                _md(lab), _md(ta), _md(tb), rt, " **!!**" if flag else ""))
            summary.setdefault(lab, {})[row] = rt or "-"
            if flag:
                regressions.append((row, "%s %s -> %s (%s)" % (lab, ta, tb,
                                                              rt)))
        out.append("")
    if len(pairs) > 1:
        names = [p[0] for p in pairs]
        out += ["## B/A per figure", "",
                "| | " + " | ".join(_md(n) for n in names) + " |",
                "| --- |" + " --- |" * len(names)]
        for lab, per in summary.items():
            out.append("| %s | %s |" % (_md(lab), " | ".join(
                per.get(n, "-") for n in names)))
        out.append("")
    out += ["## Regressions (B/A at x%s or more)" % ("%.3g" % threshold), ""]
    out += ["- **%s**: %s" % (_md(row), _md(msg)) for row, msg in regressions] \
        or ["None."]
    out.append("")
    if rejected:
        out += ["## Rejected inputs", ""]
        out += ["- %s: %s" % (md_code(p, 400), _md(why))
                for p, why in rejected]
        out.append("")
    return "\n".join(out), regressions


def compare_main(folder, threshold, output, stdout, warn):
    """scripts/compare --ab FOLDER: the exit status compare documents."""
    try:
        man, pairs, rejected = load_pairs(folder, warn)
    except AbError as e:
        warn("compare: --ab: %s" % e)
        return 2
    if not any(a is not None or b is not None for _, a, b in pairs) and \
            not any(len(_skipped(man, row)) == 2 for row, _, _ in pairs):
        warn("compare: --ab: no usable report in %s" % folder)
        return 2
    text, regressions = render_markdown(man, pairs, rejected, threshold)
    if output:
        with open(output, "w") as f:
            f.write(text)
    else:
        stdout.write(text)
    for row, msg in regressions:
        warn("compare: regression in %s (B against A): %s" % (row, msg))
    return 1 if rejected or regressions else 0
