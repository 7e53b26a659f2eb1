"""What a matrix run leaves behind, made from row records alone.

A record is the JSON-ready outcome of one row (results.json holds them
all).  junit.xml, summary.md and results.tap are functions of the records
and nothing else -- no wall clock, no job count, no shard -- so that
`scripts/matrix --merge` over the shards' results.json writes files
identical to an unsharded run's (tests/host/test_matrix_merge.py).

Record fields: order (the row's place in the unsharded selection), name,
describe, classname, status (passed|failed|error|skipped), details,
seconds, exit_desc, checks, log (the log's file name, or null when the row
left none), verdict ({linux_clocksource, vdso, predicted_read_ns,
confidence, warnings: [{code, severity}]} or null), costs ({source: ns}),
by_kernel (every range of the report's verdict.by_kernel judged as
cptools.kernels judges it: clocksource, vDSO, read cost, confidence, risk,
warnings, releases; null for a row without a report) and headline (the
verdict over the lts kernels in one line).  --fail-on looks at the kernels
of --kernels (FailOn.kernels, default lts) in by_kernel.
"""

import json
import os
import xml.etree.ElementTree as ET

from . import headline, judgment, kernels, paths, policy, untrusted
from .untrusted import cap, md_text, show_controls

RESULTS = "results.json"
RESULTS_SCHEMA = 1


def classname(row):
    """One JUnit class per machine type (q35, pc, microvm, ...)."""
    machine = (row.get("machine") or "unknown").split(",")[0]
    return "clockprobe.matrix." + machine


def headline_costs(report):
    """One read of each ok source, in ns: the estimate the verdict uses
    (read_cost.estimate_ns), else the p50."""
    costs = {}
    srcs = report.get("sources") if isinstance(report, dict) else None
    for s in srcs if isinstance(srcs, list) else []:
        if not isinstance(s, dict) or s.get("status") != "ok" or \
                not isinstance(s.get("name"), str):
            continue
        rc = s.get("read_cost") if isinstance(s.get("read_cost"),
                                              dict) else {}
        ns = rc.get("ns") if isinstance(rc.get("ns"), dict) else {}
        v = rc.get("estimate_ns") if untrusted.is_finite_num(rc.get("estimate_ns")) \
            else ns.get("p50")
        if untrusted.is_finite_num(v):
            costs[s["name"]] = v
    return costs


def _arm64_ranges(rs):
    """verdict.arm64.by_kernel as strings: a shard is untrusted too."""
    t, li = (lambda v: v if isinstance(v, str) else None), (lambda v: v if isinstance(v, list) else [])
    return [{"from": t(r.get("from")) or "?", "to": t(r.get("to")),
             "clock_gettime": t(r.get("clock_gettime")) or "?",
             "errata_worked_around": [e for e in li(r.get("errata_worked_around")) if t(e)]}
            for r in li(rs) if isinstance(r, dict)]


def verdict_of(report):
    v = report.get("verdict") if isinstance(report, dict) else None
    if not isinstance(v, dict):
        return None
    arm = None
    if isinstance(v.get("arm64"), dict):   # an arm64 report's verdict
        v = v["arm64"]
        arm = _arm64_ranges(v.get("by_kernel"))
    ws = v.get("warnings") if isinstance(v.get("warnings"), list) else []
    return {"linux_clocksource": v.get("linux_clocksource"), "arm64": arm,
            "vdso": v.get("vdso"),
            "predicted_read_ns": v.get("predicted_read_ns"),
            "confidence": v.get("confidence"),
            "warnings": [{"code": w.get("code"),
                          "severity": w.get("severity")}
                         for w in ws if isinstance(w, dict)]}


def record(order, row, status, details, seconds, exit_desc, checks,
           report, log_exists):
    return {
        "order": order, "name": row.name, "describe": row.describe(),
        "classname": classname(row), "status": status,
        "details": list(details), "seconds": round(seconds, 3),
        "exit_desc": exit_desc, "checks": checks,
        "log": row.name + ".log" if log_exists else None,
        "verdict": verdict_of(report) if report is not None else None,
        "costs": headline_costs(report) if report is not None else {},
        "by_kernel": by_kernel_of(report) if report is not None else None,
        "headline": headline_of(report) if report is not None else None,
    }


