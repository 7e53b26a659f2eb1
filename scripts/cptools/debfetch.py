"""Fetching Debian packages through the host's own apt configuration.

scripts/linux-guest fetches Debian's kernels and busybox-static with it,
and the second QEMU (bookworm-backports' qemu-system-*) comes the same way.
Nothing is installed into the host and the host's apt state is untouched:
apt runs on a private configuration under a folder of ours (its own
sources.list, lists and cache), whose entries name the suites asked for on
the mirror the host's own apt sources use for Debian (and for Debian
security), so that users behind their own mirrors and proxies fetch
through them (apt's proxy settings apply as usual).  No mirror is written
into the code.  The packages are signed by the archive key Debian ships
(debian-archive-keyring) and unpacked with dpkg-deb, without running any
maintainer script.

    repo = AptRepo("build/x/apt", ("bookworm-backports",))
    notes = repo.update()                  # apt-get update; FetchError
    version, suite = repo.newest("qemu-system-x86")
    deb = repo.download("qemu-system-x86=" + version, "build/x/debs")
    unpack(deb, "build/x/root")            # or extract(deb, [globs], dest)

or all of it at once: fetch(packages, suites, dest, apt_dir).
"""

import os
import re
import shutil
import subprocess
import sys

DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_SOURCE_DIRS = ("/etc/apt/sources.list", "/etc/apt/sources.list.d")
# The codenames and aliases a Debian (not a security) entry serves.
DEBIAN_SUITE_RE = re.compile(r"^(buster|bullseye|bookworm|trixie|forky|sid|"
                             r"stable|testing|unstable|oldstable)\b")


class FetchError(Exception):
    """Packages cannot be fetched here (no apt, no keyring, no Debian
    source, a required suite unreachable, a package missing)."""


def _run(argv, cwd=None, timeout=900):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check_host(keyring=None):
    """Raise FetchError unless apt-get, dpkg-deb and Debian's keyring are
    here (a Debian host)."""
    keyring = keyring or DEBIAN_KEYRING
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise FetchError("apt-get/dpkg-deb not found (not a Debian host)")
    if not os.path.isfile(keyring):
        raise FetchError(keyring + " missing (debian-archive-keyring)")


# ----------------------------------------------------- the host's sources

