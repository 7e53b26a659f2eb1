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
                 a leading apostrophe (OWASP's CSV injection advice), and
                 every control character shown as for a terminal (a CSV
                 goes to stdout as often as to a file)
  term_text()    for a terminal (stderr warnings, file-name echoes, text
                 on stdout): every control character (ESC, CSI 0x9b and the
                 other C1 controls, CR, LF, tab) and every bidi override
                 shown as \\xNN / \\uNNNN, so no report string or file name
                 moves the cursor, clears the screen, forges a line or
                 reverses what follows
  term_lines()   the same for a text of several lines: only the LFs that
                 separate them stay

The characters shown (never dropped, so the operator sees that something
was there) are the same set everywhere; the bidi controls (Trojan Source,
CVE-2021-42574) are in every set, CR/LF/tab where the format needs that.

SQLite gets the strings verbatim (up to the cap) as bound parameters.
"""

import html
import math
import re

# Far above any real SMBIOS/firmware string, small enough that a hostile
# report cannot blow up a database or a page.
TEXT_CAP = 64 * 1024
HTML_CAP = 300
# The bidi embeddings, overrides and isolates and the marks (ALM, LRM, RLM):
# "abc\u202efdp.exe" shows as "abcexe.pdf".
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f%s]" % _BIDI)
# For a terminal line: LF, CR and tab too, and the Unicode line and
# paragraph separators.
_TERM_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029%s]" % _BIDI)
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


def term_text(text, limit=TEXT_CAP):
    """Safe to print on a terminal as (part of) one line."""
    return show_controls(cap(text, limit), _TERM_RE)


def term_lines(text, limit=TEXT_CAP):
    """Safe to print on a terminal: a text of several lines, each shown as
    term_text (the LFs between them kept, a CR shown)."""
    return "\n".join(show_controls(line, _TERM_RE)
                     for line in cap(text, limit).split("\n"))


def _json_escaped(m):
    return "\\u%04x" % ord(m.group())


# What json.dumps leaves raw that a terminal obeys (its own indent, LF and
# spaces, is outside the strings: C0 controls in them are already \\u00NN).
_JSON_TERM_RE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029%s]"
                           % _BIDI)


def term_json(text):
    """JSON text (json.dumps with ensure_ascii=False) safe on a terminal:
    json.dumps escapes C0 controls but not DEL, the C1 controls (0x9b is
    a CSI) or the bidi overrides; they are written as \\uNNNN here, the
    same string to any JSON reader."""
    return _JSON_TERM_RE.sub(_json_escaped, text)


def _shown(m):
    c = ord(m.group())
    return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c


def show_controls(text, pattern=_CONTROL_RE):
    return pattern.sub(_shown, text)


_MD_CONTROL_RE = _TERM_RE
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
    "-3"); every control character and bidi override is shown as in
    term_text (a CSV on stdout reaches a terminal: no escape sequence, no
    forged row); any other string that starts like a formula (= + - @ |
    %) gets a leading apostrophe."""
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
    if _TERM_RE.search(text):
        text = show_controls(text, _TERM_RE)
    if text[:1] in _FORMULA_CHARS and not _NUMBER_RE.fullmatch(text):
        return "'" + text
    return text


def is_finite_num(v):
    """A report's value that can be drawn or summed: a number, not a bool,
    NaN or an infinity (a hostile report carries any of them)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v)


def finite_or_none(v):
    """v when is_finite_num(v), else None."""
    return v if is_finite_num(v) else None
