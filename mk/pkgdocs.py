#!/usr/bin/env python3
"""Manual pages and bash completion for an installed clockprobe.

    mk/pkgdocs.py man --bin BIN --out MANDIR --prefix PREFIX
    mk/pkgdocs.py completion --bin BIN --out FILE

Run by `make install` on the copy it has just installed (BIN is
DESTDIR/PREFIX/bin/clockprobe), so that every page shows the installed
defaults -- share/clockprobe/clockprobe.img, not a source tree's build/:

  clockprobe(1), clockprobe-COMMAND(1)  help2man on `clockprobe --help`
      and `clockprobe COMMAND --help` (the help text is the one source);
      its "Exit status:" and "Commands:" headings become sections.  Each
      page also gets, through help2man --include, EXAMPLES (written
      here, one table), ENVIRONMENT (every CLOCKPROBE_ name the installed
      tools' text holds, found there, so a name cannot go unlisted) and
      FILES (the installed layout, from --prefix).
  clockprobe-report(5)  the report's framing and every name of the first
      two levels of docs/report-schema.json, with its type, unit and
      description -- generated from the schema, so it cannot fall behind.
  completion  a bash-completion file (Debian's convention: loaded on
      demand from share/bash-completion/completions/clockprobe) with each
      command's options, choices and which options take files, read from
      the commands' own argparse parsers.

SOURCE_DATE_EPOCH (set by the Makefile from the last commit) dates the
pages, so two builds of one commit give the same bytes.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

SECTION_FIXES = {  # help2man subsection -> man page section
    '.SS "Exit status:"': '.SH "EXIT STATUS"',
    '.SS "Commands:"': '.SH COMMANDS',
}
SUMMARY = "measure how a machine keeps time beneath any guest OS"


def tools_of(binary):
    """Import cptools from the installed copy next to BIN."""
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(binary)))
    tools = os.path.join(prefix, "lib", "clockprobe")
    sys.path.insert(0, tools)
    from cptools import cli, paths  # noqa: E402
    if paths.IN_TREE or os.path.abspath(paths.TOOLS) != tools:
        raise SystemExit("pkgdocs: %s is not an installed clockprobe"
                         % binary)
    return cli, paths


def roff(text):
    """Plain text as roff: backslashes escaped, no line starting a
    request."""
    text = text.replace("\\", "\\e")
    lines = []
    for line in text.split("\n"):
        if line[:1] in (".", "'"):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def date_line():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    t = time.gmtime(int(epoch)) if epoch else time.gmtime()
    return time.strftime("%B %Y", t)


def see_also(cli, this):
    pages = ["clockprobe(1)"] + ["clockprobe-%s(1)" % c for c in cli.COMMANDS]
    pages.append("clockprobe-report(5)")
    out = []
    for p in pages:
        name, sect = p[:-3], p[-2]
        if name != this:
            out.append(".BR %s (%s)" % (name, sect))
    return ",\n".join(out)


def images_rows(share, page):
    rows = [("clockprobe.img", "GPT disk image, one FAT ESP (run --boot uefi; "
             "dd it to a USB stick)"),
            ("clockprobe.iso", "UEFI El Torito CD image (run --boot iso)"),
            ("clockprobe.efi", "the probe, a UEFI application (run --boot "
             "fat; images --efi)"),
            ("clockprobe.elf", "the probe for direct kernel boot, PVH "
             "(run --boot pvh)"),
            ("matrix.conf", "the matrix's rows (matrix --conf)"),
            ("report-schema.json", "the report's JSON Schema, every name "
             "described (clockprobe-report(5))"),
            ("guest-report-schema.json", "the JSON Schema of "
             "clockprobe-guest's report")]
    if page == "images":
        rows = rows[:3]
    return "\n".join(".TP\n.I %s\n%s" % (os.path.join(share, f), roff(t))
                     for f, t in rows)


# ------------------------------------------ EXAMPLES, ENVIRONMENT, FILES

# Commands a user types, with what each does: a few per page, the common
# case first.  (The options themselves are the page's OPTIONS.)
EXAMPLES = {
    "clockprobe": [
        ("clockprobe run --accel kvm",
         "boot the probe once under QEMU/KVM; the verified report goes to "
         "./clockprobe-run/"),
        ("clockprobe images --settings \"wait=900 resend=30\"",
         "every VM and cloud image, to boot the probe anywhere"),
        ("clockprobe extract serial.log > report.json",
         "the verified report out of a captured serial console"),
        ("clockprobe compare --kernels lts --fail-on critical logs/",
         "a fleet side by side, failing (exit 3) where a maintained kernel "
         "gets a critical warning"),
    ],
    "run": [
        ("clockprobe run", "boot the packaged disk image under QEMU (KVM "
         "where it works, else TCG) and verify its report"),
        ("clockprobe run --boot pvh --accel tcg --smp 4",
         "direct-boot the PVH ELF on four vCPUs without KVM"),
        ("clockprobe run --fail-on critical --kernels lts",
         "exit 3 when a maintained Linux kernel would get a critical "
         "warning here"),
    ],
    "matrix": [
        ("clockprobe matrix --fast --tap",
         "the quick rows of the packaged matrix.conf, TAP on stdout"),
        ("clockprobe matrix --only 'q35*' --out ci-matrix",
         "the q35 rows, logs and reports in ./ci-matrix/"),
    ],
    "compare": [
        ("clockprobe compare a.log b.log",
         "two reports side by side (Markdown)"),
        ("clockprobe compare --baseline old.json new.json",
         "A/B: ratios and regressions against old.json (exit 1 on one)"),
        ("clockprobe compare --kernels lts --sqlite fleet.db logs/",
         "a fleet into SQLite, each report judged for every maintained "
         "kernel"),
        ("clockprobe compare --html -o fleet.html logs/",
         "the fleet page (without charts where python3-matplotlib is "
         "missing)"),
    ],
    "verdict": [
        ("clockprobe verdict --kernel 6.1 report.json",
         "what Debian 12's kernel would choose on the measured machine"),
        ("clockprobe verdict --check serial.log",
         "judge again and compare with the report's own verdict"),
    ],
    "watch": [
        ("clockprobe watch --svg watch.svg serial.log",
         "verify a watch run's records and chart them"),
    ],
    "extract": [
        ("clockprobe extract serial.log > report.json",
         "the verified report, pretty-printed"),
        ("clockprobe extract --raw - < console.txt",
         "the JSON exactly as framed, from stdin"),
    ],
    "images": [
        ("clockprobe images --list", "which images exist and where"),
        ("clockprobe images --formats vhd --settings "
         "\"wait=900 resend=30 label=aws\"",
         "the VHD an AWS import takes, waiting 15 minutes for the console"),
    ],
    "guest": [
        ("clockprobe guest --quiet > guest.log",
         "inside a running Linux guest: what its kernel chose, framed"),
        ("clockprobe compare probe.log guest.log",
         "predicted (the probe) against actual (the guest)"),
    ],
}

# What each CLOCKPROBE_ name does where no option's help names it (an
# option's help that does is the description: "the default of --x").
ENV_TEXT = {
    "CLOCKPROBE_DATADIR": "the folder the boot images, matrix.conf and "
                          "the schemas are read from instead of the "
                          "installed share/clockprobe",
}
# Names a tool builds from a prefix (cptools/matrixconf.py: the image of
# a matrix row's boot kind), so no text holds each whole: listed here.
for _kind in ("UEFI", "ISO", "FAT", "PVH"):
    ENV_TEXT["CLOCKPROBE_IMAGE_" + _kind] = (
        "the image a matrix row with boot=%s boots when the row names "
        "none" % _kind.lower())
ENV_RE = re.compile(r"\bCLOCKPROBE_[A-Z0-9_]*[A-Z0-9]\b")


def env_names(tools):
    """{name: [files]}: every CLOCKPROBE_ name in the installed tools'
    text (the commands and cptools/*.py) -- a name the tools read is
    written there, so none is left out of ENVIRONMENT."""
    out = {}
    files = [os.path.join(tools, n) for n in sorted(os.listdir(tools))]
    files += [os.path.join(tools, "cptools", n) for n in
              sorted(os.listdir(os.path.join(tools, "cptools")))
              if n.endswith(".py")]
    for path in files:
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue    # verdict-judge, clockprobe-guest: programs
        for name in ENV_RE.findall(text):
            out.setdefault(name, []).append(os.path.basename(path))
    return out


def env_options(cli):
    """{name: ["clockprobe CMD --opt", ...]} from the commands' parsers:
    the options whose help names an environment name."""
    out = {}
    for cmd in cli.COMMANDS:
        for a in cli.parser_of(cmd)._actions:
            for name in ENV_RE.findall(a.help or ""):
                if a.option_strings:
                    out.setdefault(name, []).append(
                        "clockprobe %s %s" % (cmd, max(a.option_strings,
                                                      key=len)))
    return out


def environment_section(cli, paths):
    names = env_names(paths.TOOLS)
    opts = env_options(cli)
    rows = []
    for name in sorted(set(names) | set(opts) | set(ENV_TEXT)):
        if name in opts:
            text = "the default of " + ", ".join(
                "\\fB%s\\fR" % roff(o) for o in opts[name])
            if name in ENV_TEXT:
                text = roff(ENV_TEXT[name]) + "; " + text
        elif name in ENV_TEXT:
            text = roff(ENV_TEXT[name])
        else:
            raise SystemExit(
                "pkgdocs: %s (read in %s) is in no option's help and not "
                "in ENV_TEXT: say what it does in one of them"
                % (name, ", ".join(sorted(set(names[name])))))
        rows.append(".TP\n.B %s\n%s" % (name, text))
    rows.append(".TP\n.B XDG_CACHE_HOME\n" + roff(
        "where the installed tools keep their cache (the KVM check's "
        "answer), in clockprobe/ below it; default ~/.cache"))
    rows.append(".PP\n" + roff(
        "No other environment name is read, beyond the system's own "
        "(PATH, HOME, COLUMNS for the help's width, SOURCE_DATE_EPOCH "
        "for reproducible image dates): a generic IMAGE=, CPU= or QEMU= "
        "in the environment changes nothing.  An option always wins over "
        "its environment name."))
    return "\n".join(rows)


def examples_section(page):
    return "\n".join(".TP\n.B %s\n%s" % (roff(cmd), roff(what))
                     for cmd, what in EXAMPLES[page])


def files_section(prefix, page="clockprobe"):
    """The installed files a page's command uses (all of them on
    clockprobe(1))."""
    share = os.path.join(prefix, "share", "clockprobe")
    doc = os.path.join(prefix, "share", "doc", "clockprobe")
    rows = []
    if page in ("clockprobe", "run", "matrix", "images"):
        rows.append(images_rows(share, page))
    rows.append(".TP\n.I %s\n%s" % (os.path.join(doc, "README.md"), roff(
        "the manual in full: every setting, the report, the fleet "
        "outputs")))
    rows.append(".TP\n.I %s\n%s" % (os.path.join(doc, "docs", "platforms"),
                                     roff("how to boot the images on QEMU/"
                                          "libvirt, Proxmox, VMware, "
                                          "Hyper-V, Azure, AWS, GCE, bare "
                                          "metal, under Secure Boot")))
    rows.append(".TP\n.I %s\n%s" % (os.path.join(doc, "docs"), roff(
        "the verdict's rules, watch mode, hostile machines, load, the "
        "newest devices, CI pipelines")))
    if page in ("clockprobe", "run", "matrix"):
        rows.append(".TP\n.I ~/.cache/clockprobe\n" + roff(
            "the cache (XDG_CACHE_HOME): whether KVM really boots here"))
    if page in ("clockprobe", "verdict", "compare"):
        rows.append(".TP\n.I %s\n%s" % (
            os.path.join(prefix, "lib", "clockprobe", "verdict-judge"),
            roff("the verdict rules compiled for the host: verdict, and "
                 "compare --kernels for reports older than their "
                 "per-kernel judgment")))
    return "\n".join(rows)


def help2man(program, out, name, section="1", include=None, version=None,
             datadir=None, staged=None, prefix=None):
    argv = ["help2man", "--no-info", "--no-discard-stderr",
            "--section", section, "--manual", "clockprobe manual",
            "--name", name, "--output", out]
    if version:
        argv += ["--version-string", version]
    if include:
        argv += ["--include", include]
    # One line per usage and per option: help2man reads a wrapped usage's
    # first line only (argparse wraps at the terminal's COLUMNS).
    env = dict(os.environ, COLUMNS="1000")
    if datadir:  # defaults shown as installed, not as staged in DESTDIR
        env["CLOCKPROBE_DATADIR"] = datadir
    subprocess.run(argv + [program], check=True, env=env)
    with open(out) as f:
        page = f.read()
    for old, new in SECTION_FIXES.items():
        page = page.replace(old, new)
    if staged and prefix and staged != prefix:
        # A path the help shows (a document, the judge) is the staged
        # copy's, DESTDIR/PREFIX/...: the page names PREFIX/..., where the
        # package puts it.  help2man writes '-' as '\-': both spellings.
        for old, new in ((staged, prefix), (staged.replace("-", "\\-"),
                                            prefix.replace("-", "\\-"))):
            page = page.replace(old + "/", new + "/")
    with open(out, "w") as f:
        f.write(page)


def make_man(binary, out_dir, prefix):
    cli, paths = tools_of(binary)
    version = paths.version()
    datadir = os.path.join(prefix, "share", "clockprobe")
    staged = os.path.dirname(os.path.dirname(os.path.abspath(binary)))
    man1, man5 = os.path.join(out_dir, "man1"), os.path.join(out_dir, "man5")
    os.makedirs(man1, exist_ok=True)
    os.makedirs(man5, exist_ok=True)
    environment = environment_section(cli, paths)
    with tempfile.TemporaryDirectory() as tmp:
        inc = os.path.join(tmp, "clockprobe.h2m")
        with open(inc, "w") as f:
            f.write("[EXAMPLES]\n%s\n\n[ENVIRONMENT]\n%s\n\n[FILES]\n%s\n\n"
                    "[SEE ALSO]\n%s\n" % (
                        examples_section("clockprobe"), environment,
                        files_section(prefix), see_also(cli, "clockprobe")))
        help2man(binary, os.path.join(man1, "clockprobe.1"), SUMMARY,
                 include=inc, datadir=datadir, staged=staged, prefix=prefix)
        for cmd, (_, summary) in cli.COMMANDS.items():
            page = "clockprobe-" + cmd
            # help2man names the page after the program it runs.
            wrapper = os.path.join(tmp, page)
            with open(wrapper, "w") as f:
                f.write("#!/bin/sh\nexec %s %s \"$@\"\n"
                        % (shlex.quote(os.path.abspath(binary)), cmd))
            os.chmod(wrapper, 0o755)
            inc = os.path.join(tmp, page + ".h2m")
            extra = ""
            if cmd == "guest" and os.access(paths.GUEST, os.X_OK):
                # `clockprobe guest ARGS` is clockprobe-guest ARGS: the
                # page is the program's own help (its options, its exit
                # statuses), which is what the arguments go to.
                wrapper = paths.GUEST
                summary = "report how this running Linux guest keeps time"
                extra = ("[NOTES]\nAlso run as \\fBclockprobe guest\\fR "
                         "[\\fB\\-\\-\\fR] \\fIARGS\\fR...: the "
                         "arguments go to this program unchanged.\n\n")
            with open(inc, "w") as f:
                f.write("%s[EXAMPLES]\n%s\n\n[ENVIRONMENT]\n%s\n\n"
                        "[FILES]\n%s\n\n[SEE ALSO]\n%s\n" % (
                            extra, examples_section(cmd), environment,
                            files_section(prefix, cmd),
                            see_also(cli, page)))
            help2man(wrapper, os.path.join(man1, page + ".1"), summary,
                     include=inc, version=version, datadir=datadir,
                     staged=staged, prefix=prefix)
        report_page(paths.SCHEMA, os.path.join(man5, "clockprobe-report.5"),
                    version, prefix, cli)


# --------------------------------------------------- clockprobe-report(5)

def _resolve(schema, node):
    """Follow local $refs ("#/$defs/source") to the node they name."""
    for _ in range(16):
        if not (isinstance(node, dict) and
                str(node.get("$ref", "")).startswith("#/")):
            break
        target = schema
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def _members(schema, node):
    """(properties, is_array) of an object or an array of objects."""
    node = _resolve(schema, node)
    if node.get("type") == "array" or "items" in node:
        items = _resolve(schema, node.get("items") or {})
        return items.get("properties") or {}, True
    return node.get("properties") or {}, False


def _kind(schema, node):
    node = _resolve(schema, node)
    t = node.get("type")
    if isinstance(t, list):
        t = " or ".join(t)
    if t is None:
        for comb in ("anyOf", "oneOf"):
            if comb in node:
                t = " or ".join(sorted({str(_resolve(schema, n).get("type"))
                                        for n in node[comb]}))
    unit = node.get("x-unit")
    return (t or "any") + (", " + unit if unit else "")


def report_page(schema_path, out, version, prefix, cli):
    with open(schema_path) as f:
        schema = json.load(f)
    share = os.path.join(prefix, "share", "clockprobe", "report-schema.json")
    w = []
    w.append('.TH CLOCKPROBE-REPORT 5 "%s" "clockprobe %s" '
             '"clockprobe manual"' % (date_line(), version))
    w.append(".SH NAME\nclockprobe-report \\- the clockprobe report format")
    w.append(".SH DESCRIPTION\n%s" % roff(
        "Each boot of the probe ends with one report: a JSON document "
        "written on the serial console between two marker lines, and "
        "also to \\clockprobe-report.json on the boot volume when it is "
        "writable.  The framing lets a reader find the report in a noisy "
        "log and tell a truncated copy from a whole one; "
        "clockprobe-extract(1) verifies it, clockprobe-compare(1) and "
        "clockprobe-verdict(1) read it."))
    w.append(".SH FRAMING\n.nf\n"
             "==== CLOCKPROBE REPORT BEGIN schema=1 ====\n"
             "{...one line of JSON...}\n"
             "==== CLOCKPROBE REPORT END crc32=\\fIXXXXXXXX\\fP "
             "bytes=\\fIN\\fP ====\n.fi\n.PP\n" + roff(
                 "The JSON stands on one line, so a terminal's CR/LF "
                 "translation cannot change the bytes; crc32 is the zlib "
                 "(IEEE) CRC-32 of exactly those bytes, in eight hex "
                 "digits, and bytes their count.  A copy whose length or "
                 "CRC does not match is rejected, never partly used.  "
                 "The last complete framed report in a log counts."))
    w.append(".SH GUEST REPORT\n" + roff(
        "clockprobe-guest, run inside a Linux guest (clockprobe guest), "
        "frames its report the same way between CLOCKPROBE GUEST BEGIN "
        "and END lines; its names are described by "
        "guest-report-schema.json next to the probe's schema, and "
        "clockprobe-compare(1) pairs it with the probe's report of the "
        "same VM (SMBIOS UUID, or label)."))
    w.append(".SH COMPATIBILITY\n" + roff(
        "The schema is a contract: names are only ever added, never "
        "renamed or removed (a reader must accept names it does not "
        "know); a breaking change would raise schema.  Every \"cycles\" "
        "figure is in TSC ticks, not core clocks.  Absent values are "
        "null, never 0."))
    w.append(".SH FIELDS\n" + roff(
        "The top two levels of the report, as described by the schema "
        "(type, unit, meaning); the schema file describes every level."))
    for name, node in schema["properties"].items():
        node_r = _resolve(schema, node)
        members, is_array = _members(schema, node)
        w.append('.SS "%s"' % (name + ("[]" if is_array else "")))
        w.append(".RI ( %s )\n%s" % (_kind(schema, node), roff(
            node_r.get("description", ""))))
        for sub, subnode in members.items():
            sub_r = _resolve(schema, subnode)
            w.append(".TP\n.B %s\n(%s) %s" % (
                roff(sub), roff(_kind(schema, subnode)),
                roff(sub_r.get("description", ""))))
    w.append(".SH FILES\n.TP\n.I %s\n%s" % (share, roff(
        "the JSON Schema (Draft 2020-12) of the report: every name with "
        "its type, description and, for a figure, x-unit.")))
    w.append(".TP\n.I %s\n%s" % (
        os.path.join(os.path.dirname(share), "guest-report-schema.json"),
        roff("the same for clockprobe-guest's report.")))
    w.append(".SH SEE ALSO\n" + see_also(cli, "clockprobe-report"))
    with open(out, "w") as f:
        f.write("\n".join(w) + "\n")


# ------------------------------------------------------------ completion

# Option values that are files or folders; anything else (a number, a
# size, QEMU arguments) is free text with nothing to offer.
FILE_METAVARS = ("FILE", "PATH", "LOG", "REPORT", "A.json", "DB")
DIR_METAVARS = ("DIR",)


def _opt_kind(action):
    """How the word after an option completes: words, files, dirs, free;
    None for an option that takes no value."""
    if action.nargs == 0:
        return None
    if action.choices:
        return ("words", " ".join(str(c) for c in action.choices))
    mv = action.metavar or ""
    if mv in DIR_METAVARS:
        return ("dirs", "")
    if mv in FILE_METAVARS:
        return ("files", "")
    return ("free", "")


def make_completion(binary, out):
    cli, _ = tools_of(binary)
    from cptools import policy
    fail_on = " ".join(policy.SEVERITIES)
    cases = []
    for cmd in cli.COMMANDS:
        parser = cli.parser_of(cmd)
        opts, prev_cases = [], {}
        for a in parser._actions:
            if not a.option_strings:
                continue  # every positional is a file (a report, a log)
            opts += a.option_strings
            kind = _opt_kind(a)
            if kind is None:
                continue
            if a.dest == "fail_on":
                kind = ("words", fail_on)
            prev_cases.setdefault(kind, []).extend(a.option_strings)
        body = []
        for (k, words), names in sorted(prev_cases.items()):
            pat = "|".join(names)
            if k == "words":
                act = 'COMPREPLY=($(compgen -W "%s" -- "$cur"))' % words
            elif k == "files":
                act = "_filedir"
            elif k == "dirs":
                act = "_filedir -d"
            else:
                act = ":"  # a number, a size, free text: nothing to offer
            body.append("        %s) %s; return ;;" % (pat, act))
        cases.append(
            "    %s)\n        case $prev in\n%s\n        esac\n"
            "        if [[ $cur == -* ]]; then\n"
            "            COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n"
            "        else\n            _filedir\n        fi\n        ;;"
            % (cmd, "\n".join(body) or "        *) ;;", " ".join(opts)))
    text = """# bash completion for clockprobe(1)                    -*- shell-script -*-
# Generated by mk/pkgdocs.py from the commands' own options.

_clockprobe()
{
    local cur prev words cword
    _init_completion || return

    local commands="%s"
    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$commands help --help --version" -- "$cur"))
        return
    fi
    if [[ ${words[1]} == help ]]; then
        ((cword == 2)) && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    case ${words[1]} in
%s
    esac
} &&
    complete -F _clockprobe clockprobe

# ex: filetype=sh
""" % (" ".join(cli.COMMANDS), "\n".join(cases))
    with open(out, "w") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    m = sub.add_parser("man")
    m.add_argument("--bin", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--prefix", required=True,
                   help="the installed prefix the pages name (/usr)")
    c = sub.add_parser("completion")
    c.add_argument("--bin", required=True)
    c.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    sys.dont_write_bytecode = True
    if a.what == "man":
        make_man(a.bin, a.out, a.prefix)
    else:
        make_completion(a.bin, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
