"""Treating report strings as the untrusted data they are.

A report comes from a guest the operator does not control: SMBIOS strings,
firmware vendor names, labels and error texts can hold markup, quotes,
spreadsheet formulas, control characters or megabytes of text.  Every
output of the host tools passes them through here:

  cap()          length cap with a visible note (all outputs)
  html_text()    escaped for HTML/SVG text and attributes, control
                 characters shown as \\xNN (XML 1.0 forbids most of them)
  csv_cell()     a string that a spreadsheet would read as a formula gets
                 a leading apostrophe (OWASP's CSV injection advice)

SQLite gets the strings verbatim (up to the cap) as bound parameters.
"""

import html
import re

# Far above any real SMBIOS/firmware string, small enough that a hostile
# report cannot blow up a database or a page.
TEXT_CAP = 64 * 1024
HTML_CAP = 300
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")
_NUMBER_RE = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def cap(text, limit=TEXT_CAP):
    """text itself, or its first `limit` characters and a note."""
    text = str(text)
    if len(text) <= limit:
        return text
    return "%s[... %d more characters cut]" % (text[:limit],
                                                len(text) - limit)


def show_controls(text):
    return _CONTROL_RE.sub(lambda m: "\\x%02x" % ord(m.group()), text)


def html_text(text, limit=HTML_CAP):
    """Safe inside HTML/SVG element text and quoted attributes."""
    return html.escape(show_controls(cap(text, limit)), quote=True)


def csv_cell(value):
    """A value for a CSV cell that no spreadsheet evaluates as a formula.

    Numbers stay numbers (a negative drift is data, and so is the text
    "-3"); any other string that starts like a formula (= + - @ | %, tab,
    CR, LF) gets a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    text = cap(value)
    if text.startswith(_FORMULA_START) and not _NUMBER_RE.fullmatch(text):
        return "'" + text
    return text