def by_kernel_of(report):
    j = judgment.Judgment(report, kernels.KernelSet("lts"))
    return kernels.range_dicts(j.ranges)


def headline_of(report):
    j = judgment.Judgment(report, kernels.KernelSet("lts"))
    return headline.headline(j, report)


def write_results(path, records, rows_total, shard):
    paths.write_atomic(path, json.dumps(
        {"schema": RESULTS_SCHEMA, "rows_total": rows_total,
         "shard": "%d/%d" % shard if shard else None,
         "rows": records}, indent=1) + "\n")


class MergeError(Exception):
    pass


# ------------------------------------------------------------ the policy

def policy_hits(rec, fail_on):
    """The --fail-on matches of a row over the kernel set (fail_on.kernels,
    default lts), as text ("" when none): "4.19-6.11 (5.10, 5.15, 6.1,
    6.6): ACPI_PM_FALLBACK (critical)".  A record from before by_kernel
    was kept is judged on its main kernel's warnings."""
    if not fail_on or not rec.get("verdict"):
        return ""
    ranges = kernels.ranges_from_dicts(rec.get("by_kernel"))
    if not ranges:
        return fail_on.describe_hits(rec["verdict"]["warnings"])
    kset = getattr(fail_on, "kernels", None) or kernels.KernelSet("lts")
    j = judgment.Judgment(None, kset, ranges=ranges)
    text = j.describe_hits(fail_on)
    if not text and (j.error or j.unjudged()):
        return ""
    return text


def exit_status(records, fail_on):
    if any(r["status"] in ("failed", "error") for r in records):
        return 1
    if any(policy_hits(r, fail_on) for r in records):
        return policy.POLICY_EXIT
    return 0


# ---------------------------------------------------------------- texts

def _fmt_ns(v):
    if not untrusted.is_finite_num(v):
        return "-"
    return "%.3g ns" % v if v < 100 else "%.0f ns" % v


def verdict_text(rec):
    v = rec.get("verdict")
    if not v:
        return "-"
    vd = {True: " (vDSO)", False: " (syscall)"}.get(v.get("vdso"), "")
    return "%s%s" % (v.get("linux_clocksource") or "?", vd)


def warnings_text(rec):
    """The warnings of the report's own kernel (verdict.warnings)."""
    v = rec.get("verdict")
    if not v:
        return "-"
    return ", ".join("%s (%s)" % (w["code"], w["severity"])
                     for w in v["warnings"]) or "none"


def set_warnings_text(rec, fail_on=None):
    """The warnings over the kernel set --fail-on judges (default lts),
    per range: "4.19-6.11 (5.10, 5.15, 6.1, 6.6): ACPI_PM_FALLBACK
    (critical); 6.12+ (6.12, 6.18, 7.2): none" -- not the own kernel's
    alone, which hid a 6.1 fallback the gate failed on (issue 38)."""
    v = rec.get("verdict")
    if not v:
        return "-"
    if v.get("arm64") is not None:   # no warnings there: what each range's read is
        return "; ".join("%s%s: clock_gettime %s%s" % (
            r["from"], "-%s" % r["to"] if r["to"] else "+", r["clock_gettime"],
            " (%s worked around)" % ", ".join(r["errata_worked_around"])
            if r["errata_worked_around"] else "") for r in _arm64_ranges(v["arm64"])) or "-"
    ranges = kernels.ranges_from_dicts(rec.get("by_kernel"))
    kset = getattr(fail_on, "kernels", None) or kernels.KernelSet("lts")
    j = judgment.Judgment(None, kset, ranges=ranges) if ranges else None
    if j is None or j.error:
        return "%s (own kernel only: %s)" % (
            warnings_text(rec), j.error if j else "no by_kernel")
    return "; ".join("%s (%s): %s" % (
        r.label(), ", ".join(inside),
        "not judged" if r.warnings is None else
        ", ".join("%s (%s)" % w for w in r.warnings) or "none")
        for r, inside in j.parts)


# A row's result for an operator: "passed" meant its expectations held
# (maybe that Linux falls back to acpi_pm), and PASSED beside a critical
# verdict read as "this VM is fine" (issue 38); results.json and JUnit
# keep the status names.
RESULT_WORDS = {"passed": "expected", "failed": "UNEXPECTED",
                "error": "ERROR", "skipped": "skipped"}