def apt_source_entries(paths=APT_SOURCE_DIRS):
    """(uri, suites) of every enabled deb source the host's apt reads:
    one-line sources.list entries and deb822 .sources stanzas."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += [os.path.join(p, f) for f in sorted(os.listdir(p))
                      if f.endswith((".list", ".sources"))]
        elif os.path.isfile(p):
            files.append(p)
    entries = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if path.endswith(".sources"):
            # deb822 stanzas (comments, folded lines, field names in any
            # case) read by python3-debian as apt reads them.
            for stanza in _deb822().Deb822.iter_paragraphs(
                    text.splitlines()):
                if "deb" not in stanza.get("Types", "").split() or \
                        stanza.get("Enabled", "yes").strip().lower() == "no":
                    continue
                for uri in stanza.get("URIs", "").split():
                    entries.append((uri, stanza.get("Suites", "").split()))
        else:
            for line in text.splitlines():
                line = re.sub(r"\[[^]]*\]", " ", line.split("#", 1)[0])
                words = line.split()
                if len(words) >= 3 and words[0] == "deb":
                    entries.append((words[1], [words[2]]))
    return entries


def debian_mirrors(entries=None):
    """{"debian": uri, "security": uri} from the host's apt sources: the
    first URI serving a Debian suite, and the first serving a -security
    suite (the main mirror's /debian-security when none is listed)."""
    entries = apt_source_entries() if entries is None else entries
    main = security = None
    for uri, suites in entries:
        for suite in suites:
            if suite.endswith("-security") or "/updates" in suite:
                security = security or uri
            elif DEBIAN_SUITE_RE.match(suite):
                main = main or uri
    if main is None:
        raise FetchError("no Debian apt source configured on this host "
                         "(packages come from Debian's suites through the "
                         "host's own mirror)")
    if security is None:
        security = re.sub(r"/debian/?$", "/debian-security", main)
    return {"debian": main.rstrip("/"), "security": security.rstrip("/")}


# ----------------------------------------------------- apt's own answers

def parse_policy(text):
    """[(version, origin line)] from `apt-cache policy PACKAGE`, newest
    first as apt lists them ("500 URI bookworm/main amd64 Packages", the
    URI of any scheme apt takes: http, https, file, mirror+file...);
    versions only in the status file (a path, no scheme) have no origin."""
    found, version = [], None
    for line in text.splitlines():
        m = re.match(r"^\s+(?:\*\*\* )?(\S+) \d+$", line)
        if m:
            version = m.group(1)
            continue
        if version and re.match(r"^\s+\d+ [A-Za-z][A-Za-z0-9+.-]*:", line):
            found.append((version, line.strip()))
    return found


def origin_suite(origin):
    """The suite of an apt policy origin line ("500 URI sid/main amd64
    Packages" -> "sid"; any architecture)."""
    m = re.search(r" (\S+)/main ", origin)
    return m.group(1) if m else None


def parse_depends(control, prefix):
    """The first Depends: entry of a package's control text whose name
    starts with prefix, as name or name=version (when pinned with =); an
    entry with alternatives is named by its first."""
    deb822 = _deb822()
    for stanza in deb822.Deb822.iter_paragraphs((control or "").splitlines()):
        if "Depends" not in stanza:
            continue
        try:
            rels = deb822.PkgRelation.parse_relations(stanza["Depends"])
        except (ValueError, TypeError):
            return None
        for alts in rels:
            dep = alts[0] if alts else {}
            name = dep.get("name") or ""
            if name.startswith(prefix):
                op, version = dep.get("version") or (None, None)
                return name + ("=" + version if op == "=" else "")
        return None
    return None


def _deb822():
    """python3-debian's deb822 (scripts/install-deps test), from any
    python3."""
    from .debpkg import import_debian
    try:
        return import_debian("debian.deb822")
    except ImportError:
        from . import paths
        raise FetchError("reading apt's answers needs Debian's "
                         "python3-debian (%s)"
                         % paths.need_package("python3-debian"))


# ------------------------------------------------------------ the repo

class AptRepo:
    """apt on a private configuration under `root`: sources.list (the
    `suites` on the host's Debian mirror), lists/ and cache/.

    required: the suites that must be reachable; update() names the others
    that are not and leaves them out (default: every suite is required).
    """

    def __init__(self, root, suites, required=None, mirrors=None,
                 keyring=None, component="main", arch=None):
        self.root = root
        # Another Debian architecture's packages (arm64 kernels for the
        # arm64 guests): apt reads that architecture's lists as if it were
        # the native one, in this private configuration only.
        self.arch = arch
        self.suites = tuple(suites)
        self.required = self.suites if required is None else tuple(required)
        self.mirrors = mirrors
        self.keyring = keyring or DEBIAN_KEYRING
        self.component = component

    def options(self):
        """apt's -o options that point it at this configuration only."""
        return ["-o", "Dir::Etc::sourcelist=" + os.path.join(
                    self.root, "sources.list"),
                "-o", "Dir::Etc::sourceparts=-",
                "-o", "Dir::State::Lists=" + os.path.join(self.root,
                                                          "lists"),
                "-o", "Dir::Cache=" + os.path.join(self.root, "cache"),
                "-o", "Dir::State::status=/dev/null",
                "-o", "APT::Get::List-Cleanup=0"] + (
                    ["-o", "APT::Architecture=" + self.arch,
                     "-o", "APT::Architectures=" + self.arch]
                    if self.arch else [])

    def sources_lines(self):
        """The private sources.list: each suite on the host's mirror."""
        m = self.mirrors or debian_mirrors()
        opts = "[signed-by=%s%s]" % (
            self.keyring, " arch=" + self.arch if self.arch else "")
        return ["deb %s %s %s %s" % (
            opts, m["security"] if s.endswith("-security") else m["debian"],
            s, self.component) for s in self.suites]

    def write_sources(self):
        for d in ("lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        with open(os.path.join(self.root, "sources.list"), "w") as f:
            f.write("\n".join(self.sources_lines()) + "\n")

    def update(self, log=print):
        """Write the sources and run apt-get update; return notes (the
        optional suites that could not be reached, left out).  A required
        suite that fails is a FetchError."""
        self.write_sources()
        rc, out, err = _run(["apt-get"] + self.options() + ["update"])
        notes = []
        if rc != 0 or "Err:" in out:
            bad = [ln for ln in (out + err).splitlines()
                   if ln.startswith(("Err:", "E:", "W:"))]
            optional = [s for s in self.suites if s not in self.required]
            failed = [ln for ln in bad if ln.startswith("Err:")]
            if failed and all(any(" %s/" % s in ln or " %s " % s in ln
                                  for s in optional) for ln in failed):
                notes.append("not reachable, left out: " + "; ".join(
                    failed[:3]))
                log(notes[-1])
            elif rc != 0:
                raise FetchError("apt-get update failed: "
                                 + "; ".join(bad[-3:]))
        return notes

    def candidates(self, package):
        """[(version, origin line)] of a package in this repo's lists."""
        rc, out, _ = _run(["apt-cache"] + self.options()
                          + ["policy", package])
        return parse_policy(out) if rc == 0 else []

    def newest(self, package, suites=None):
        """(version, suite) of the newest `package` in `suites` (default:
        this repo's), or None."""
        suites = self.suites if suites is None else tuple(suites)
        for version, origin in self.candidates(package):
            if origin_suite(origin) in suites:
                return version, origin_suite(origin)
        return None

    def depends_on(self, spec, prefix):
        """The dependency of `spec` (name or name=version) whose name
        starts with prefix, pinned to its version when it is; or None."""
        rc, out, _ = _run(["apt-cache"] + self.options() + ["show", spec])
        return parse_depends(out, prefix) if rc == 0 else None

    def download(self, spec, dest):
        """apt-get download `spec` (name or name=version) into dest;
        return the .deb's path."""
        os.makedirs(dest, exist_ok=True)
        before = set(os.listdir(dest))
        rc, out, err = _run(["apt-get"] + self.options()
                            + ["download", spec], cwd=dest)
        if rc != 0:
            raise FetchError("apt-get download %s failed: %s"
                             % (spec, (err or out).strip().splitlines()[-1:]))
        name, _, version = spec.partition("=")
        new = sorted(set(os.listdir(dest)) - before)
        debs = [f for f in (new or sorted(os.listdir(dest)))
                if f.startswith(name + "_") and f.endswith(".deb")]
        # A .deb already there is not downloaded again: take the version
        # asked for (file names spell an epoch's ":" as "%3a").
        exact = [f for f in debs if version and f.split("_")[1]
                 == version.replace(":", "%3a")]
        if exact or debs:
            return os.path.join(dest, (exact or debs)[0])
        raise FetchError("apt-get download %s left no .deb" % spec)


# ------------------------------------------------------------- unpacking

def deb_members(deb):
    """`dpkg-deb -c` lines (one per file of the data tree); [] on error."""
    rc, out, _ = _run(["dpkg-deb", "-c", deb])
    return out.splitlines() if rc == 0 else []


def extract(deb, members, dest):
    """Unpack only `members` (tar globs, e.g. "./boot/vmlinuz-*") of a
    .deb's data into dest."""
    os.makedirs(dest, exist_ok=True)
    fs = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb],
                          stdout=subprocess.PIPE)
    tar = subprocess.run(["tar", "-x", "-C", dest, "--wildcards"] + members,
                         stdin=fs.stdout, capture_output=True)
    fs.stdout.close()
    fs.wait()
    if fs.returncode != 0 or tar.returncode != 0:
        raise FetchError("cannot unpack %s: %s" % (
            deb, tar.stderr.decode("utf-8", "replace").strip()))


