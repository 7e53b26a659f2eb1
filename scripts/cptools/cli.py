"""`clockprobe COMMAND ...`: the one command in front of the tools.

Each subcommand is an existing tool's public face -- its `main(argv)` --
so `clockprobe run --smp 4` and `scripts/run --smp 4` are the same code
with the same options, help and exit statuses; the scripts under scripts/
stay as they are (the README's `make run` and `make test` call them).
Where a tool is a script without a .py suffix it is loaded from its file
(TOOLS/run, TOOLS/matrix, ...), in the source tree or the installed copy
alike (cptools/paths.py).

The help of every command (`clockprobe --help`, `clockprobe COMMAND
--help`) is also its manual page: mk/package.mk runs help2man on it.
"""

import argparse
import difflib
import importlib
import importlib.machinery
import importlib.util
import os
import sys

from . import helpfmt, paths

PROG = "clockprobe"

# name: (where its main(argv) is, one line for the command list)
#   "script:NAME"  the script TOOLS/NAME (scripts/NAME in the tree)
#   "module:NAME"  cptools.NAME
COMMANDS = {
    "run": ("script:run",
            "boot the probe once under QEMU and verify its report"),
    "matrix": ("script:matrix",
               "boot a matrix of QEMU configurations (CI), JUnit/TAP out"),
    "compare": ("script:compare",
                "put reports side by side, A/B against a baseline, fleet "
                "outputs"),
    "verdict": ("script:verdict",
                "judge a saved report again, for another Linux release"),
    "watch": ("script:watch",
              "verify and summarise the records of a watch run"),
    "extract": ("module:extract",
                "the verified report out of a captured serial log"),
    "images": ("module:images",
               "the disk image in every VM and cloud format"),
    "guest": ("module:guest",
              "run clockprobe-guest, the collector inside a Linux guest"),
}

EXIT_USAGE = 2


def load(command):
    """The module behind a command (a script is loaded from its file)."""
    kind, name = COMMANDS[command][0].split(":")
    if kind == "module":
        return importlib.import_module("cptools." + name)
    path = os.path.join(paths.TOOLS, name)
    loader = importlib.machinery.SourceFileLoader("clockprobe_" + name, path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class _Captured(Exception):
    def __init__(self, parser):
        super().__init__()
        self.parser = parser


def parser_of(command):
    """The argparse parser a command builds, without running it: its
    parse_args is stopped on the first call and the parser handed back
    (the completion script and the tests read options from it)."""
    mod = load(command)
    real = argparse.ArgumentParser.parse_args

    def capture(self, *a, **kw):
        raise _Captured(self)

    argparse.ArgumentParser.parse_args = capture
    old_argv0 = sys.argv[0]
    sys.argv[0] = "%s %s" % (PROG, command)
    try:
        if command == "guest":
            p = mod.parser()
            p.add_argument("args", nargs="*", metavar="ARGS")
            return p
        mod.main(["--help"])
    except _Captured as c:
        return c.parser
    finally:
        argparse.ArgumentParser.parse_args = real
        sys.argv[0] = old_argv0
    raise RuntimeError("%s: main() returned without parsing its "
                       "arguments" % command)


def top_parser():
    width = max(len(c) for c in COMMANDS)
    commands = "Commands:\n" + "\n".join(
        "  %-*s  %s" % (width, c, COMMANDS[c][1]) for c in COMMANDS)
    p = argparse.ArgumentParser(
        prog=PROG, usage="%(prog)s [-h] [--version] COMMAND [ARGS ...]",
        description="Measure how a machine keeps time beneath any guest "
                    "OS: boot the clockprobe\nprobe under QEMU (or on any "
                    "VM or machine from its images), then read,\ncompare "
                    "and judge its reports.",
        formatter_class=helpfmt.Formatter,
        epilog=helpfmt.epilog(
            commands,
            "`%s COMMAND --help` (or `%s help COMMAND`) lists the "
            "command's\noptions with their defaults and exit statuses; "
            "each command has a manual\npage, clockprobe-COMMAND(1).  "
            "The report format: clockprobe-report(5)." % (PROG, PROG),
            helpfmt.exit_status(
                ("N", "the command's own (see COMMAND --help): 0 success, "
                      "1 failure,\n     3 --fail-on matched"),
                (EXIT_USAGE, "usage error (no command, an unknown one, a "
                             "bad option)"))))
    p.add_argument("--version", action="version",
                   version="%s %s" % (PROG, paths.version()),
                   help="print the version (the probe's PROBE_VERSION) "
                        "and exit")
    p.add_argument("command", metavar="COMMAND",
                   help="one of: " + ", ".join(COMMANDS))
    p.add_argument("args", nargs="*", metavar="ARGS",
                   help="the command's own arguments")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    top = top_parser()
    if not argv:
        top.print_usage(sys.stderr)
        print("%s: no command given (one of: %s; --help for more)"
              % (PROG, ", ".join(COMMANDS)), file=sys.stderr)
        return EXIT_USAGE
    first = argv[0]
    if first in ("-h", "--help", "--version"):
        top.parse_args([first])  # prints and exits 0
    if first == "help":
        if len(argv) == 1:
            top.print_help()
            return 0
        first, argv = argv[1], [argv[1], "--help"]
    if first.startswith("-"):
        top.error("unknown option %s before the command" % first)
    if first not in COMMANDS:
        near = difflib.get_close_matches(first, COMMANDS, 1)
        top.error("unknown command %r%s (one of: %s)" % (
            first, "; did you mean %r?" % near[0] if near else "",
            ", ".join(COMMANDS)))
    mod = load(first)
    # argparse takes its prog from sys.argv[0]: the tools' usage lines
    # then read "clockprobe run ...", not "run ...".
    sys.argv[0] = "%s %s" % (PROG, first)
    rc = mod.main(argv[1:])
    return 0 if rc is None else rc
