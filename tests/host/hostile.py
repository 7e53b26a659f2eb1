"""A hostile report: what a guest the operator does not control can put in
the strings of its report (markup, quotes, spreadsheet formulas, control
characters, a megabyte of text).  Host tests run it through every output
of scripts/compare and check that it stays data."""
import copy
import json
import os

from hostlib import FIX

SCRIPT_TAG = "<script>window.__pwned=1</script>"
IMG_ATTR = "\"><img src=x onerror=\"window.__pwned=2\">"
FORMULA = "=HYPERLINK(\"http://evil.example/\",\"click\")"
PLUS_FORMULA = "+cmd|' /C calc'!A0"
AT_FORMULA = "@SUM(1+1)*cmd|' /C calc'!A0"
CONTROL = "red\x1b[31m bell\x07 nul\x00 del\x7f 'quote' \"dq\" end"
HUGE_LEN = 1024 * 1024
STRINGS = {
    "probe.label": "<svg onload=alert(1)>" + SCRIPT_TAG,
    "platform.smbios.manufacturer": SCRIPT_TAG,
    "platform.smbios.product": IMG_ATTR,
    "platform.firmware.vendor": FORMULA,
    "platform.cpu.brand": CONTROL,
    "platform.hypervisor.name": "-2+3" + SCRIPT_TAG,
}


def hostile_report():
    with open(os.path.join(FIX, "kvm_good.json")) as f:
        r = json.load(f)
    r = copy.deepcopy(r)
    for path, text in STRINGS.items():
        node = r
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = text
    r["verdict"]["predicted_read_ns"] = 3.5   # sorts first in the fleet page
    # A run of its own (a report that kept kvm_good's run_id would be a
    # run_id collision, kept and flagged), with an id that is markup and a
    # formula too: the id is report text like any other.
    r["probe"]["run_id"] = "=1+1<b>hostile</b>"
    r["errors"] = [PLUS_FORMULA, AT_FORMULA, "x" * HUGE_LEN]
    r["verdict"]["warnings"] = [{
        "code": "ACPI_PM_FALLBACK", "severity": "critical",
        "message": IMG_ATTR, "evidence": FORMULA, "fix": SCRIPT_TAG}]
    return r
