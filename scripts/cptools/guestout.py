"""Predicted vs actual in compare's outputs (cptools/guestjoin.py joins
a clockprobe-guest report with the probe report of the same VM; this is
what the joins look like): the Markdown section, rows of the long format
(section predicted_vs_actual) and the SQLite tables predicted_vs_actual
and findings.  Every report string goes through untrusted.cap, and the
Markdown escapes table cells.
"""

import sqlite3

from .guestjoin import _item, fmt, identity
from .untrusted import cap, md_text, show_controls


def _md(s):
    """A guest report's text (a kernel log line can hold an escape
    sequence) in a Markdown cell: controls as \\xNN, no markup, no cell
    break (untrusted.md_text)."""
    return md_text(str(s), 2000)


def terminal_findings(pairs):
    """The findings as lines for stderr: each quotes the guest's kernel
    log, so every control character is shown as \\xNN, never sent raw to
    the terminal (as scripts/watch does)."""
    return ["%s: finding: %s" % (show_controls(cap(str(p["guest"].label),
                                                   200)),
                                 show_controls(cap(f, 2000)))
            for p in pairs for f in (p["join"] or {}).get("findings") or []]


def render_markdown(pairs):
    """The "Predicted vs actual" section of compare's Markdown."""
    out = ["## Predicted vs actual (clockprobe-guest)", ""]
    for p in pairs:
        g = p["guest"]
        if p["probe"] is None:
            uuid, label = identity(g.report, True)
            out += ["**%s**: no probe report of this VM among the inputs "
                    "(SMBIOS UUID %s, label %s)." % (
                        _md(g.label), _md(uuid or "none"),
                        _md(label or "none")), ""]
            continue
        j = p["join"]
        out += ["**%s** (Linux %s) against **%s** (paired by %s; by_kernel "
                "%s)" % (_md(g.label), _md(j["kernel_release"]),
                         _md(p["probe"].label), p["paired_by"],
                         _md(j["kernel_range"] or "-")), "",
                "| item | predicted | actual | agree | note |",
                "| --- | --- | --- | --- | --- |"]
        for it in j["items"]:
            out.append("| %s | %s | %s | %s | %s |" % (
                _md(it["item"]), _md(fmt(it["predicted"])),
                _md(fmt(it["actual"])),
                {True: "yes", False: "**NO**", None: "-"}[it["agree"]],
                _md(it["note"] or "")))
        if j["per_source"]:
            out += ["", "| clocksource | probe: predicted read, ns | guest: "
                    "clock_gettime via vDSO, ns | in vDSO | syscall, ns | "
                    "ratio |", "| --- | --- | --- | --- | --- | --- |"]
            for s in j["per_source"]:
                out.append("| %s%s | %s | %s | %s | %s | %s |" % (
                    _md(s["clocksource"]),
                    " (switched)" if s["switched"] else "",
                    fmt(s["predicted_read_ns"]), fmt(s["actual_ns"]),
                    fmt(s["actual_in_vdso"]), fmt(s["actual_syscall_ns"]),
                    "x%.2f" % s["ratio"] if s["ratio"] is not None else "-"))
        out.append("")
        for f in j["findings"]:
            out.append("- finding: " + _md(f))
        if j["findings"]:
            out.append("")
    return out


PAIR_SECTION = "predicted_vs_actual"


def long_rows(pairs):
    """The pairs in the long format (run_id, label, section, name, field,
    value, unit): the guest run's id and label, section
    predicted_vs_actual, name = the item."""
    rows = []
    for p in pairs:
        g = p["guest"]
        head = (g.run_id, g.label, PAIR_SECTION)
        rows.append(head + ("pair", "probe_run_id",
                            p["probe"].run_id if p["probe"] else None, ""))
        rows.append(head + ("pair", "paired_by", p["paired_by"], ""))
        if not p["join"]:
            continue
        for it in p["join"]["items"]:
            unit = "ns" if it["item"] == "read_ns" else ""
            for field in ("predicted", "actual", "agree", "note"):
                v = it[field]
                if v is not None:
                    rows.append(head + (it["item"], field,
                                        cap(v) if isinstance(v, str) else v,
                                        unit if field in ("predicted",
                                                          "actual") else ""))
        for i, f in enumerate(p["join"]["findings"]):
            rows.append(head + ("finding", str(i), cap(f), ""))
    return rows


def write_sqlite(path, pairs):
    """Table predicted_vs_actual (guest_run_id, guest_label, probe_run_id,
    paired_by, item, predicted, actual, agree, note) and findings
    (guest_run_id, finding); a guest run written again replaces its rows."""
    db = sqlite3.connect(path)
    try:
        db.executescript("""
CREATE TABLE IF NOT EXISTS predicted_vs_actual (
  guest_run_id TEXT, guest_label TEXT, probe_run_id TEXT, paired_by TEXT,
  item TEXT, predicted, actual, agree INTEGER, note TEXT);
CREATE TABLE IF NOT EXISTS findings (guest_run_id TEXT, finding TEXT);
""")
        with db:
            for p in pairs:
                g = p["guest"]
                for t in ("predicted_vs_actual", "findings"):
                    db.execute("DELETE FROM %s WHERE guest_run_id = ?" % t,
                               (g.run_id,))
                items = p["join"]["items"] if p["join"] else [
                    _item("pair", None, None, None, "no probe report")]
                for it in items:
                    db.execute(
                        "INSERT INTO predicted_vs_actual VALUES "
                        "(?,?,?,?,?,?,?,?,?)",
                        (g.run_id, cap(str(g.label)),
                         p["probe"].run_id if p["probe"] else None,
                         p["paired_by"], it["item"], _sql(it["predicted"]),
                         _sql(it["actual"]),
                         None if it["agree"] is None else int(it["agree"]),
                         cap(it["note"]) if it["note"] else None))
                for f in (p["join"] or {}).get("findings") or []:
                    db.execute("INSERT INTO findings VALUES (?,?)",
                               (g.run_id, cap(f)))
    finally:
        db.close()


def _sql(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)) or v is None:
        return v
    return cap(str(v))
