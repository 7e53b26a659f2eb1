"""cptools/debfetch.py: Debian packages through the host's apt sources.

Offline: apt's answers are canned from real runs (`apt-cache policy` and
`apt-cache show` on the private lists of scripts/linux-guest fetch, the
host's mirror replaced by a local file: repository path, as apt prints one), apt-get itself is a
stand-in script on PATH, and the .deb unpacked is one built here with
dpkg-deb.  The mirror-from-apt-sources test is in
tests/integration/test_linux_guest.py (OfflineParts).  (Real apt-cache
on the private lists of a real fetch takes ~5 s of CPU per call here:
too slow for this suite; scripts/linux-guest fetch is the real run.)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostlib  # noqa: E402,F401 (sys.path)
from cptools import debfetch  # noqa: E402

# apt-cache policy linux-image-amd64 qemu-system-x86 on the lists of
# scripts/linux-guest's suites, 2026-12-01 (the mirror as a local file: one).
POLICY_KERNEL = """\
linux-image-amd64:
  Installed: (none)
  Candidate: 7.2.13-1
  Version table:
     7.3~rc7-1~exp1 1
          1 file:/srv/apt-mirror/debian experimental/main amd64 Packages
     7.2.13-1 500
        500 file:/srv/apt-mirror/debian sid/main amd64 Packages
     6.12.118-1 500
        500 file:/srv/apt-mirror/debian-security trixie-security/main amd64 Packages
     6.12.117-1 500
        500 file:/srv/apt-mirror/debian trixie/main amd64 Packages
     6.12.95-1~bpo12+1 100
        100 file:/srv/apt-mirror/debian bookworm-backports/main amd64 Packages
     6.1.192-3 500
        500 file:/srv/apt-mirror/debian-security bookworm-security/main amd64 Packages
     6.1.176-1 500
        500 file:/srv/apt-mirror/debian bookworm/main amd64 Packages
"""
POLICY_QEMU = """\
qemu-system-x86:
  Installed: (none)
  Candidate: 1:11.1.3+ds-1
  Version table:
     1:11.1.3+ds-1 500
        500 file:/srv/apt-mirror/debian sid/main amd64 Packages
     1:10.0.13+ds-0+deb13u1 500
        500 file:/srv/apt-mirror/debian trixie/main amd64 Packages
     1:10.0.2+ds-2+deb13u1 500
        500 file:/srv/apt-mirror/debian-security trixie-security/main amd64 Packages
     1:10.0.2+ds-2+deb13u1~bpo12+1 100
        100 file:/srv/apt-mirror/debian bookworm-backports/main amd64 Packages
 *** 1:7.2+dfsg-7+deb12u18+b3 500
        500 file:/srv/apt-mirror/debian bookworm/main amd64 Packages
        100 /var/lib/dpkg/status
