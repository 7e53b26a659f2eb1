"""The Debian package, end to end: `make deb` builds
build/clockprobe_VERSION_ARCH.deb once; it is unpacked with `dpkg -x` into
a scratch root (never installed on this machine), and from that tree alone
`clockprobe --help`, every manual page (man --warnings, groff -ww),
`clockprobe run --boot pvh` on the packaged ELF, `clockprobe verdict`
with the packaged judge and `clockprobe compare` on the report work;
`compare --kernels lts` judges a report from an older build with the
packaged judge, `compare --html` without matplotlib still writes its page,
and nothing the package says sends its user to make or a source tree.
lintian's findings: none but the explained overrides.

Skipped, with the reason, where dpkg-deb, dpkg-gencontrol, help2man or
lintian is missing (scripts/install-deps deb installs them); the boot is
skipped where QEMU is missing.  About 40 s on two busy cores, most of it
make deb and lintian; the PVH boot is a few seconds.
"""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402

TOOLS = ("dpkg-deb", "dpkg-gencontrol", "dpkg-shlibdeps", "help2man",
         "lintian", "make")
MISSING = [t for t in TOOLS if not shutil.which(t)]
# A make target named to the user ("to make" in prose is fine).
MAKE_TARGET = re.compile(r"`make|\bmake (?:unit|run|all|images|test|qemu2|"
                         r"install|deb|signed|first)\b")
COMMANDS = ("run", "matrix", "compare", "verdict", "watch", "extract",
            "images", "guest")


def probe_version():
    with open(os.path.join(REPO, "include", "probe.h")) as f:
        return re.search(r'#define PROBE_VERSION "([^"]+)"', f.read()).group(1)


def make_deb():
    """make deb (without its lintian step: test_lintian runs it once) ->
    the .deb's path, or raise with make's output."""
    env = dict(os.environ)
    # Called from `make test`: no jobserver or flags of the outer make.
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    p = subprocess.run(["make", "-C", REPO, "--no-print-directory", "deb",
                        "LINTIAN=no"], capture_output=True, text=True,
                       env=env, timeout=900)
    if p.returncode != 0:
        raise AssertionError("make deb failed:\n" + (p.stdout + p.stderr)[-4000:])
    found = re.findall(r"building package 'clockprobe' in '([^']+\.deb)'",
                       p.stdout + p.stderr)
    if not found:
        raise AssertionError("make deb named no .deb:\n" + p.stdout[-2000:])
    return os.path.join(REPO, found[-1])


@unittest.skipIf(MISSING, "needs %s (scripts/install-deps deb)"
                 % ", ".join(MISSING))