def result_word(rec, fail_on=None):
    """The row's result for people: expected | UNEXPECTED | ERROR |
    skipped, and ", --fail-on FAILED" on a row the policy fails."""
    word = RESULT_WORDS.get(rec["status"], rec["status"])
    if rec["status"] == "passed" and policy_hits(rec, fail_on):
        word += ", --fail-on FAILED"
    return word


def worst_warning(rec):
    """"ACPI_PM_FALLBACK (critical)": the heaviest warning of the row's
    verdict (the first of that severity), "" with none or no verdict."""
    v = rec.get("verdict") or {}
    ws = [w for w in v.get("warnings") or []
          if w.get("severity") in kernels.SEVERITIES]
    if not ws:
        return ""
    w = max(ws, key=lambda w: kernels.SEVERITIES.index(w["severity"]))
    more = len(ws) - 1
    return "%s (%s)%s" % (w["code"], w["severity"],
                          " +%d more" % more if more else "")


def counts_text(records):
    """"3 as expected, 1 unexpected, 0 errors, 1 skipped"."""
    c = counts(records)
    return "%d as expected, %d unexpected, %d errors, %d skipped" % (
        c["passed"], c["failed"], c["error"], c["skipped"])


def counts(records):
    return {s: sum(r["status"] == s for r in records)
            for s in ("passed", "failed", "error", "skipped")}


# ---------------------------------------------------------------- JUnit

def write_junit(records, path, fail_on=None):
    c = counts(records)
    policy_fail = [r for r in records
                   if r["status"] == "passed" and policy_hits(r, fail_on)]
    suite = ET.Element("testsuite", {
        "name": "clockprobe-matrix", "tests": str(len(records)),
        "failures": str(c["failed"] + len(policy_fail)),
        "errors": str(c["error"]), "skipped": str(c["skipped"]),
        "time": "%.3f" % sum(r["seconds"] for r in records)})
    for r in records:
        case = ET.SubElement(suite, "testcase", {
            "classname": r["classname"], "name": r["name"],
            "time": "%.3f" % r["seconds"]})
        props = ET.SubElement(case, "properties")

        def prop(name, value):
            ET.SubElement(props, "property", {"name": name,
                                               "value": str(value)})
        prop("configuration", r["describe"])
        v = r.get("verdict")
        if v:
            prop("verdict.linux_clocksource", v.get("linux_clocksource"))
            prop("verdict.vdso", json.dumps(v.get("vdso")))
            prop("verdict.predicted_read_ns",
                 json.dumps(v.get("predicted_read_ns")))
            prop("verdict.warnings", warnings_text(r))
            prop("verdict.warnings_over_set", set_warnings_text(r, fail_on))
        for name in sorted(r.get("costs") or {}):
            prop("cost.%s.ns" % name, json.dumps(r["costs"][name]))
        hits = policy_hits(r, fail_on)
        if fail_on:
            prop("policy", ("FAIL --fail-on %s: %s" % (fail_on.text, hits))
                 if hits else "pass --fail-on %s" % fail_on.text)
        text = "\n".join(r["details"])
        first = r["details"][0] if r["details"] else r["status"]
        if r["status"] == "failed":
            el = ET.SubElement(case, "failure", {
                "message": first, "type": "expectation"})
            el.text = "%d of %d checks failed:\n%s" % (
                len(r["details"]), r["checks"], text)
        elif r["status"] == "error":
            el = ET.SubElement(case, "error", {"message": first})
            el.text = text
        elif r["status"] == "skipped":
            ET.SubElement(case, "skipped", {"message": text})
        elif hits:
            el = ET.SubElement(case, "failure", {
                "message": "--fail-on %s: %s" % (fail_on.text, hits),
                "type": "policy"})
            el.text = "verdict: %s; warnings: %s" % (verdict_text(r),
                                                     warnings_text(r))
        out = ET.SubElement(case, "system-out")
        out.text = r["describe"] + "\n" + (
            "log: %s\n" % r["log"] if r.get("log") else "")
    _xml_safe(suite)
    ET.indent(suite)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        ET.ElementTree(suite).write(tmp, encoding="utf-8",
                                    xml_declaration=True)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _xml_safe(root):
    """Records may come from a shard (untrusted, cptools/matrixmerge.py)
    and carry report text: control characters, which XML 1.0 cannot hold
    even escaped, are shown as \\xNN and every text is capped."""
    for el in root.iter():
        if el.text:
            el.text = show_controls(cap(el.text))
        for k, v in el.attrib.items():
            el.attrib[k] = show_controls(cap(v))