def unpack(deb, dest):
    """Unpack a .deb's whole data tree into dest (dpkg-deb -x: files
    only, no maintainer script runs)."""
    os.makedirs(dest, exist_ok=True)
    rc, out, err = _run(["dpkg-deb", "-x", deb, dest])
    if rc != 0:
        raise FetchError("cannot unpack %s: %s" % (deb, (err or out).strip()))


def fetch(packages, suites, dest, apt_dir, debs_dir=None, log=print,
          mirrors=None):
    """Fetch the newest of each package in `suites` through the host's apt
    sources and unpack them all into dest.

    apt_dir: the private apt configuration (AptRepo's root); debs_dir:
    where the .debs are kept (default apt_dir/debs); mirrors: as
    debian_mirrors() gives (the default: the host's).  Every suite is
    required.  Returns {package: {"version", "suite", "deb"}}; raises
    FetchError naming what is missing."""
    check_host()
    repo = AptRepo(apt_dir, suites, mirrors=mirrors)
    repo.update(log)
    debs_dir = debs_dir or os.path.join(apt_dir, "debs")
    got = {}
    for package in packages:
        found = repo.newest(package)
        if found is None:
            raise FetchError("no %s in %s" % (package, "/".join(suites)))
        version, suite = found
        log("fetching %s %s (%s)" % (package, version, suite))
        deb = repo.download("%s=%s" % (package, version), debs_dir)
        unpack(deb, dest)
        got[package] = {"version": version, "suite": suite, "deb": deb}
    return got


def fetch_or_path_main(prog, argv, fetch, find):
    """The command line of a tool unpacked through here (qemu2.py,
    gnuefi_arm64.py): `fetch` unpacks it (exit 1 naming the failure),
    `path` prints where it is or why it is not there (exit 1 then)."""
    cmd = argv[1] if len(argv) > 1 else "path"
    if cmd == "fetch":
        try:
            fetch()
        except FetchError as e:
            print("%s: %s" % (prog, e), file=sys.stderr)
            return 1
        return 0
    if cmd == "path":
        found, why = find()
        print(found or why)
        return 0 if found else 1
    print("usage: %s.py fetch|path" % prog, file=sys.stderr)
    return 2
