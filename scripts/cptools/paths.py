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