# -------------------------------------------------------------- summary

def md_cell(text):
    """Escaped and capped (untrusted.md_text); line breaks become <br>."""
    return "<br>".join(md_text(part) for part in str(text).split("\n"))


def summary_md(records, fail_on=None):
    lines = ["# clockprobe QEMU matrix", "",
             "%d configurations: %s; %.0f s of boot time in all.  A "
             "row is *expected* when every expectation of its config "
             "held, whatever its verdict (the warnings column: per "
             "kernel range of the set the gate judges)."
             % (len(records), counts_text(records),
                sum(r["seconds"] for r in records)), ""]
    if fail_on:
        hit = [(r["name"], policy_hits(r, fail_on)) for r in records]
        hit = [h for h in hit if h[1]]
        lines += ["Policy `--fail-on %s`: %s" % (
            fail_on.text, "**FAILED** on " + "; ".join(
                "%s: %s" % (md_cell(n), md_cell(h)) for n, h in hit)
            if hit else "passed."), ""]
    lines += ["| configuration | result | Linux would use | predicted read "
              "| warnings | time | QEMU | details |",
              "| --- | --- | --- | ---: | --- | ---: | --- | --- |"]
    for r in records:
        detail = "; ".join(r["details"]) if r["details"] else (
            "%d checks" % r["checks"] if r["checks"] else "")
        v = r.get("verdict") or {}
        lines.append("| %s | %s | %s | %s | %s | %.1f s | %s | %s |" % (
            md_cell(r["name"]), result_word(r, fail_on),
            md_cell(verdict_text(r)),
            _fmt_ns(v.get("predicted_read_ns")),
            md_cell(set_warnings_text(r, fail_on)),
            r["seconds"], md_cell(r["describe"]), md_cell(detail)))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------- TAP

def tap(records, fail_on=None):
    """TAP version 13: one test point per row, a YAML block with the
    verdict; skipped rows carry # SKIP and the reason."""
    out = ["TAP version 13", "1..%d" % len(records)]
    for i, r in enumerate(records, 1):
        hits = policy_hits(r, fail_on)
        ok = r["status"] in ("passed", "skipped") and not hits
        line = "%s %d - %s" % ("ok" if ok else "not ok", i, r["name"])
        if r["status"] == "skipped":
            reason = show_controls(cap((r["details"] or [""])[0], 2000)
                                   .replace("\n", " "))
            line += " # SKIP " + reason.replace("#", "\\#")
        out.append(line)
        block = {"status": r["status"], "configuration": r["describe"],
                 "seconds": r["seconds"]}
        if r["details"]:
            block["message"] = r["details"][0]
            block["details"] = r["details"]
        if r.get("verdict"):
            block["verdict"] = verdict_text(r)
            block["predicted_read_ns"] = r["verdict"]["predicted_read_ns"]
            block["warnings"] = warnings_text(r)
            block["warnings_over_set"] = set_warnings_text(r, fail_on)
        if hits:
            block["policy"] = "--fail-on %s: %s" % (fail_on.text, hits)
        out.append("  ---")
        # JSON scalars are valid YAML flow scalars.
        out += ["  %s: %s" % (k, json.dumps(v)) for k, v in block.items()]
        out.append("  ...")
    return "\n".join(out) + "\n"


def write_outputs(out_dir, records, fail_on=None, want_tap=False):
    write_junit(records, os.path.join(out_dir, "junit.xml"), fail_on)
    summary = summary_md(records, fail_on)
    paths.write_atomic(os.path.join(out_dir, "summary.md"), summary)
    if want_tap:
        paths.write_atomic(os.path.join(out_dir, "results.tap"),
                     tap(records, fail_on))
    return summary
