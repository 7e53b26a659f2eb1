"""Run one QEMU argv to its end, whatever happens inside the guest.

A guest can hang, spin, or (nested KVM) leave QEMU alive after a fatal
error, so every run has a timeout, an optional early-stop watch, and kills
QEMU's whole process group.  The serial console arrives on stdout and is
kept (RunResult.log_text), streamed to a log file and/or echoed as it
arrives.  describe_status() puts the way a run ended into one line.
"""

import collections
import os
import selectors
import signal
import subprocess
import time

from .qemu import EXIT_COMPLETE, EXIT_FAILED, QemuError

RunResult = collections.namedtuple(
    "RunResult", "exit_status timed_out log_text seconds argv stderr")


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
    A binary that cannot be started (QEMU=PATH naming nothing) is a
    QemuError, like the other set-up problems, not a traceback.
    """
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as e:
        raise QemuError("cannot start %s: %s" % (argv[0], e.strerror or e))
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    timed_out, stop_reason = False, None
    logf = open(log_path, "wb") if log_path else None
    try:
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
