"""One --help layout for every clockprobe command.

Each tool's help is also its manual page (help2man reads `--help`, see
mk/package.mk), so it has to say everything a man page says: every
option with its default and the exit statuses.  Formatter appends
"(default: X)" to each option whose default is a real value (not None,
False, an empty string or list) unless its text already names the default, and
keeps the description and epilog as written so that an exit-status table
stays a table.  exit_status() writes that table the same way for all.
"""

import argparse


class Formatter(argparse.RawDescriptionHelpFormatter):
    # "Usage:", "Options:", "Exit status:": the headings help2man turns
    # into the man page's SYNOPSIS, OPTIONS and EXIT STATUS sections.
    def add_usage(self, usage, actions, groups, prefix=None):
        return super().add_usage(usage, actions, groups,
                                 "Usage: " if prefix is None else prefix)

    def start_section(self, heading):
        return super().start_section(heading[:1].upper() + heading[1:]
                                     if heading else heading)

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (not action.option_strings or "default" in text
                or default is None or default is False
                or default in ("", []) or default is argparse.SUPPRESS
                or isinstance(action, (argparse._HelpAction,
                                       argparse._VersionAction))):
            return text
        sep = " " if text else ""
        return text + sep + "(default: %(default)s)"


def exit_status(*rows):
    """The epilog's exit-status table: exit_status((0, "ok"), (1, ...))."""
    width = max(len(str(code)) for code, _ in rows)
    return "Exit status:\n" + "\n".join(
        "  %-*s  %s" % (width, code, text) for code, text in rows)


def epilog(*parts):
    """Paragraphs of an epilog, blank-line separated; None parts dropped."""
    return "\n\n".join(p.strip("\n") for p in parts if p)
