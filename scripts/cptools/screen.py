"""Make a serial console fit to echo on a terminal.

OVMF drives its console as a VT100 screen: it clears it (ESC [2J), homes the
cursor (ESC [01;01H) and switches modes (ESC [=3h) several times before the
probe starts, which wipes the user's terminal under `make run`.  The
filter drops every escape sequence and keeps the text.  Only the echo is
filtered: the serial log keeps every byte as it arrived.
"""

import re

# ESC [ params intermediates final (CSI: cursor moves, clears, modes,
# colours), or ESC intermediates final (the two-byte and charset escapes:
# ESC c, ESC 7, ESC ( B).  Byte ranges from ECMA-48 and ISO 2022.
ESCAPE_RE = re.compile(rb"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
                       rb"|\x1b[\x20-\x2f]*[\x30-\x5a\x5c-\x7e]")
# A sequence longer than this is not one: its bytes are let through rather
# than held back forever.
MAX_SEQUENCE = 32


def strip_screen_control(data):
    """`data` (bytes) without escape sequences."""
    return ESCAPE_RE.sub(b"", data)


class ScreenControlFilter:
    """A binary stream that forwards what is written to it, less escape
    sequences, even when one is split across two writes."""

    def __init__(self, out):
        self.out = out
        self.pending = b""

    def write(self, chunk):
        data = self.pending + bytes(chunk)
        self.pending = b""
        cut = data.rfind(b"\x1b")
        if cut >= 0 and len(data) - cut < MAX_SEQUENCE \
                and not ESCAPE_RE.match(data, cut):
            # An escape that has not ended yet: keep it for the next write.
            data, self.pending = data[:cut], data[cut:]
        self.out.write(strip_screen_control(data))
        return len(chunk)

    def flush(self):
        self.out.flush()

    def close(self):
        """Let through a trailing partial escape (the stream has ended)."""
        if self.pending:
            self.out.write(self.pending.replace(b"\x1b", b""))
            self.pending = b""
        self.out.flush()


FRAME_BEGIN = (b"==== CLOCKPROBE REPORT BEGIN", b"==== CLOCKPROBE WATCH BEGIN")
FRAME_END = (b"==== CLOCKPROBE REPORT END", b"==== CLOCKPROBE WATCH END")
SAVED_LINE = b"clockprobe: report saved as "


class FrameEchoFilter:
    """The live echo without the framed JSON: make run saves the report
    (build/run/STAMP/report.json), so the terminal gets the markers and a note
    of its size instead of a 20 KB line.  saved_note: a line printed after
    the probe's "report saved as \\clockprobe-report.json" (make run boots
    the disk with snapshot=on, so that copy is discarded).  Everything
    else passes as it comes, partial lines included."""

    def __init__(self, out, saved_note=None):
        self.out = out
        self.saved_note = saved_note
        self.line = b""
        self.in_frame = False
        self.held = 0

    def write(self, chunk):
        data = bytes(chunk)
        while data:
            nl = data.find(b"\n")
            part, data = (data, b"") if nl < 0 else (data[:nl + 1],
                                                     data[nl + 1:])
            self.line += part
            if not self.in_frame:
                self.out.write(part)
            if nl < 0:
                break
            self._line_done(self.line)
            self.line = b""
        return len(chunk)

    def _line_done(self, line):
        if self.in_frame:
            if any(m in line for m in FRAME_END):
                self.out.write(b"[%d bytes of JSON not echoed: saved, see "
                               b"below]\r\n" % self.held)
                self.out.write(line)
                self.in_frame, self.held = False, 0
            else:
                self.held += len(line.strip())
            return
        if any(m in line for m in FRAME_BEGIN):
            self.in_frame = True
        elif SAVED_LINE in line and self.saved_note:
            self.out.write(self.saved_note.encode() + b"\r\n")

    def flush(self):
        self.out.flush()

    def close(self):
        if self.in_frame:
            self.out.write(b"[%d bytes of a frame not echoed: it ended "
                           b"before its END marker]\r\n" % (
                               self.held + len(self.line.strip())))
        self.out.flush()
