"""Run one QEMU argv to its end, whatever happens inside the guest.

A guest can hang, spin, or (nested KVM) leave QEMU alive after a fatal
error, so every run has a timeout, an optional early-stop watch, and kills
QEMU's whole process group.  The serial console arrives on stdout and is
kept (RunResult.log_text), streamed to a log file and/or echoed as it
arrives.  describe_status() puts the way a run ended into one line.

SIGTERM and SIGHUP (what `timeout`, a CI cancel, systemd and a closed
terminal send) end a run the way Ctrl-C does: ends_runs() turns them into
a Terminated exception in the main thread, after a SIGTERM to the process
group of every QEMU still running (QEMU runs in a session of its own, so
nothing else reaches it), and run_argv's own clean-up then waits for it
(SIGKILL after a grace).  The tool exits 128 + the signal's number (143,
129), as a shell reports a process the signal killed.
"""

import collections
import os
import selectors
import contextlib
import signal
import subprocess
import threading
import time

from .qemu import EXIT_COMPLETE, EXIT_FAILED, QemuError

RunResult = collections.namedtuple(
    "RunResult", "exit_status timed_out log_text seconds argv stderr")


# Every QEMU run_argv started and has not yet waited for: the signal
# handler stops them all (the matrix runs several at once, each in a
# worker thread the signal never reaches).
_live = set()
# Reentrant: the handler runs in the main thread, which may hold it.
_live_lock = threading.RLock()
END_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_stopping = threading.Event()


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: a BaseException like KeyboardInterrupt,
    so that no `except Exception` on the way swallows it."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name

    @property
    def exit_status(self):
        return 128 + self.signum


def _on_end_signal(signum, frame):
    # Once is enough: a second signal during the clean-up must not cut it
    # short and leave a QEMU behind.
    for s in END_SIGNALS:
        signal.signal(s, signal.SIG_IGN)
    with _live_lock:
        _stopping.set()     # no worker thread starts another QEMU
        procs = list(_live)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    raise Terminated(signum)


@contextlib.contextmanager
def ends_runs():
    """While inside: SIGTERM/SIGHUP stop every QEMU and raise Terminated.
    The previous handlers come back on the way out.  Outside the main
    thread (where Python cannot take signals) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, _on_end_signal) for s in END_SIGNALS}
    _stopping.clear()
    try:
        yield
    finally:
        _stopping.clear()
        for s, h in old.items():
            signal.signal(s, h)


def _kill_group(proc, grace=2.0):
    """Stop QEMU and anything it started; SIGKILL if SIGTERM is ignored."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_argv(argv, timeout, log_path=None, echo=None, watch=None):
    """Run a QEMU argv whose serial goes to stdio; return a RunResult.

    echo: a binary file object (e.g. sys.stdout.buffer) to stream the serial
      output to as it arrives.
    watch: optional callable(serial_text_so_far, stderr_text_so_far) -> str
      or None; a string stops the run early (recorded in stderr).  Used by the
      KVM check to recognise a "KVM internal error" hang.
    A binary that cannot be started (CLOCKPROBE_QEMU=PATH naming nothing) is a
    QemuError, like the other set-up problems, not a traceback.
    """
    start = time.monotonic()
    with _live_lock:    # the check and the start, one step for the handler
        if _stopping.is_set():
            raise QemuError("not started: the run is ending (SIGTERM or "
                            "SIGHUP)")
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE,
                                    start_new_session=True)
        except OSError as e:
            raise QemuError("cannot start %s: %s"
                            % (argv[0], e.strerror or e))
        _live.add(proc)
    # From here on a Terminated (or Ctrl-C) anywhere ends in the finally
    # below, which stops and waits for this QEMU.
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    timed_out, stop_reason = False, None
    logf = None
    try:
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        logf = open(log_path, "wb") if log_path else None
        while sel.get_map():
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            for key, _ in sel.select(timeout=min(left, 0.5)):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                key.data.extend(chunk)
                if key.data is out:
                    if logf:
                        logf.write(chunk)
                        logf.flush()
                    if echo is not None:
                        echo.write(chunk)
                        echo.flush()
            if watch is not None:
                stop_reason = watch(out.decode("latin-1"),
                                    err.decode("latin-1", "replace"))
                if stop_reason:
                    break
        if timed_out or stop_reason:
            _kill_group(proc)
        else:
            try:
                proc.wait(timeout=max(1.0, timeout - (time.monotonic()
                                                      - start)))
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
    finally:
        sel.close()
        if logf:
            logf.close()
        if proc.poll() is None:
            _kill_group(proc)
        with _live_lock:
            _live.discard(proc)
        proc.stdout.close()
        proc.stderr.close()
    stderr = err.decode("utf-8", "replace")
    if stop_reason:
        stderr += "\n[cpqemu] stopped: %s\n" % stop_reason
    status = None if (timed_out or stop_reason) else proc.returncode
    return RunResult(status, timed_out, out.decode("utf-8", "replace"),
                     time.monotonic() - start, argv, stderr)


def describe_status(result):
    """One line that says how a run ended."""
    if result.timed_out:
        return "timed out after %.0f s" % result.seconds
    st = result.exit_status
    if st == EXIT_COMPLETE:
        return "probe complete (status 33)"
    if st == EXIT_FAILED:
        return "probe failed (status 35)"
    if st is None:
        last = result.stderr.strip().splitlines()[-1]
        return last.replace("[cpqemu] ", "")
    if st is not None and st < 0:
        return "QEMU killed by signal %d" % -st
    tail = result.stderr.strip().splitlines()
    return "QEMU exit status %s%s" % (st, (": " + tail[-1]) if tail else "")
