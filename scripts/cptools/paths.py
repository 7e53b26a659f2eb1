"""Where clockprobe's files are: a source tree, or an installed copy.

The same modules run from two layouts, told apart by where this file is:

  source tree   REPO/scripts/cptools/  (REPO/include/probe.h exists)
                images, PVH ELF, verdict-judge: REPO/build/
  installed     PREFIX/lib/clockprobe/cptools/  (make install, the .deb)
                images, PVH ELF, matrix.conf, schema: PREFIX/share/clockprobe/
                verdict-judge, clockprobe-guest: PREFIX/lib/clockprobe/

Both lookups are relative to this file, never to a path written at build
time, so a package unpacked into a scratch root (dpkg -x DEB DIR) finds
its own images under DIR and not the system's.  CLOCKPROBE_DATADIR
overrides where the installed images are looked for.

Everything a tool names to its user goes through here too: the tools
themselves (tool()), what is missing and how to get it (not_built(),
need_package()), the docs (DOCS).  Installed, the user has the command,
apt and /usr/share/doc/clockprobe -- never make, scripts/install-deps or
a tests/ folder -- so no message sends them there.

In an installed copy, scratch files and caches (the KVM check's cache,
its tiny stand-in ELF) go to $XDG_CACHE_HOME/clockprobe (~/.cache), and
the tools' outputs (run, matrix, images) to ./clockprobe-NAME in the
current directory, where a user expects them; in the source tree all of
it stays under build/ as before.
"""

import os
import re

# scripts/ in the source tree, PREFIX/lib/clockprobe when installed.
TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PARENT = os.path.dirname(TOOLS)

IN_TREE = (os.path.basename(TOOLS) == "scripts"
           and os.path.isfile(os.path.join(_PARENT, "include", "probe.h")))

if IN_TREE:
    REPO = _PARENT
    BUILD = os.path.join(REPO, "build")
    DATA = BUILD
    VERDICT_JUDGE = os.path.join(BUILD, "host", "verdict-judge")
    GUEST = os.path.join(BUILD, "clockprobe-guest")
    MATRIX_CONF = os.path.join(REPO, "tests", "matrix.conf")
    SCHEMA = os.path.join(REPO, "docs", "report-schema.json")
    GUEST_SCHEMA = os.path.join(REPO, "docs", "guest-report-schema.json")
    BOOT_TOOLS = os.path.join(REPO, "boot")
    DOCS = os.path.join(REPO, "docs")
    README = os.path.join(REPO, "README.md")
else:
    # PREFIX/lib/clockprobe -> PREFIX
    REPO = os.path.dirname(_PARENT)
    DATA = os.environ.get("CLOCKPROBE_DATADIR") or os.path.join(
        REPO, "share", "clockprobe")
    BUILD = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"), "clockprobe")
    VERDICT_JUDGE = os.path.join(TOOLS, "verdict-judge")
    GUEST = os.path.join(TOOLS, "clockprobe-guest")
    MATRIX_CONF = os.path.join(DATA, "matrix.conf")
    SCHEMA = os.path.join(DATA, "report-schema.json")
    GUEST_SCHEMA = os.path.join(DATA, "guest-report-schema.json")
    BOOT_TOOLS = os.path.join(TOOLS, "boot")
    # docs/ as `make install` puts it (mk/package.mk): beside README.md
    # in share/doc/clockprobe, so that README's docs/... links hold there.
    DOCS = os.path.join(REPO, "share", "doc", "clockprobe", "docs")
    README = os.path.join(REPO, "share", "doc", "clockprobe", "README.md")

# scripts/verdict, or PREFIX/lib/clockprobe/verdict (a module there):
# compare and the fleet loaders ask the rules through its judge().
VERDICT_SCRIPT = os.path.join(TOOLS, "verdict")
# The installed copy's version, written by `make install` from probe.h.
VERSION_FILE = os.path.join(TOOLS, "VERSION")
_VERSION_RE = re.compile(r'^#define\s+PROBE_VERSION\s+"([^"]+)"', re.M)


def output_dir(name):
    """Default folder for a tool's outputs: build/NAME in the source tree,
    ./clockprobe-NAME in the current directory when installed."""
    if IN_TREE:
        return os.path.join(BUILD, name)
    return os.path.join(".", "clockprobe-" + name)


def version():
    """The probe's PROBE_VERSION (include/probe.h): the one version of the
    probe, its tools, the package and the release files."""
    if IN_TREE:
        with open(os.path.join(REPO, "include", "probe.h")) as f:
            m = _VERSION_RE.search(f.read())
        if not m:
            raise RuntimeError("include/probe.h has no PROBE_VERSION")
        return m.group(1)
    with open(VERSION_FILE) as f:
        return f.read().strip()


def tool(name):
    """How the user calls a tool, for messages and help: scripts/NAME in
    the source tree, `clockprobe NAME` where installed (there is no
    scripts/ there)."""
    return "scripts/" + name if IN_TREE else "clockprobe " + name


def not_built(path, target):
    """Why a file the tools need is missing, and what to do: in the tree
    it is built by `make TARGET`; an installed copy was shipped with it,
    so it is a damaged or partial installation."""
    if IN_TREE:
        return "%s is not built (make %s)" % (path, target)
    return ("%s is missing from this installation (reinstall the "
            "clockprobe package)" % path)


def need_package(deb):
    """How to get the Debian package an optional feature needs: the
    source tree's scripts/install-deps, or apt where installed (the
    package recommends it; debian/control)."""
    if IN_TREE:
        return "scripts/install-deps test installs it"
    return "sudo apt install %s" % deb


def doc(name):
    """A document by its name under docs/ (platforms/aws.md), where this
    layout has it: REPO/docs/NAME, or PREFIX/share/doc/clockprobe/docs/NAME
    (the help names it, so a package user can open it)."""
    return os.path.join(DOCS, name)


def write_atomic(path, text):
    """text into path through a temporary file and a rename: a reader
    (or a run that fails half-way) sees the old file or the whole new one,
    never half of it."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
