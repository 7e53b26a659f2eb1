"""Progress of a long load on stderr, for a person watching a terminal:
"compare: loading inputs 1,234/5,000, 410/s, ETA 9 s" rewritten in place
(a carriage return), at most twice a second, and a last line when done.
Loading 5,000 reports took 26 s with no output at all (issue 38).

Only where the stream is a terminal: a pipe, a file or CI's log gets
nothing (no carriage returns in a log, no lines a script must skip).
k/N with the rate and the time left, made here (no library: a few lines,
and Debian's python3-tqdm would be one more dependency for them).
"""

import time

from .untrusted import term_text


def _count(n):
    return "{:,}".format(n)


def _duration(s):
    """Seconds as a person reads a wait: 9 s, 4 min 05 s, 1 h 02 min."""
    s = int(round(s))
    if s < 60:
        return "%d s" % s
    if s < 3600:
        return "%d min %02d s" % (s // 60, s % 60)
    return "%d h %02d min" % (s // 3600, s // 60 % 60)


def progress_line(what, k, n, elapsed):
    """One progress line: "loading inputs 1,234/5,000, 410/s, ETA 9 s".
    The rate and ETA only once there is something to measure them by."""
    line = "%s %s/%s" % (what, _count(k), _count(n))
    if k > 0 and elapsed > 0:
        rate = k / elapsed
        line += ", %s/s" % (("%.0f" % rate) if rate >= 10 else
                            ("%.1f" % rate))
        if k < n:
            line += ", ETA %s" % _duration((n - k) / rate)
        else:
            line += ", %s" % _duration(elapsed)
    return line


class Progress:
    """k/N on a terminal.  update(k) as work is done, done() at the end;
    nothing at all when the stream is not a terminal."""

    INTERVAL = 0.5      # s between two updates: a terminal, not a log

    def __init__(self, stream, what, total=0, clock=time.monotonic):
        self.stream = stream
        self.what = what
        self.total = total
        self.clock = clock
        try:
            self.on = bool(stream is not None and stream.isatty())
        except (AttributeError, ValueError):    # closed or not a file
            self.on = False
        self.start = clock()
        self.last = None
        self.shown = False      # or the count the line on screen shows

    def __call__(self, k, total=None):
        """update(k), the total as the caller counts it (the loader's
        list of inputs, refused files included)."""
        if total is not None:
            self.total = total
        self.update(k)

    def update(self, k):
        if not self.on:
            return
        now = self.clock()
        if self.last is not None and now - self.last < self.INTERVAL and \
                k < self.total:
            return
        self.last = now
        self._write("\r\x1b[K" + term_text(progress_line(
            self.what, k, self.total, now - self.start)))
        self.shown = k

    def clear(self):
        """Clear the line before another message is printed (the next
        update draws it again below that message)."""
        if self.on and self.shown is not False:
            self._write("\r\x1b[K")
            self.last = None

    def done(self, k=None):
        """The final count on its own line (only if progress was shown)."""
        if not self.on or self.shown is False:
            return
        k = self.total if k is None else k
        if self.shown == k and self.last is not None:
            self._write("\n")      # the line on screen is the last count
        else:
            self._write("\r\x1b[K" + term_text(progress_line(
                self.what, k, self.total, self.clock() - self.start)) +
                "\n")
        self.shown = False

    def _write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.on = False