"""
# apt-cache show's Depends: lines of the same lists.
SHOW_META_61 = "Package: linux-image-amd64\nVersion: 6.1.192-3\n" \
    "Depends: linux-image-6.1.0-57-amd64 (= 6.1.192-3)\n"
SHOW_META_72 = "Package: linux-image-amd64\nVersion: 7.2.13-1\n" \
    "Depends: linux-base-amd64 (= 7.2.13-1), " \
    "linux-image-7.2.13+deb14-amd64 (= 7.2.13-1)\n"
SHOW_IMAGE_72 = "Package: linux-image-7.2.13+deb14-amd64\n" \
    "Depends: dracut | initramfs-tools (>= 0.120+deb8u2) | " \
    "linux-initramfs-tool, linux-base-7.2.13+deb14-amd64 (= 7.2.13-1), " \
    "linux-binary-7.2.13+deb14-amd64 (= 7.2.13-1), " \
    "linux-modules-7.2.13+deb14-amd64 (= 7.2.13-1)\n"

MIRRORS = {"debian": "file:/srv/apt-mirror/debian",
           "security": "file:/srv/apt-mirror/debian-security"}

# A stand-in for apt-get and apt-cache: answers from files next to it.
# update prints $FAKE_APT/update.out and exits with update.rc; download
# copies $FAKE_APT/debs/<name>_* into the working folder; policy/show
# print $FAKE_APT/<verb>-<spec>.
FAKE_APT = textwrap.dedent("""\
    #!/bin/sh
    d="$FAKE_APT"
    while [ "$1" = -o ]; do echo "$2" >> "$d/options"; shift 2; done
    verb="$1"; spec="$2"
    case "$verb" in
    update) cat "$d/update.out"; exit "$(cat "$d/update.rc")" ;;
    download)
        name="${spec%%=*}"
        for f in "$d"/debs/"$name"_*.deb; do
            [ -e "$f" ] || { echo "E: Unable to locate package $name" >&2;
                             exit 100; }
            cp "$f" .
        done ;;
    policy|show) f="$d/$verb-$spec"; [ -e "$f" ] && cat "$f" ;;
    esac
    """)


def have_dpkg_deb():
    return shutil.which("dpkg-deb") is not None


def build_deb(where, name, version, files):
    """A real .deb (dpkg-deb --build) holding files {path: bytes}."""
    root = os.path.join(where, "pkg-" + name)
    os.makedirs(os.path.join(root, "DEBIAN"))
    with open(os.path.join(root, "DEBIAN", "control"), "w") as f:
        f.write("Package: %s\nVersion: %s\nArchitecture: amd64\n"
                "Maintainer: test <test@example.invalid>\n"
                "Description: test package\n" % (name, version))
    for path, data in files.items():
        full = os.path.join(root, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
    deb = os.path.join(where, "%s_%s_amd64.deb" % (
        name, version.replace(":", "%3a")))
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build",
                    root, deb], check=True, capture_output=True)
    shutil.rmtree(root)
    return deb


class ParsingTest(unittest.TestCase):
    def test_policy_candidates_newest_first(self):
        c = debfetch.parse_policy(POLICY_KERNEL)
        self.assertEqual([v for v, _ in c], [
            "7.3~rc7-1~exp1", "7.2.13-1", "6.12.118-1", "6.12.117-1",
            "6.12.95-1~bpo12+1", "6.1.192-3", "6.1.176-1"])
        self.assertEqual([debfetch.origin_suite(o) for _, o in c], [
            "experimental", "sid", "trixie-security", "trixie",
            "bookworm-backports", "bookworm-security", "bookworm"])
        # The installed marker and the status file's line are no origin.
        q = debfetch.parse_policy(POLICY_QEMU)
        self.assertEqual(q[-1][0], "1:7.2+dfsg-7+deb12u18+b3")
        self.assertEqual(len(q), 5)
        self.assertTrue(all(o.split()[1].startswith(MIRRORS["debian"])
                            for _, o in q))
        # Any scheme apt takes is an origin (a host's mirror may be a
        # local file: tree or a mirror+file: list), a bare path is not.
        for uri in (MIRRORS["debian"], "mirror+file:/etc/apt/mirrors.txt",
                    "https:"):
            self.assertEqual(len(debfetch.parse_policy(
                "p:\n  Version table:\n     1.0-1 500\n        500 %s "
                "sid/main amd64 Packages\n        100 /var/lib/dpkg/status\n"
                % uri)), 1, uri)
        self.assertEqual(debfetch.parse_policy(""), [])
        self.assertIsNone(debfetch.origin_suite("100 /var/lib/dpkg/status"))

    def test_depends(self):
        d = debfetch.parse_depends
        self.assertEqual(d(SHOW_META_61, "linux-image-"),
                         "linux-image-6.1.0-57-amd64=6.1.192-3")
        self.assertEqual(d(SHOW_META_72, "linux-image-"),
                         "linux-image-7.2.13+deb14-amd64=7.2.13-1")
        self.assertEqual(d(SHOW_IMAGE_72, "linux-binary-"),
                         "linux-binary-7.2.13+deb14-amd64=7.2.13-1")
        self.assertEqual(d("Depends: busybox, libc6 (>= 2.36)\n", "libc"),
                         "libc6")
        self.assertIsNone(d(SHOW_META_61, "linux-binary-"))
        self.assertIsNone(d("", "linux-image-"))

    def test_private_sources_use_the_hosts_mirror(self):
        repo = debfetch.AptRepo("/x/apt", ("bookworm", "bookworm-security",
                                           "bookworm-backports"),
                                mirrors=MIRRORS, keyring="/k.gpg")
        self.assertEqual(repo.sources_lines(), [
            "deb [signed-by=/k.gpg] file:/srv/apt-mirror/debian "
            "bookworm main",
            "deb [signed-by=/k.gpg] file:/srv/apt-mirror/debian-security "
            "bookworm-security main",
            "deb [signed-by=/k.gpg] file:/srv/apt-mirror/debian "
            "bookworm-backports main"])
        opts = " ".join(repo.options())
        for want in ("Dir::Etc::sourcelist=/x/apt/sources.list",
                     "Dir::Etc::sourceparts=-", "Dir::State::Lists=/x/apt/"
                     "lists", "Dir::Cache=/x/apt/cache",
                     "Dir::State::status=/dev/null"):
            self.assertIn(want, opts)
        self.assertEqual(repo.required, repo.suites)
        self.assertNotIn("APT::Architecture", opts)

    def test_another_architecture(self):
        # The arm64 guests' kernels: apt reads arm64's lists, and only in
        # this private configuration.
        repo = debfetch.AptRepo("/x/apt", ("bookworm",), mirrors=MIRRORS,
                                keyring="/k.gpg", arch="arm64")
        self.assertEqual(repo.sources_lines(), [
            "deb [signed-by=/k.gpg arch=arm64] file:/srv/apt-mirror/debian "
            "bookworm main"])
        opts = repo.options()
        self.assertIn("APT::Architecture=arm64", opts)
        self.assertIn("APT::Architectures=arm64", opts)
        self.assertEqual(debfetch.origin_suite(
            "500 %s bookworm/main arm64 Packages" % MIRRORS["debian"]),
            "bookworm")


class FakeAptTest(unittest.TestCase):
    """AptRepo and fetch() against the stand-in apt on PATH."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-debfetch-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.fake = os.path.join(self.tmp, "fake")
        os.makedirs(os.path.join(self.fake, "debs"))
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        for tool in ("apt-get", "apt-cache"):
            p = os.path.join(bindir, tool)
            with open(p, "w") as f:
                f.write(FAKE_APT)
            os.chmod(p, 0o755)
        env = mock.patch.dict(os.environ, {
            "FAKE_APT": self.fake,
            "PATH": bindir + os.pathsep + os.environ.get("PATH", "")})
        env.start()
        self.addCleanup(env.stop)
        self.answer("update.out", "Hit:1 file:/srv/apt-mirror/debian "
                    "bookworm InRelease\nReading package lists...\n")
        self.answer("update.rc", "0")
        self.apt = os.path.join(self.tmp, "apt")

    def answer(self, name, text):
        with open(os.path.join(self.fake, name), "w") as f:
            f.write(text)

    def repo(self, suites=("bookworm", "bookworm-backports"), **kw):
        return debfetch.AptRepo(self.apt, suites, mirrors=MIRRORS, **kw)

    def test_update_names_unreachable_optional_suites(self):
        repo = self.repo(required=("bookworm",))
        self.assertEqual(repo.update(log=lambda m: None), [])
        with open(os.path.join(self.apt, "sources.list")) as f:
            self.assertIn("/srv/apt-mirror/debian bookworm-backports main",
                          f.read())
        self.assertTrue(os.path.isdir(os.path.join(self.apt, "lists")))
        self.answer("update.out", "Hit:1 file:/srv/apt-mirror/debian "
                    "bookworm InRelease\nErr:2 file:/srv/apt-mirror/debian"
                    " bookworm-backports InRelease\n  Could not resolve\n")
        self.answer("update.rc", "100")
        logged = []
        notes = repo.update(log=logged.append)
        self.assertEqual(len(notes), 1)
        self.assertIn("not reachable, left out: Err:2", notes[0])
        self.assertEqual(logged, notes)
        # The same failure on a required suite stops the fetch.
        with self.assertRaises(debfetch.FetchError) as cm:
            self.repo().update(log=lambda m: None)
        self.assertIn("apt-get update failed", str(cm.exception))

    def test_newest_in_the_suites_asked_for(self):
        self.answer("policy-qemu-system-x86", POLICY_QEMU)
        repo = self.repo(("bookworm-backports",))
        self.assertEqual(repo.newest("qemu-system-x86"), (
            "1:10.0.2+ds-2+deb13u1~bpo12+1", "bookworm-backports"))
        self.assertEqual(repo.newest("qemu-system-x86", ("bookworm",)), (
            "1:7.2+dfsg-7+deb12u18+b3", "bookworm"))
        self.assertIsNone(repo.newest("qemu-system-x86", ("forky",)))
        self.assertIsNone(repo.newest("no-such-package"))
        self.answer("show-linux-image-amd64=6.1.192-3", SHOW_META_61)
        self.assertEqual(repo.depends_on("linux-image-amd64=6.1.192-3",
                                         "linux-image-"),
                         "linux-image-6.1.0-57-amd64=6.1.192-3")
        # every call ran on the private configuration only
        with open(os.path.join(self.fake, "options")) as f:
            self.assertIn("Dir::Etc::sourceparts=-", f.read())

    def test_download_picks_the_version_asked_for(self):
        debs = os.path.join(self.tmp, "debs")
        os.makedirs(debs)
        for v in ("1%3a1.35.0-4", "1%3a1.38.0-3"):
            open(os.path.join(debs, "busybox-static_%s_amd64.deb" % v),
                 "w").close()
        open(os.path.join(self.fake, "debs",
                          "busybox-static_1%3a1.38.0-3_amd64.deb"),
             "w").close()
        repo = self.repo()
        # already there: not new, so the name and version decide
        self.assertEqual(os.path.basename(repo.download(
            "busybox-static=1:1.38.0-3", debs)),
            "busybox-static_1%3a1.38.0-3_amd64.deb")
        with self.assertRaises(debfetch.FetchError) as cm:
            repo.download("no-such-package", debs)
        self.assertIn("apt-get download no-such-package failed",
                      str(cm.exception))

    @unittest.skipUnless(have_dpkg_deb(), "needs dpkg-deb (Debian)")
    def test_fetch_unpacks_the_newest_from_the_suites(self):
        build_deb(os.path.join(self.fake, "debs"), "qemu-system-x86",
                  "1:10.0.2+ds-2+deb13u1~bpo12+1",
                  {"usr/bin/qemu-system-x86_64": b"#!/bin/sh\n"})
        self.answer("policy-qemu-system-x86", POLICY_QEMU)
        dest = os.path.join(self.tmp, "qemu-10")
        with mock.patch.object(debfetch, "DEBIAN_KEYRING", __file__):
            got = debfetch.fetch(["qemu-system-x86"], ("bookworm-backports",),
                                 dest, self.apt, log=lambda m: None,
                                 mirrors=MIRRORS)
        self.assertEqual(got["qemu-system-x86"]["version"],
                         "1:10.0.2+ds-2+deb13u1~bpo12+1")
        self.assertEqual(got["qemu-system-x86"]["suite"],
                         "bookworm-backports")
        self.assertTrue(got["qemu-system-x86"]["deb"].startswith(
            os.path.join(self.apt, "debs") + os.sep))
        with open(os.path.join(dest, "usr/bin/qemu-system-x86_64"),
                  "rb") as f:
            self.assertEqual(f.read(), b"#!/bin/sh\n")
        with open(os.path.join(self.apt, "sources.list")) as f:
            self.assertEqual(f.read().split("\n")[:-1], [
                "deb [signed-by=%s] file:/srv/apt-mirror/debian "
                "bookworm-backports main" % __file__])
        with mock.patch.object(debfetch, "DEBIAN_KEYRING", __file__), \
                self.assertRaises(debfetch.FetchError) as cm:
            debfetch.fetch(["qemu-system-data"], ("bookworm-backports",),
                           dest, self.apt, log=lambda m: None,
                           mirrors=MIRRORS)
        self.assertIn("no qemu-system-data in bookworm-backports",
                      str(cm.exception))

    def test_host_without_keyring(self):
        with self.assertRaises(debfetch.FetchError) as cm:
            debfetch.check_host(os.path.join(self.tmp, "none.gpg"))
        self.assertIn("debian-archive-keyring", str(cm.exception))


