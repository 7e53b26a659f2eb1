"""Progress of long work, on stderr, only when stderr is a terminal.

A matrix of forty rows printed nothing between its rows' result lines to
say how far it was or how long the rest would take, and a watch run
printed its frames without one figure from them (issue 38).  Here:

    Progress    "matrix: 3/12 rows, 1.5 rows/min, ETA 6m00s" after each
                row (k/N, the rate so far, the time the rest takes at it)
    WatchLive   fed the serial console as it arrives; for each WATCH
                frame that verifies, one line with its seq, the time, and
                the TSC's cumulative offset and drift against every clock

    LiveCount   a long load (compare's inputs: 5,000 reports took 26 s with
                no output): "compare: loading inputs 1,234/5,000, 411/s,
                ETA 9s" rewritten in place, at most twice a second, and a
                last line when done

All print nothing when stderr is not a terminal (a pipe, a CI log, a
file): what a script reads stays as it was, and the figures are in the
saved files anyway.  Progress and WatchLive write plain lines (they
interleave with the row results and the console echo on stdout);
LiveCount redraws one line and clears it before any warning.  k/N, rate
and ETA are made here: a few lines, where python3-tqdm would be one more
dependency for them.
"""

import sys
import time

from . import watchlog
from .fields import is_num
from .untrusted import term_text


def is_terminal(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):   # closed, or no isatty
        return False


def fmt_duration(seconds):
    """"45s", "6m00s", "1h02m": the ETA at a glance."""
    s = int(round(max(0.0, seconds)))
    if s < 60:
        return "%ds" % s
    if s < 3600:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%dh%02dm" % (s // 3600, s % 3600 // 60)


def format_progress(done, total, elapsed_s, what="rows", prefix="matrix"):
    """One progress line: k/N, the rate so far, and the ETA at that rate
    (none before the first item is done: no rate to go by)."""
    line = "%s: %d/%d %s" % (prefix, done, total, what)
    if done <= 0 or elapsed_s <= 0:
        return line
    per_min = done / elapsed_s * 60.0
    line += ", %.1f %s/min" % (per_min, what)
    if done < total:
        line += ", ETA %s" % fmt_duration(elapsed_s / done * (total - done))
    else:
        line += ", done in %s" % fmt_duration(elapsed_s)
    return line


class Progress:
    """k/N of `total` items; step() after each one prints the line."""

    def __init__(self, total, what="rows", prefix="matrix", stream=None,
                 clock=time.monotonic):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = is_terminal(self.stream)
        self.total, self.what, self.prefix = total, what, prefix
        self.clock = clock
        self.start = clock()
        self.done = 0

    def step(self, n=1):
        self.done += n
        if self.enabled:
            print(format_progress(self.done, self.total,
                                  self.clock() - self.start, self.what,
                                  self.prefix),
                  file=self.stream, flush=True)


def format_watch(rec):
    """One line of a verified WATCH record: seq, time, and per clock the
    TSC's cumulative offset (ms) and its last drift (ppm +/- uncertainty);
    the events so far when there are any.  Texts from the record are
    untrusted: controls shown, lengths cut."""
    t = rec.get("elapsed_rtc_s")
    if not is_num(t):
        t = rec.get("elapsed_tsc_s")
    parts = []
    for o in rec.get("offsets") or []:
        if not isinstance(o, dict):
            continue
        name = term_text(str(o.get("against")), 24)
        cum = o.get("cumulative_ns")
        drift, unc = o.get("drift_ppm"), o.get("uncertainty_ppm")
        text = "tsc vs %s %s" % (
            name, "%+.3f ms" % (cum / 1e6) if is_num(cum) else "-")
        if is_num(drift):
            text += ", drift %+.2f ppm" % drift
            if is_num(unc):
                text += " +/- %.2f" % unc
        parts.append(text)
    events = rec.get("events_total")
    if not is_num(events):
        events = len(rec.get("events") or [])
    return "watch seq %s at %s: %s%s" % (
        rec.get("seq"), "%.1f s" % t if is_num(t) else "-",
        "; ".join(parts) or "no offsets",
        "; %d event(s)" % events if events else "")


class WatchLive:
    """Fed the serial bytes as they arrive (a write()/flush() sink beside
    the console echo); prints format_watch() of every WATCH frame once its
    END marker is in and the frame verifies (watchlog's own check), and a
    line naming a frame that does not."""

    def __init__(self, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = is_terminal(self.stream)
        self.frame = None       # the lines of the frame being read
        self.partial = b""

    def write(self, chunk):
        if not self.enabled:
            return len(chunk)
        data = self.partial + bytes(chunk)
        lines = data.split(b"\n")
        self.partial = lines.pop()
        for raw in lines:
            self._line(raw.decode("utf-8", "replace").rstrip("\r"))
        return len(chunk)

    def _line(self, line):
        if watchlog.BEGIN_RE.search(line):
            self.frame = [line]
            return
        if self.frame is None:
            return
        self.frame.append(line)
        if watchlog.END_RE.search(line):
            entries = watchlog.scan("\n".join(self.frame) + "\n", "serial")
            self.frame = None
            for e in entries:
                if e["record"] is not None:
                    text = format_watch(e["record"])
                else:
                    text = "watch seq %s: does not verify (%s)" % (
                        e["seq"], term_text(e["error"], 120))
                print(text, file=self.stream, flush=True)

    def flush(self):
        pass

    def close(self):
        pass


class Tee:
    """One echo sink in front of several (process.run_argv takes one)."""

    def __init__(self, *sinks):
        self.sinks = [s for s in sinks if s is not None]

    def write(self, chunk):
        for s in self.sinks:
            s.write(chunk)
        return len(chunk)

    def flush(self):
        for s in self.sinks:
            s.flush()

    def close(self):
        for s in self.sinks:
            if hasattr(s, "close"):
                s.close()


def _count(n):
    return "{:,}".format(n)


def progress_line(what, k, n, elapsed):
    """One progress line: "loading inputs 1,234/5,000, 410/s, ETA 9 s".
    The rate and ETA only once there is something to measure them by."""
    line = "%s %s/%s" % (what, _count(k), _count(n))
    if k > 0 and elapsed > 0:
        rate = k / elapsed
        line += ", %s/s" % (("%.0f" % rate) if rate >= 10 else
                            ("%.1f" % rate))
        if k < n:
            line += ", ETA %s" % fmt_duration((n - k) / rate)
        else:
            line += ", %s" % fmt_duration(elapsed)
    return line


class LiveCount:
    """k/N on a terminal.  update(k) as work is done, done() at the end;
    nothing at all when the stream is not a terminal."""

    INTERVAL = 0.5      # s between two updates: a terminal, not a log

    def __init__(self, stream, what, total=0, clock=time.monotonic):
        self.stream = stream
        self.what = what
        self.total = total
        self.clock = clock
        self.on = stream is not None and is_terminal(stream)
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
