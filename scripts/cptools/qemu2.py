"""The second QEMU: Debian bookworm-backports' QEMU, unpacked under
build/qemu-10/ beside (never over) the system's QEMU.

Why: the system QEMU (Debian 12's 7.2) has no `-device vmclock`, and a
hypervisor developer's A/B needs a second device model to compare with.
bookworm-backports builds QEMU 10 against Debian 12's own libraries, so its
binary runs here once unpacked; it loads its firmware blobs from its own
share directory (`-L`, see qemu_args()) and warns, harmlessly, that the
system's 7.2 modules are not from its build.

How it is fetched is the Linux-guest test's way (scripts/linux-guest): apt
on a private configuration under build/qemu-10/apt whose sources list names
the suite on the mirror the host's own apt sources use (so a user's mirror
and proxy apply; no mirror is written here), signed by the Debian archive
keyring; `apt-get download`, then `dpkg-deb` unpacks into build/qemu-10/root.
Nothing is installed.

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

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DIR = os.path.join(REPO, "build", "qemu-10")
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
DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_SOURCES = ("/etc/apt/sources.list", "/etc/apt/sources.list.d")


class FetchError(Exception):
    """The second QEMU cannot be fetched here (no apt, no Debian source)."""


def host_debian_uri(paths=APT_SOURCES):
    """The first URI the host's apt sources (one-line or deb822) use for a
    Debian suite (not -security): the mirror the backports come from."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += [os.path.join(p, f) for f in sorted(os.listdir(p))
                      if f.endswith((".list", ".sources"))]
        elif os.path.isfile(p):
            files.append(p)
    suite_re = re.compile(r"^(bookworm|trixie|forky|sid|stable|testing|"
                          r"unstable|oldstable)(-updates|-backports)?$")
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if path.endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                fields = {}
                for line in stanza.splitlines():
                    m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
                    if m:
                        fields[m.group(1).lower()] = m.group(2).split()
                if "deb" not in fields.get("types", []) or \
                        fields.get("enabled", ["yes"])[0].lower() == "no":
                    continue
                if any(suite_re.match(s) for s in fields.get("suites", [])):
                    for uri in fields.get("uris", []):
                        return uri.rstrip("/")
        else:
            for line in text.splitlines():
                words = re.sub(r"\[[^]]*\]", " ",
                               line.split("#", 1)[0]).split()
                if len(words) >= 3 and words[0] == "deb" and \
                        suite_re.match(words[2]):
                    return words[1].rstrip("/")
    raise FetchError("no Debian apt source configured on this host (the "
                     "second QEMU comes from %s through the host's own "
                     "mirror)" % SUITE)


def _apt(args, cwd=None):
    argv = [args[0],
            "-o", "Dir::Etc::sourcelist=" + os.path.join(APT_DIR,
                                                         "sources.list"),
            "-o", "Dir::Etc::sourceparts=-",
            "-o", "Dir::State::Lists=" + os.path.join(APT_DIR, "lists"),
            "-o", "Dir::Cache=" + os.path.join(APT_DIR, "cache"),
            "-o", "Dir::State::status=/dev/null",
            "-o", "APT::Get::List-Cleanup=0"] + list(args[1:])
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                       timeout=1800)
    return p.returncode, p.stdout + p.stderr


def fetch(log=print):
    """Downloads and unpacks the three packages; returns the manifest."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise FetchError("apt-get/dpkg-deb not found (not a Debian host)")
    if not os.path.isfile(DEBIAN_KEYRING):
        raise FetchError(DEBIAN_KEYRING + " missing (debian-archive-keyring)")
    for d in ("lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(APT_DIR, d), exist_ok=True)
    with open(os.path.join(APT_DIR, "sources.list"), "w") as f:
        f.write("deb [signed-by=%s] %s %s main\n"
                % (DEBIAN_KEYRING, host_debian_uri(), SUITE))
    rc, out = _apt(["apt-get", "update"])
    if rc != 0 or "Err:" in out:
        raise FetchError("apt-get update (%s) failed: %s" % (
            SUITE, "; ".join(ln for ln in out.splitlines()
                             if ln.startswith(("Err:", "E:")))[-300:]))
    shutil.rmtree(DEBS_DIR, ignore_errors=True)
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(DEBS_DIR)
    versions = {}
    for pkg in PACKAGES:
        log("fetching %s from %s" % (pkg, SUITE))
        rc, out = _apt(["apt-get", "download", "%s/%s" % (pkg, SUITE)],
                       cwd=DEBS_DIR)
        debs = [f for f in os.listdir(DEBS_DIR)
                if f.startswith(pkg + "_") and f.endswith(".deb")]
        if rc != 0 or len(debs) != 1:
            raise FetchError("apt-get download %s/%s failed: %s"
                             % (pkg, SUITE, out.strip()[-300:]))
        deb = os.path.join(DEBS_DIR, debs[0])
        versions[pkg] = debs[0].split("_")[1].replace("%3a", ":")
        x = subprocess.run(["dpkg-deb", "-x", deb, ROOT],
                           capture_output=True, text=True)
        if x.returncode != 0:
            raise FetchError("cannot unpack %s: %s" % (deb, x.stderr.strip()))
    if not os.access(BINARY, os.X_OK):
        raise FetchError("unpacked, but %s is missing" % BINARY)
    manifest = {"suite": SUITE, "packages": versions,
                "binary": os.path.relpath(BINARY, REPO),
                "version": version(BINARY)}
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


def find():
    """(binary, None) when the second QEMU is unpacked and runs, else
    (None, reason) -- the reason a test skips with."""
    if not os.path.exists(BINARY):
        return None, ("second QEMU not fetched (%s missing; `make qemu2` "
                      "fetches qemu-system-x86 from %s)"
                      % (os.path.relpath(BINARY, REPO), SUITE))
    if not version(BINARY):
        return None, "%s does not run here" % os.path.relpath(BINARY, REPO)
    return BINARY, None


def resolve(spec):
    """The binary a QEMU=/--qemu setting names: None or "" for the
    system's QEMU (None), "qemu2" for the second QEMU, else a path that
    must exist.  Raises FetchError with the reason otherwise."""
    if not spec:
        return None
    if spec == "qemu2":
        binary, why = find()
        if not binary:
            raise FetchError(why)
        return binary
    if not os.access(spec, os.X_OK):
        raise FetchError("QEMU=%s: not an executable file" % spec)
    return spec


def qemu_args(binary):
    """Arguments every run of `binary` needs: -L for its own blobs when it
    is the unpacked second QEMU (the system QEMU finds its own)."""
    if os.path.realpath(binary) == os.path.realpath(BINARY):
        return ["-L", SEABIOS, "-L", BLOBS]
    return []


def main(argv):
    cmd = argv[1] if len(argv) > 1 else "path"
    if cmd == "fetch":
        try:
            fetch()
        except FetchError as e:
            print("qemu2: " + str(e), file=sys.stderr)
            return 1
        return 0
    if cmd == "path":
        binary, why = find()
        print(binary or why)
        return 0 if binary else 1
    print("usage: qemu2.py fetch|path", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
