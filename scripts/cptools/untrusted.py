"""Treating report strings as the untrusted data they are.

A report comes from a guest the operator does not control: SMBIOS strings,
firmware vendor names, labels and error texts can hold markup, quotes,
spreadsheet formulas, control characters or megabytes of text.  Every
output of the host tools passes them through here:

  cap()          length cap with a visible note (all outputs)
  html_text()    escaped for HTML/SVG text and attributes, control
                 characters shown as \\xNN (XML 1.0 forbids most of them)
  md_text()      escaped for a Markdown table cell: markup (< &) as
                 entities, | [ ] \\ behind a backslash (no cell break, no
                 link or image that would fetch), every control character
                 (CR, LF and tab too: no forged line) shown as \\xNN
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
_FORMULA_CHARS = frozenset(_FORMULA_START)     # each is one character
_NUMBER_RE = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def cap(text, limit=TEXT_CAP):
    """text itself, or its first `limit` characters and a note."""
    text = str(text)
    if len(text) <= limit:
        return text
    return "%s[... %d more characters cut]" % (text[:limit],
                                                len(text) - limit)


def _shown(m):
    c = ord(m.group())
    return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c


def show_controls(text, pattern=_CONTROL_RE):
    return pattern.sub(_shown, text)


_MD_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MD_SPECIAL_RE = re.compile(r"([\\|\[\]])")


def md_text(text, limit=TEXT_CAP):
    """Safe as the text of a Markdown (GFM) table cell or list item."""
    text = show_controls(cap(text, limit), _MD_CONTROL_RE)
    # "<" and "&" are all a tag or an entity needs; ">" stays ("x -> y").
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return _MD_SPECIAL_RE.sub(r"\\\1", text)


def md_code(text, limit=TEXT_CAP):
    """text as a Markdown code span (`...`): nothing inside a code span is
    markup, so only the controls and a backtick (which would end it) are
    shown as \\xNN."""
    return "`%s`" % show_controls(cap(text, limit),
                                  _MD_CONTROL_RE).replace("`", "\\x60")


def html_text(text, limit=HTML_CAP):
    """Safe inside HTML/SVG element text and quoted attributes."""
    return html.escape(show_controls(cap(text, limit)), quote=True)


def csv_cell(value):
    """A value for a CSV cell that no spreadsheet evaluates as a formula.

    Numbers stay numbers (a negative drift is data, and so is the text
    "-3"); any other string that starts like a formula (= + - @ | %, tab,
    CR, LF) gets a leading apostrophe."""
    t = type(value)
    if t is int:    # most cells are str or int: exact types first
        return str(value)
    if t is not str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return repr(value) if isinstance(value, float) else str(value)
        value = str(value)
    text = value if len(value) <= TEXT_CAP else cap(value)
    if text[:1] in _FORMULA_CHARS and not _NUMBER_RE.fullmatch(text):
        return "'" + text
    return text
