"""The second QEMU: Debian bookworm-backports' QEMU, unpacked under
build/qemu-10/ beside (never over) the system's QEMU.

Why: the system QEMU (Debian 12's 7.2) has no `-device vmclock`, and a
hypervisor developer's A/B needs a second device model to compare with.
bookworm-backports builds QEMU 10 against Debian 12's own libraries, so its
binary runs here once unpacked; it loads its firmware blobs from its own
share directory (`-L`, see qemu_args()) and warns, harmlessly, that the
system's 7.2 modules are not from its build.

How it is fetched is cptools.debfetch's way, as the Linux-guest test
fetches its kernels: apt on a private configuration under build/qemu-10/apt
whose sources list names the suite on the mirror the host's own apt sources
use (so a user's mirror and proxy apply; no mirror is written here), signed
by the Debian archive keyring; `apt-get download`, then `dpkg-deb` unpacks
into build/qemu-10/root.  Nothing is installed.

    python3 scripts/cptools/qemu2.py fetch     (make qemu2)
    python3 scripts/cptools/qemu2.py path      prints the binary, or why not

A missing second QEMU is a reason string (find()), never an exception for
the tests: every test that wants it skips with that reason.
"""

import json
import os
import re
import shutil
import subprocess
import sys

try:
    from . import debfetch, paths
except ImportError:  # run as a script: python3 scripts/cptools/qemu2.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from cptools import debfetch, paths

REPO = paths.REPO
# build/qemu-10 in the tree; an installed copy has no build/ (under
# PREFIX it would be /usr/build), so its scratch folder (~/.cache/clockprobe).
DIR = os.path.join(paths.BUILD, "qemu-10")
# How to fetch it: the Makefile's target, or this file run by python3.
FETCH = "make qemu2" if paths.IN_TREE else "python3 %s fetch" % os.path.join(
    paths.TOOLS, "cptools", "qemu2.py")
APT_DIR = os.path.join(DIR, "apt")
DEBS_DIR = os.path.join(DIR, "debs")
ROOT = os.path.join(DIR, "root")
MANIFEST = os.path.join(DIR, "manifest.json")
BINARY = os.path.join(ROOT, "usr", "bin", "qemu-system-x86_64")
# -L: its own blobs (SeaBIOS, option ROMs, PVH loader), not the system's.
BLOBS = os.path.join(ROOT, "usr", "share", "qemu")
# The SeaBIOS it depends on (>> 1.16.3): Debian 12's 1.16.2 under QEMU 10
# waits 30 s on q35's empty AHCI CD drive ("WARNING - Timeout at
# ahci_command") before it boots anything.
SEABIOS = os.path.join(ROOT, "usr", "share", "seabios")

SUITE = "bookworm-backports"
PACKAGES = ("qemu-system-x86", "qemu-system-common", "qemu-system-data",
            "seabios")


FetchError = debfetch.FetchError


def fetch(log=print):
    """Downloads and unpacks the packages (debfetch); returns the manifest."""
    shutil.rmtree(ROOT, ignore_errors=True)
    got = debfetch.fetch(PACKAGES, (SUITE,), ROOT, APT_DIR, debs_dir=DEBS_DIR, log=log)
    if not os.access(BINARY, os.X_OK):
        raise FetchError("unpacked, but %s is missing" % BINARY)
    manifest = {"suite": SUITE, "packages": {p: g["version"] for p, g in got.items()},
                "binary": _shown(BINARY), "version": version(BINARY)}
    with open(MANIFEST, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    log("second QEMU: %s (%s)" % (BINARY, manifest["version"]))
    return manifest


def version(binary=BINARY):
    """"10.0.2" from `--version`, or None when it does not run."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True,
                             text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"version (\S+)", out)
    return m.group(1) if m else None


def _shown(path):
    """A path as messages show it: relative to the source tree there."""
    return os.path.relpath(path, REPO) if paths.IN_TREE else path


def find():
    """(binary, None) when the second QEMU is unpacked and runs, else
    (None, reason) -- the reason a test skips with."""
    if not os.path.exists(BINARY):
        return None, ("second QEMU not fetched (%s missing; `%s` "
                      "fetches qemu-system-x86 from %s)"
                      % (_shown(BINARY), FETCH, SUITE))
    if not version(BINARY):
        return None, "%s does not run here" % _shown(BINARY)
    return BINARY, None


def qemu_args(binary):
    """Arguments every run of `binary` needs: -L for its own blobs when it
    is the unpacked second QEMU (the system QEMU finds its own)."""
    if os.path.realpath(binary) == os.path.realpath(BINARY):
        return ["-L", SEABIOS, "-L", BLOBS]
    return []


def main(argv):
    return debfetch.fetch_or_path_main("qemu2", argv, fetch, find)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