class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.deb = make_deb()
        cls.tmp = tempfile.mkdtemp(prefix="cp-deb-")
        cls.root = os.path.join(cls.tmp, "root")
        subprocess.run(["dpkg", "-x", cls.deb, cls.root], check=True)
        cls.bin = os.path.join(cls.root, "usr", "bin", "clockprobe")
        cls.work = os.path.join(cls.tmp, "work")
        os.mkdir(cls.work)
        # The unpacked tree's own files only: a cache and outputs under
        # the scratch folder, no source tree on the way.
        cls.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(cls.tmp, "cache"),
                       HOME=cls.tmp)
        cls.env.pop("PYTHONPATH", None)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def clockprobe(self, *args, timeout=120, env=None):
        return subprocess.run([self.bin] + list(args), cwd=self.work,
                              env=dict(self.env, **(env or {})),
                              capture_output=True, text=True, timeout=timeout)

    def field(self, name):
        return subprocess.run(["dpkg-deb", "-f", self.deb, name], check=True,
                              capture_output=True, text=True).stdout.strip()

    def test_name_version_and_relations(self):
        version = probe_version()
        self.assertEqual(os.path.basename(self.deb),
                         "clockprobe_%s_%s.deb" % (version, self.field("Architecture")))
        self.assertEqual(self.field("Version"), version)
        depends = [d.split()[0] for d in self.field("Depends").split(", ")]
        self.assertIn("python3", depends)
        # the fleet page's templates (compare --html)
        self.assertIn("python3-jinja2", depends)
        # compare and verdict need nothing more: QEMU and OVMF only recommended
        self.assertFalse({"qemu-system-x86", "ovmf"} & set(depends))
        # every optional feature's package recommended (debian/control)
        recommends = self.field("Recommends").split(", ")
        for pkg in ("qemu-system-x86", "ovmf", "qemu-utils", "mtools",
                    "fdisk", "python3-matplotlib", "python3-psycopg2",
                    "python3-debian"):
            self.assertIn(pkg, recommends)

    def test_layout(self):
        for rel in ("usr/bin/clockprobe", "usr/lib/clockprobe/cptools/cli.py",
                    "usr/lib/clockprobe/cptools/templates/fleet.html",
                    "usr/lib/clockprobe/verdict-judge",
                    "usr/lib/clockprobe/clockprobe-guest",
                    "usr/share/clockprobe/clockprobe.img",
                    "usr/share/clockprobe/clockprobe.iso",
                    "usr/share/clockprobe/clockprobe.efi",
                    "usr/share/clockprobe/clockprobe.elf",
                    "usr/share/clockprobe/report-schema.json",
                    "usr/share/man/man1/clockprobe.1.gz",
                    "usr/share/man/man5/clockprobe-report.5.gz",
                    "usr/share/bash-completion/completions/clockprobe",
                    "usr/share/doc/clockprobe/copyright",
                    "usr/share/doc/clockprobe/README.md",
                    "usr/share/doc/clockprobe/docs/platforms/aws.md",
                    "usr/share/doc/clockprobe/docs/verdict-rules.md"):
            self.assertTrue(os.path.isfile(os.path.join(self.root, rel)), rel)
        for cmd in COMMANDS:
            self.assertTrue(os.path.isfile(os.path.join(
                self.root, "usr/share/man/man1/clockprobe-%s.1.gz" % cmd)), cmd)
        pycache = [d for d, _, _ in os.walk(self.root) if d.endswith("__pycache__")]
        self.assertEqual(pycache, [])
        # one program (bin/clockprobe) and one helper (verdict-judge); the
        # tools in lib are modules the command loads
        lib = os.path.join(self.root, "usr/lib/clockprobe")
        executables = sorted(os.path.relpath(os.path.join(d, n), self.root)
                             for d, _, files in os.walk(os.path.join(self.root, "usr"))
                             for n in files if os.access(os.path.join(d, n), os.X_OK))
        self.assertEqual(executables, ["usr/bin/clockprobe",
                                       "usr/lib/clockprobe/clockprobe-guest",
                                       "usr/lib/clockprobe/verdict-judge"])
        with open(os.path.join(lib, "run")) as f:
            self.assertFalse(f.readline().startswith("#!"))

    def test_version_and_help_from_the_unpacked_tree(self):
        p = self.clockprobe("--version")
        self.assertEqual(p.stdout.strip(), "clockprobe " + probe_version())
        p = self.clockprobe("--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        for cmd in COMMANDS:
            self.assertIn("\n  %s " % cmd, p.stdout)
        p = self.clockprobe("run", "--help", env={"COLUMNS": "1000"})
        self.assertEqual(p.returncode, 0, p.stderr)
        # the installed defaults: the package's own images, never build/
        self.assertIn("pvh " + os.path.join(
            self.root, "usr/share/clockprobe/clockprobe.elf"), p.stdout)
        self.assertIn("(default: ./clockprobe-run)", p.stdout)
        self.assertNotIn(REPO, p.stdout)

    def test_every_document_readme_links_is_shipped(self):
        doc = os.path.join(self.root, "usr/share/doc/clockprobe")
        with open(os.path.join(doc, "README.md")) as f:
            links = set(re.findall(r"\]\((docs/[^)#\s]+)\)", f.read()))
        self.assertIn("docs/platforms/aws.md", links)
        for rel in sorted(links):
            with self.subTest(link=rel):
                # a folder link (docs/platforms/) or a file; the schemas
                # are links into /usr/share/clockprobe, resolved here
                self.assertTrue(os.path.exists(os.path.join(doc, rel)), rel)
        for n in os.listdir(os.path.join(REPO, "docs", "platforms")):
            self.assertTrue(os.path.isfile(os.path.join(
                doc, "docs", "platforms", n)), n)

    def test_every_manual_page_renders_without_warnings(self):
        pages = []
        for sect in ("man1", "man5"):
            d = os.path.join(self.root, "usr/share/man", sect)
            pages += [os.path.join(d, n) for n in sorted(os.listdir(d))]
        self.assertEqual(len(pages), len(COMMANDS) + 2)
        for page in pages:
            with self.subTest(page=os.path.basename(page)):
                text = subprocess.run(["zcat", page], check=True,
                                      capture_output=True, text=True).stdout
                g = subprocess.run(["groff", "-ww", "-man", "-z"], input=text,
                                   capture_output=True, text=True)
                self.assertEqual((g.returncode, g.stderr), (0, ""))
                self.assertRegex(text, r'\n\.SH "?SEE ALSO')
                # generated from the staged install: no build machine paths
                self.assertNotIn(REPO, text)
                self.assertNotIn("/build/", text)
        man = shutil.which("man")
        if man:
            # man-db's own check, all pages in one call (each page alone
            # was a second of a busy machine's time)
            m = subprocess.run([man, "--warnings", "-l"] + pages,
                               capture_output=True, text=True,
                               env=dict(self.env, MANWIDTH="80",
                                        MANPAGER="cat", PAGER="cat"))
            self.assertEqual((m.returncode, m.stderr), (0, ""))
            self.assertEqual(m.stdout.count("SEE ALSO"), len(pages))
        run_page = subprocess.run(["zcat", os.path.join(
            self.root, "usr/share/man/man1/clockprobe-run.1.gz")],
            capture_output=True, text=True).stdout
        run_page = run_page.replace("\\-", "-")  # roff's minus signs
        for opt in ("--accel", "--boot", "--fail-on", "--timeout"):
            self.assertIn(opt, run_page)
        self.assertIn("EXIT STATUS", run_page)
        self.assertIn("/usr/share/clockprobe/clockprobe.elf", run_page)
        for page in pages[:-1]:     # every man1 page (man5 is the format)
            text = subprocess.run(["zcat", page], check=True,
                                  capture_output=True,
                                  text=True).stdout.replace("\\-", "-")
            with self.subTest(page=os.path.basename(page)):
                for sect in ("EXAMPLES", "ENVIRONMENT", "FILES"):
                    self.assertRegex(text, r'\n\.SH "?%s' % sect)
                # every name the tools read, each with what it does
                for name in ("CLOCKPROBE_DATADIR", "CLOCKPROBE_ACCEL",
                             "CLOCKPROBE_QEMU", "CLOCKPROBE_IMAGE_PVH"):
                    self.assertIn(name, text)
                # described by the option it is the default of
                self.assertIn("clockprobe run --accel", text)
                self.assertIn("No other environment name is read", text)
                self.assertIn("/usr/share/doc/clockprobe/docs/platforms",
                              text)
        # the help's document, where the package puts it (not staged)
        verdict_page = subprocess.run(["zcat", os.path.join(
            self.root, "usr/share/man/man1/clockprobe-verdict.1.gz")],
            capture_output=True, text=True).stdout.replace("\\-", "-")
        self.assertIn("/usr/share/doc/clockprobe/docs/verdict-rules.md",
                      verdict_page)

    def older_report(self):
        """A report as a probe from before the per-kernel verdict wrote it:
        real_q35_hpet_off_2026.log's (three ranges, Debian 12's 6.1 on
        acpi_pm), its by_kernel ranges cut to the names the older
        fixture q35-pit-off@qemu-7.2.22.json has -- no releases, no
        long-term lines, no per-range warnings."""
        with open(os.path.join(REPO, "tests/fixtures/reports/qemu-ab",
                               "q35-pit-off@qemu-7.2.22.json")) as f:
            old_keys = set(json.load(f)["verdict"]["by_kernel"][0])
        self.assertNotIn("releases", old_keys)
        e = self.clockprobe("extract", os.path.join(
            REPO, "tests/fixtures/reports/real_q35_hpet_off_2026.log"))
        self.assertEqual(e.returncode, 0, e.stderr)
        report = json.loads(e.stdout)
        for r in report["verdict"]["by_kernel"]:
            for k in set(r) - old_keys:
                del r[k]
        report["verdict"].pop("kernel_set", None)
        path = os.path.join(self.work, "older.json")
        with open(path, "w") as f:
            json.dump(report, f)
        return path

    def test_compare_judges_an_older_report_for_every_lts_kernel(self):
        judge = os.path.join(self.root, "usr/lib/clockprobe/verdict-judge")
        table = json.loads(subprocess.run([judge, "--releases"], check=True,
                                          capture_output=True,
                                          text=True).stdout)
        lts = table["longterm"] + [table["releases"][-1]]
        self.assertIn("6.1", lts)
        db = os.path.join(self.work, "older.db")
        p = self.clockprobe("compare", "--kernels", "lts", "--fail-on",
                            "ACPI_PM_FALLBACK", "--sqlite", db,
                            self.older_report())
        # 3: the gate matched (6.1 and the other lines before 6.12 fall
        # back to acpi_pm); 1 would be "cannot judge"
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertNotIn("cannot judge", p.stderr)
        self.assertNotIn("not built", p.stderr)
        self.assertNotRegex(p.stderr, MAKE_TARGET)
        with sqlite3.connect(db) as c:
            rows = c.execute("SELECT from_kernel, to_kernel, judged, "
                             "warning_codes FROM by_kernel").fetchall()

        def kv(x):
            return tuple(int(n) for n in x.split("."))
        for rel in lts:
            got = [r for r in rows if kv(r[0]) <= kv(rel) and
                   (r[1] is None or kv(rel) <= kv(r[1]))]
            with self.subTest(kernel=rel):
                self.assertEqual(len(got), 1, rows)
                # judged by the report or the packaged rules, with warnings
                self.assertIn(got[0][2], ("report", "rules"))
                self.assertIsNotNone(got[0][3])
        old = [r for r in rows if r[0] == "4.19"][0]
        self.assertEqual(old[2], "rules")
        self.assertIn("ACPI_PM_FALLBACK", old[3])

    def test_compare_html_without_matplotlib_writes_a_page_without_charts(self):
        hide = os.path.join(self.tmp, "no-matplotlib")
        os.makedirs(hide, exist_ok=True)
        with open(os.path.join(hide, "sitecustomize.py"), "w") as f:
            # what an installed system without python3-matplotlib has:
            # the import fails
            f.write("import sys\nsys.modules['matplotlib'] = None\n")
        page = os.path.join(self.work, "fleet.html")
        p = self.clockprobe("compare", "--html", "-o", page, os.path.join(
            REPO, "tests/fixtures/reports/kvm_good.json"),
            env={"PYTHONPATH": hide})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("the page is written without charts", p.stderr)
        self.assertIn("sudo apt install python3-matplotlib", p.stderr)
        with open(page) as f:
            text = f.read()
        self.assertIn("No charts on this page", text)
        self.assertIn("python3-matplotlib", text)
        self.assertNotIn("<svg", text)
        self.assertIn("kvm_good", text)     # the runs are there

    def test_help_and_messages_name_what_a_package_user_has(self):
        for cmd in COMMANDS:
            p = self.clockprobe(cmd, "--help", env={"COLUMNS": "1000"})
            with self.subTest(command=cmd):
                self.assertEqual(p.returncode, 0, p.stderr)
                for word in ("scripts/", "install-deps", "tests/fixtures",
                             "build/"):
                    self.assertNotIn(word, p.stdout)
                self.assertNotRegex(p.stdout, MAKE_TARGET)
        # the documents the help names are the package's own
        p = self.clockprobe("compare", "--help", env={"COLUMNS": "1000"})
        for rel in ("README.md", "docs/verdict-rules.md"):
            path = os.path.join(self.root, "usr/share/doc/clockprobe", rel)
            self.assertIn(path, p.stdout)
            self.assertTrue(os.path.isfile(path), path)
        # a missing judge is a damaged installation, not `make unit`
        moved = os.path.join(self.root, "usr/lib/clockprobe/verdict-judge")
        os.rename(moved, moved + ".away")
        try:
            v = self.clockprobe("verdict", os.path.join(
                REPO, "tests/fixtures/reports/qemu-ab",
                "q35-pit-off@qemu-7.2.22.json"))
        finally:
            os.rename(moved + ".away", moved)
        self.assertEqual(v.returncode, 2)
        self.assertIn("missing from this installation", v.stderr)
        self.assertNotRegex(v.stderr, MAKE_TARGET)

    def test_packaged_elf_is_the_built_one_stripped(self):
        elf = os.path.join(self.root, "usr/share/clockprobe/clockprobe.elf")
        built = os.path.join(REPO, "build", "clockprobe.elf")
        sections = subprocess.run(["readelf", "-SW", elf], check=True,
                                  capture_output=True, text=True).stdout
        self.assertNotIn(".symtab", sections)
        self.assertNotIn(".debug_info", sections)
        self.assertIn(".note.pvh", sections)
        images = []
        for path in (elf, built):
            out = os.path.join(self.tmp, os.path.basename(path) + "."
                               + str(len(images)) + ".bin")
            subprocess.run(["objcopy", "-O", "binary", path, out], check=True)
            with open(out, "rb") as f:
                images.append(f.read())
        self.assertGreater(len(images[0]), 4096)
        self.assertTrue(images[0] == images[1], "loaded bytes differ")

    @unittest.skipUnless(shutil.which("qemu-system-x86_64"),
                         "needs qemu-system-x86_64 (qemu-system-x86)")
    def test_run_pvh_verdict_and_compare_from_the_unpacked_tree(self):
        p = self.clockprobe("run", "--boot", "pvh", "--accel", "tcg",
                            "--quiet", "--timeout", "120", "--label",
                            "packaged", "--kernel", "6.1", timeout=240)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("report verified", p.stdout)
        # it booted the package's ELF
        elf = os.path.join(self.root, "usr/share/clockprobe/clockprobe.elf")
        self.assertIn("-kernel " + elf, p.stderr)
        out = os.path.join(self.work, "clockprobe-run", "latest")  # docs/run-folder.md
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        self.assertEqual(report["probe"]["boot"], "pvh")
        self.assertEqual(report["probe"]["version"], probe_version())
        # --label and --kernel reached the probe (on its command line)
        self.assertEqual(report["probe"]["label"], "packaged")
        self.assertEqual(report["verdict"]["linux_kernel"], "6.1")
        self.assertIn("verdict: Linux 6.1 would use", p.stdout)
        # the packaged judge (no sanitizers) gives the probe's own verdict
        v = self.clockprobe("verdict", "--check", os.path.join(out, "report.raw.json"))
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn(report["verdict"]["linux_clocksource"], v.stdout)
        # the run's label is compare's label for it (probe.label)
        c = self.clockprobe("compare", os.path.join(out, "report.json"),
                            os.path.join(out, "serial.log"))
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertIn("packaged", c.stdout)
        self.assertIn(report["verdict"]["linux_clocksource"], c.stdout)
        e = subprocess.run([self.bin, "extract", "--raw",
                            os.path.join(out, "serial.log")], cwd=self.work,
                           env=self.env, capture_output=True)
        with open(os.path.join(out, "report.raw.json"), "rb") as f:
            self.assertEqual(e.stdout, f.read() + b"\n")

    @unittest.skipUnless(shutil.which("qemu-img") and shutil.which("mformat"),
                         "needs qemu-img (qemu-utils) and mtools")
    def test_images_from_the_packaged_efi(self):
        out = os.path.join(self.tmp, "images")
        p = self.clockprobe("images", "--out", out, "--formats", "img,qcow2",
                            "--settings", "wait=5")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(sorted(os.listdir(out)),
                         ["clockprobe.img", "clockprobe.qcow2"])
        # the listing also names the package's own images
        self.assertIn(os.path.join(self.root, "usr/share/clockprobe/clockprobe.elf"),
                      p.stdout)
        same = subprocess.run(["qemu-img", "compare", "-f", "raw", "-F", "qcow2",
                               os.path.join(out, "clockprobe.img"),
                               os.path.join(out, "clockprobe.qcow2")],
                              capture_output=True, text=True)
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)

    def test_guest_runs_the_packaged_collector(self):
        p = self.clockprobe("guest", "--", "--version")
        self.assertEqual((p.returncode, p.stdout.strip()),
                         (0, "clockprobe-guest " + probe_version()), p.stderr)
        # a real, short measurement of this machine, its frame verified
        p = self.clockprobe("guest", "--quiet", "--budget-ms", "10",
                            "--samples", "1024")
        self.assertIn(p.returncode, (0, 1), p.stderr)  # 1: with errors[] entries
        log = os.path.join(self.tmp, "guest.log")
        with open(log, "w") as f:
            f.write(p.stdout)
        e = self.clockprobe("extract", log)
        self.assertEqual(e.returncode, 0, e.stderr)
        self.assertEqual(json.loads(e.stdout)["guest"]["version"], probe_version())

    def test_bash_completion(self):
        bash = shutil.which("bash")
        if not bash:
            self.skipTest("needs bash")
        comp = os.path.join(self.root, "usr/share/bash-completion/completions/clockprobe")
        # bash-completion's two helpers, reduced to what the script uses.
        script = r'''
_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]};
    words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
_filedir() { COMPREPLY=(FILES$1); }
source "$1"
ask() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _clockprobe;
    echo "${COMPREPLY[*]}"; }
ask clockprobe r
ask clockprobe run --bo
ask clockprobe run --boot ""
ask clockprobe compare --fail-on w
ask clockprobe verdict ""
ask clockprobe matrix --out ""
ask clockprobe help ex
complete -p clockprobe
'''
        p = subprocess.run([bash, "-c", script, "bash", comp],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(), [
            "run", "--boot", "uefi pvh iso fat", "warning", "FILES",
            "FILES-d", "extract", "complete -F _clockprobe clockprobe"])

    def test_lintian(self):
        p = subprocess.run(["lintian", "--fail-on", "none", "--display-info",
                            "--show-overrides", self.deb],
                           capture_output=True, text=True, timeout=600)
        findings = [ln for ln in (p.stdout + p.stderr).splitlines()
                    if re.match(r"[EWIPXO]: ", ln)]
        print("\nlintian %s:\n  %s" % (os.path.basename(self.deb),
                                       "\n  ".join(findings) or "clean"),
              file=sys.stderr)
        self.assertEqual([f for f in findings if f[0] in "EW"], [])
        # every finding left is one the package explains (O: overridden)
        self.assertEqual([f for f in findings if f[0] not in "O"], [])


if __name__ == "__main__":
    unittest.main()
