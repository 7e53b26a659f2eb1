"""`clockprobe guest`: run the in-guest collector, clockprobe-guest.

clockprobe-guest is a static C program (build/clockprobe-guest, issue 27)
that runs inside a live Linux guest and writes the same kind of framed
report as the probe: the clocksource the kernel chose, its history in the
kernel log, what a clock_gettime() costs.  This command only finds it
(the source tree's build/, or the installed copy next to the tools) and
runs it with the given arguments; its exit status is the program's own.
"""

import argparse
import os
import subprocess
import sys

from . import helpfmt, paths

EXIT_NOT_BUILT = 2


def parser():
    return argparse.ArgumentParser(
        usage="%(prog)s [-h] [--] [ARGS ...]",
        description="Run clockprobe-guest, the in-guest collector, inside "
                    "a running Linux guest.",
        formatter_class=helpfmt.Formatter,
        epilog=helpfmt.epilog(
            "ARGS go to clockprobe-guest unchanged (`--` first to pass an "
            "option this\ncommand would take itself, e.g. `guest -- "
            "--help` for the program's own\nhelp).  The program: %s."
            % paths.GUEST,
            helpfmt.exit_status(
                ("N", "clockprobe-guest's own exit status"),
                (EXIT_NOT_BUILT, "also: clockprobe-guest is not built or "
                                 "not installed here"))))


def main(argv, stderr=None):
    stderr = stderr or sys.stderr
    argv = list(argv)
    p = parser()
    p.add_argument("args", nargs="*", metavar="ARGS",
                   help="arguments for clockprobe-guest")
    if argv[:1] in (["-h"], ["--help"]):
        p.print_help()
        return 0
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not os.access(paths.GUEST, os.X_OK):
        hint = ("build it with make" if paths.IN_TREE else
                "this installation was built without it")
        print("guest: %s not found: clockprobe-guest is not built yet (%s)"
              % (paths.GUEST, hint), file=stderr)
        return EXIT_NOT_BUILT
    try:
        return subprocess.run([paths.GUEST] + argv).returncode
    except KeyboardInterrupt:
        return 130
