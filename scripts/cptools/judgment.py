"""A report's verdict over a kernel set (cptools/kernels.py): its by_kernel
ranges judged as precisely as the report allows -- the report's own
per-range warnings, else the verdict rules run again on its
verdict.inputs (scripts/verdict's judge() and verdict-judge, both found
through cptools/paths.py),
else the clocksource only -- and the set's releases found in them, for
--fail-on (which kernels got what) and the headline.
"""

import os

from . import paths, untrusted
from .kernels import (
    JUDGE, KernelSetError, ReleaseTable, _str, _warning_pairs,
    judge_release_table, measured_of, ranges_of, table_rows)


_verdict_script = []


def _verdict_module():
    """scripts/verdict's judge() (it feeds verdict.inputs to the C rules),
    loaded once as a module: one way to ask the rules, not two."""
    if not _verdict_script:
        import importlib.machinery
        import importlib.util
        path = paths.VERDICT_SCRIPT
        loader = importlib.machinery.SourceFileLoader("cp_verdict_script",
                                                      path)
        spec = importlib.util.spec_from_loader(loader.name, loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        _verdict_script.append(mod)
    return _verdict_script[0]


def rejudge(report, ranges, judge_path=JUDGE):
    """Ranges judged "clocksource only" get their warnings, confidence
    and read cost from the rules, run on the report's verdict.inputs for
    the range's first release; left as they are where the report has no
    inputs or the judge is not built (the reason is returned)."""
    v = report.get("verdict") if isinstance(report, dict) else None
    todo = [r for r in ranges if r.judged == "clocksource only"]
    if not todo:
        return None
    if not isinstance(v, dict) or not isinstance(v.get("inputs"), dict):
        return "the report has no verdict.inputs (a probe older than the " \
            "re-judgeable verdict)"
    if not os.path.isfile(judge_path):
        return paths.not_built(judge_path, "unit")
    mod = _verdict_module()
    for r in todo:
        try:
            got = mod.judge(report, r.frm, judge_path)
        except Exception as e:      # VerdictError, a judge that failed
            return "the rules could not judge it: %s" % e
        r.warnings = _warning_pairs(got.get("warnings"))
        r.confidence = _str(got.get("confidence"))
        r.predicted_read_ns = untrusted.finite_or_none(got.get("predicted_read_ns"))
        measured_of(r, got)
        r.judged = "rules"
    return None


class Judgment:
    """A report's verdict over a kernel set: the ranges the set touches,
    with the set's releases in each (oldest first)."""

    def __init__(self, report, kset, rules=True, judge_path=JUDGE,
                 ranges=None):
        """ranges: Range objects already judged (a matrix record's), in
        place of the report's."""
        self.kset = kset
        self.error = None
        self.note = None
        self.parts = []     # [(Range, [release in the set])]
        self.ranges = ranges if ranges is not None else ranges_of(report)
        if not self.ranges:
            self.error = "the report has no verdict.by_kernel"
            return
        if rules and ranges is None:
            # Every range, not only the set's: the fleet database keeps
            # them all, and a report needs this only once.
            why = rejudge(report, self.ranges, judge_path)
            if why:
                self.note = "%s not judged per kernel: %s" % (", ".join(
                    r.label() for r in self.ranges
                    if r.judged == "clocksource only"), why)
        table = ReleaseTable.from_ranges(self.ranges) or \
            judge_release_table(judge_path)
        if table is None:
            self.error = ("no release table: the report predates "
                          "by_kernel[].releases and %s"
                          % paths.not_built(judge_path, "unit"))
            return
        try:
            wanted = kset.releases(table)
        except KernelSetError as e:
            self.error = str(e)
            return
        self.releases = wanted
        for r in self.ranges:
            inside = [x for x in wanted if r.contains(x)]
            if inside:
                self.parts.append((r, inside))
        missing = [x for x in wanted if not any(x in ins for _, ins in
                                                self.parts)]
        if missing:
            self.error = "by_kernel covers none of %s" % ", ".join(missing)

    def hits(self, fail_on):
        """[(Range, releases, [matching (code, severity)])]."""
        out = []
        for r, inside in self.parts:
            if r.warnings is None:
                continue
            m = fail_on.matches([{"code": c, "severity": s}
                                 for c, s in r.warnings])
            if m:
                out.append((r, inside, [(w["code"], w["severity"])
                                        for w in m]))
        return out

    def unjudged(self):
        return [(r, inside) for r, inside in self.parts
                if r.warnings is None]

    def describe_hits(self, fail_on):
        """"4.19-6.11 (5.10, 5.15, 6.1, 6.6): ACPI_PM_FALLBACK (critical)";
        ranges that could not be judged are named too."""
        out = []
        for r, inside, ws in self.hits(fail_on):
            out.append("%s (%s): %s" % (r.label(), ", ".join(inside),
                                        ", ".join("%s (%s)" % w
                                                  for w in ws)))
        return "; ".join(out)

    def rows(self):
        """Every range of the report (the fleet database keeps them all;
        the set only picks what gates and the headline look at)."""
        return table_rows(self.ranges)



def gate_result(j, fail_on):
    """What --fail-on makes of one Judgment: a dict with text (the hits
    in words, "" for none), unjudged (range labels the gate could not
    judge), error and note; None without --fail-on."""
    if fail_on is None:
        return None
    return {"text": j.describe_hits(fail_on),
            "unjudged": [r.label() for r, _ in j.unjudged()],
            "error": j.error, "note": j.note}


def gate_outcome(hits):
    """What the gate does with one run's gate_result: "matched" (exit 3),
    "unjudged" (a kernel of the set could not be judged: exit 1, a gate
    never passes what it did not see) or None (it passes).  compare's exit
    status and the fleet page's per-run judgment and headline count both
    come from here, so the page counts what the gate fails (issue 38)."""
    if not hits or "no_verdict" in hits:
        return None
    if hits["text"]:
        return "matched"
    if hits["error"] or hits["unjudged"]:
        return "unjudged"
    return None


