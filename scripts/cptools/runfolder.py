"""Each `clockprobe run` in a folder of its own, and what it ran.

A run used to write build/run/serial.log and its reports in place, so a
run that failed at once (`--machine q36`) left a 0-byte serial.log and
erased the report a previous run had verified.  Now (docs/run-folder.md):

    OUT/20250614-093012Z/      one run: serial.log, report.raw.json,
                               report.json, run.record
    OUT/20250614-093512Z-2/    a second run in the same second
    OUT/latest -> 20250614-093012Z
                               the newest run whose report verified; moved
                               (atomically) only once that run's folder
                               is complete, never by a run that failed

run.record is JSON (not named *.json, so that `compare OUT` does not take
it for a report): the QEMU command line, the QEMU binary and version, the
host it ran on, and how the run ended.  The matrix writes the same record
per row as NAME.record (record()).
"""

import datetime
import json
import os
import platform
import shlex
import socket

from . import paths, qemu

LATEST = "latest"
RECORD = "run.record"
RECORD_SCHEMA = 1


def _stamp(now=None):
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y%m%d-%H%M%SZ")


def new_run_dir(base, now=None):
    """Make and return base/STAMP (or STAMP-2, -3, ... when taken): a
    folder no earlier run wrote in.  os.mkdir is the claim, so two runs
    started in the same second get two folders."""
    os.makedirs(base, exist_ok=True)
    stamp = _stamp(now)
    for n in range(1, 1000):
        path = os.path.join(base, stamp if n == 1 else "%s-%d" % (stamp, n))
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            continue
    raise OSError("%s: 999 runs in one second already" % base)


def point_latest(base, run_dir):
    """base/latest -> run_dir's name, replaced in one rename so that a
    reader never finds it missing or half-made.  A `latest` that is a real
    folder (not a link) is never replaced: OSError names it."""
    link = os.path.join(base, LATEST)
    if os.path.lexists(link) and not os.path.islink(link):
        raise OSError("%s exists and is not a link: not replaced" % link)
    tmp = os.path.join(base, ".%s.%d" % (LATEST, os.getpid()))
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(os.path.basename(run_dir), tmp)
    os.replace(tmp, link)
    return link


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def host_facts():
    """The host a run ran on, as far as it says without privileges."""
    u = os.uname()
    return {"hostname": socket.gethostname(), "kernel": u.release,
            "os": u.sysname, "arch": u.machine, "cpu_model": _cpu_model(),
            "cpus": os.cpu_count(), "python": platform.python_version()}


def record(argv, started, ended=None, exit_status=None, status=None,
           verified=None, report_files=()):
    """The run.record dict (docs/run-folder.md names every field)."""
    binary = argv[0] if argv else None
    return {
        "record_schema": RECORD_SCHEMA,
        "tool_version": paths.version(),
        "qemu": {"argv": list(argv),
                 "command_line": " ".join(shlex.quote(a) for a in argv),
                 "binary": binary,
                 "version": qemu.qemu_version(binary) if binary else None},
        "host": host_facts(),
        "started": started,
        "ended": ended,
        "exit_status": exit_status,
        "status": status,
        "report_verified": verified,
        "report_files": list(report_files),
    }


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds")


def write_record(path, rec):
    """Write the record whole or not at all (paths.write_atomic)."""
    paths.write_atomic(path, json.dumps(rec, indent=2, ensure_ascii=False) + "\n")
    return path