@unittest.skipUnless(have_dpkg_deb(), "needs dpkg-deb (Debian)")
class UnpackTest(unittest.TestCase):
    def test_members_extract_unpack(self):
        tmp = tempfile.mkdtemp(prefix="test-debfetch-")
        self.addCleanup(shutil.rmtree, tmp)
        deb = build_deb(tmp, "linux-image-9.9.9-test", "9.9.9-1", {
            "boot/vmlinuz-9.9.9-test": b"MZ kernel",
            "boot/System.map-9.9.9-test": b"map",
            "usr/share/doc/x/copyright": b"c"})
        members = debfetch.deb_members(deb)
        self.assertTrue(any(ln.endswith(" ./boot/vmlinuz-9.9.9-test")
                            for ln in members), members)
        only = os.path.join(tmp, "only")
        debfetch.extract(deb, ["./boot/vmlinuz-*"], only)
        self.assertEqual(os.listdir(os.path.join(only, "boot")),
                         ["vmlinuz-9.9.9-test"])
        self.assertFalse(os.path.exists(os.path.join(only, "usr")))
        whole = os.path.join(tmp, "whole")
        debfetch.unpack(deb, whole)
        with open(os.path.join(whole, "usr/share/doc/x/copyright"),
                  "rb") as f:
            self.assertEqual(f.read(), b"c")
        with self.assertRaises(debfetch.FetchError):
            debfetch.extract(deb, ["./no/such/*"], only)
        with self.assertRaises(debfetch.FetchError):
            debfetch.unpack(os.path.join(tmp, "none.deb"), whole)
        self.assertEqual(debfetch.deb_members(os.path.join(tmp, "x.deb")),
                         [])


if __name__ == "__main__":
    unittest.main()
