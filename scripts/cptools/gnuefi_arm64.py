"""gnu-efi for aarch64, unpacked under build/aarch64/gnu-efi/.

Why: Debian's amd64 gnu-efi package holds only the x86_64 start-up object,
linker script and libraries; the aarch64 ones (crt0-efi-aarch64.o,
elf_aarch64_efi.lds, libefi.a, libgnuefi.a, the headers under
include/efi/aarch64) are in the same source package built for arm64.  They
are fetched as the arm64 Linux guests' kernels are (cptools/debfetch.py,
arch=arm64: apt on a private configuration, the host's own Debian mirror,
the archive key), unpacked with dpkg-deb, never installed.  The library
archives are aarch64 objects, linked only by the cross linker
(mk/arm64-probe.mk).

    python3 scripts/cptools/gnuefi_arm64.py fetch   (make arm64-deps)
    python3 scripts/cptools/gnuefi_arm64.py path    prints the root, or why not
"""

import json
import os
import shutil
import sys

try:
    from . import debfetch
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from cptools import debfetch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DIR = os.path.join(REPO, "build", "aarch64", "gnu-efi")
APT_DIR = os.path.join(DIR, "apt")
DEBS_DIR = os.path.join(DIR, "debs")
ROOT = os.path.join(DIR, "root")
MANIFEST = os.path.join(DIR, "manifest.json")
LIB = os.path.join(ROOT, "usr", "lib")
INC = os.path.join(ROOT, "usr", "include", "efi")
# What the arm64 build links and includes: without any one the build
# cannot be made, so fetch() checks each.
NEEDED = (os.path.join(LIB, "crt0-efi-aarch64.o"),
          os.path.join(LIB, "elf_aarch64_efi.lds"),
          os.path.join(LIB, "libefi.a"), os.path.join(LIB, "libgnuefi.a"),
          os.path.join(INC, "efi.h"), os.path.join(INC, "aarch64", "efibind.h"))
# The host's own release: the same gnu-efi version as its amd64 package.
SUITES = ("bookworm",)


def fetch(log=print):
    debfetch.check_host()
    repo = debfetch.AptRepo(APT_DIR, SUITES, arch="arm64")
    repo.update(log)
    found = repo.newest("gnu-efi")
    if found is None:
        raise debfetch.FetchError("no arm64 gnu-efi in " + "/".join(SUITES))
    version, suite = found
    log("fetching gnu-efi %s (arm64, %s)" % (version, suite))
    deb = repo.download("gnu-efi=" + version, DEBS_DIR)
    shutil.rmtree(ROOT, ignore_errors=True)
    debfetch.unpack(deb, ROOT)
    missing = [os.path.relpath(p, REPO) for p in NEEDED if not os.path.exists(p)]
    if missing:
        raise debfetch.FetchError("arm64 gnu-efi %s lacks %s" % (version, ", ".join(missing)))
    with open(MANIFEST, "w") as f:
        json.dump({"package": "gnu-efi", "arch": "arm64", "version": version,
                   "suite": suite}, f, indent=1, sort_keys=True)
    return version


def find():
    """(root, None) when every needed file is there, else (None, reason)."""
    missing = [p for p in NEEDED if not os.path.exists(p)]
    if missing:
        return None, ("arm64 gnu-efi not fetched (%s missing; `make arm64-deps`)"
                      % os.path.relpath(missing[0], REPO))
    return ROOT, None


def main(argv):
    return debfetch.fetch_or_path_main("gnuefi_arm64", argv, fetch, find)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
