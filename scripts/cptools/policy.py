"""The verdict policy a pipeline sets with --fail-on SEVERITY|CODE[,...].

Each report's verdict carries warnings with a code and a severity
(docs/verdict-rules.md, "Warnings").  A pipeline names what must fail it,
as CHIPSEC's PASSED/WARNING/FAILED per module lets a CI gate on a level:

    --fail-on critical            any warning of severity critical
    --fail-on warning             warning or critical (a severity means
                                  "this one or worse")
    --fail-on ACPI_PM_FALLBACK    that code, whatever its severity
    --fail-on ACPI_PM_FALLBACK,TSC_UNSYNCED,critical   any of them

Codes are matched exactly (upper case); severities case-insensitively.
A code the verdict cannot raise is refused before anything runs
(cptools/vocabulary.py checks it against the judge's list), so a typo
never makes a gate that cannot fail.
scripts/run, scripts/matrix and scripts/compare share this module and the
exit status POLICY_EXIT when the policy matches, so a pipeline tells "the
VM configuration is bad" (3) from "the tool or the run broke" (1, 2).
"""

import difflib
import re

SEVERITIES = ("info", "warning", "critical")
POLICY_EXIT = 3
_CODE_RE = re.compile(r"[A-Z][A-Z0-9_]*")


class PolicyError(ValueError):
    pass


class FailOn:
    """A parsed --fail-on: a lowest severity and a set of codes."""

    def __init__(self, text):
        self.text = text
        self.min_rank = None
        self.codes = set()
        for tok in (t.strip() for t in (text or "").split(",")):
            if not tok:
                continue
            if tok.lower() in SEVERITIES:
                rank = SEVERITIES.index(tok.lower())
                if self.min_rank is None or rank < self.min_rank:
                    self.min_rank = rank
            elif _CODE_RE.fullmatch(tok):
                self.codes.add(tok)
            else:
                near = difflib.get_close_matches(tok.lower(), SEVERITIES, 1,
                                                 0.0)
                raise PolicyError(
                    "--fail-on: %r is neither a severity (%s) nor a "
                    "warning code (UPPER_CASE); did you mean %s?"
                    % (tok, "|".join(SEVERITIES), near[0] if near
                       else tok.upper()))
        if self.min_rank is None and not self.codes:
            raise PolicyError("--fail-on needs a severity or a code")

    def matches(self, warnings):
        """The warnings (dicts with code/severity) this policy fails on."""
        hits = []
        for w in warnings or []:
            if not isinstance(w, dict):
                continue
            code, sev = w.get("code"), str(w.get("severity") or "").lower()
            by_sev = (self.min_rank is not None and sev in SEVERITIES
                      and SEVERITIES.index(sev) >= self.min_rank)
            if code in self.codes or by_sev:
                hits.append(w)
        return hits

    def describe_hits(self, warnings):
        return ", ".join("%s (%s)" % (w.get("code"), w.get("severity"))
                         for w in self.matches(warnings))


def report_warnings(report):
    ws = report.get("verdict", {}).get("warnings") \
        if isinstance(report, dict) and isinstance(report.get("verdict"),
                                                   dict) else None
    return ws if isinstance(ws, list) else []


def parse_fail_on(text):
    """argparse type: a FailOn, or an argparse error naming the token."""
    import argparse
    try:
        return FailOn(text)
    except PolicyError as e:
        raise argparse.ArgumentTypeError(str(e))
