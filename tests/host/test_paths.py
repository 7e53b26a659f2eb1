"""Where the tools find their files and what they tell the user, in both
layouts (cptools/paths.py), without building a package: the source tree
as it is, and an installed layout made by copying cptools/ and the
commands into a scratch PREFIX/lib/clockprobe as `make install` does.
Also compare --html with matplotlib hidden, from the tree (test_package
tries the same from the unpacked .deb).  About two seconds.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS  # noqa: E402

from cptools import judgment, kernels, paths  # noqa: E402

# What the installed copy's paths module says, printed as JSON.
ASK = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from cptools import judgment, kernels, paths
print(json.dumps({
    "in_tree": paths.IN_TREE, "judge": paths.VERDICT_JUDGE,
    "kernels_judge": kernels.JUDGE, "verdict": paths.VERDICT_SCRIPT,
    "docs": paths.DOCS, "aws": paths.doc("platforms/aws.md"),
    "tool": paths.tool("compare"),
    "not_built": paths.not_built(paths.VERDICT_JUDGE, "unit"),
    "need": paths.need_package("python3-matplotlib"),
    "judged": judgment.rejudge.__defaults__[0]}))
"""


class SourceTree(unittest.TestCase):
    def test_the_tree_names_its_build_and_make_targets(self):
        self.assertTrue(paths.IN_TREE)
        judge = os.path.join(REPO, "build", "host", "verdict-judge")
        self.assertEqual(paths.VERDICT_JUDGE, judge)
        self.assertEqual(kernels.JUDGE, judge)
        self.assertEqual(judgment.rejudge.__defaults__[0], judge)
        self.assertEqual(paths.VERDICT_SCRIPT,
                         os.path.join(SCRIPTS, "verdict"))
        self.assertTrue(os.path.isfile(paths.doc("platforms/aws.md")))
        self.assertEqual(paths.tool("compare"), "scripts/compare")
        self.assertIn("(make unit)", paths.not_built(judge, "unit"))
        self.assertIn("scripts/install-deps",
                      paths.need_package("python3-matplotlib"))


class Installed(unittest.TestCase):
    """PREFIX/lib/clockprobe as make install lays it out, under a scratch
    root that is no source tree."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="cp-paths-")
        cls.prefix = os.path.join(cls.tmp, "root", "usr")
        cls.lib = os.path.join(cls.prefix, "lib", "clockprobe")
        shutil.copytree(os.path.join(SCRIPTS, "cptools"),
                        os.path.join(cls.lib, "cptools"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("verdict", "compare"):
            shutil.copy(os.path.join(SCRIPTS, name), cls.lib)
        with open(os.path.join(cls.lib, "VERSION"), "w") as f:
            f.write("0\n")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        p = subprocess.run([sys.executable, "-c", ASK, cls.lib], env=env,
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise AssertionError(p.stderr)
        cls.got = json.loads(p.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_path_is_under_the_prefix_it_was_unpacked_into(self):
        g = self.got
        self.assertFalse(g["in_tree"])
        judge = os.path.join(self.lib, "verdict-judge")
        # not PREFIX/lib/build/host/verdict-judge (issue 38, finding 2)
        self.assertEqual(g["judge"], judge)
        self.assertEqual(g["kernels_judge"], judge)
        self.assertEqual(g["judged"], judge)
        self.assertEqual(g["verdict"], os.path.join(self.lib, "verdict"))
        self.assertEqual(g["aws"], os.path.join(
            self.prefix, "share", "doc", "clockprobe", "docs", "platforms",
            "aws.md"))

    def test_messages_name_the_command_and_apt_not_make(self):
        g = self.got
        self.assertEqual(g["tool"], "clockprobe compare")
        self.assertIn("reinstall the clockprobe package", g["not_built"])
        self.assertEqual(g["need"], "sudo apt install python3-matplotlib")
        for text in (g["not_built"], g["need"]):
            self.assertNotIn("make", text)
            self.assertNotIn("install-deps", text)


class EnvironmentNames(unittest.TestCase):
    """clockprobe(1)'s ENVIRONMENT says no name but the CLOCKPROBE_ ones
    (and the system's own) is read: every literal os.environ name in the
    commands and the cptools modules they reach is one of those."""

    SYSTEM = {"XDG_CACHE_HOME", "SOURCE_DATE_EPOCH"}

    def test_the_commands_read_only_clockprobe_names(self):
        import re
        commands = ["run", "matrix", "compare", "verdict", "watch"]
        texts = {}
        for n in commands:
            with open(os.path.join(SCRIPTS, n)) as f:
                texts[n] = f.read()
        # boot/'s image builders, which `clockprobe images` runs
        for n in ("mkmedia.py", "mkova.py"):
            with open(os.path.join(REPO, "boot", n)) as f:
                texts["boot/" + n] = f.read()
        mods = os.path.join(SCRIPTS, "cptools")
        for n in sorted(os.listdir(mods)):
            if n.endswith(".py"):
                with open(os.path.join(mods, n)) as f:
                    texts["cptools/" + n] = f.read()
        # a module no command or other module names is some other
        # script's (arm64guest.py: scripts/linux-guest's, a tree tool)
        reached = {k for k in texts if not k.startswith("cptools/") or any(
            re.search(r"\b%s\b" % k[8:-3], t) for o, t in texts.items()
            if o != k)}
        self.assertIn("cptools/paths.py", reached)
        read = re.compile(r"""environ(?:\.get\(|\[)\s*["']([A-Z0-9_]+)["']""")
        for name in sorted(reached):
            for env in read.findall(texts[name]):
                with self.subTest(file=name, name=env):
                    self.assertTrue(env.startswith("CLOCKPROBE_") or
                                    env in self.SYSTEM, env)


class HtmlWithoutMatplotlib(unittest.TestCase):
    def test_the_page_is_written_and_says_it_has_no_charts(self):
        tmp = tempfile.mkdtemp(prefix="cp-nompl-")
        self.addCleanup(shutil.rmtree, tmp, True)
        with open(os.path.join(tmp, "sitecustomize.py"), "w") as f:
            f.write("import sys\nsys.modules['matplotlib'] = None\n")
        page = os.path.join(tmp, "fleet.html")
        env = dict(os.environ, PYTHONPATH=tmp)
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "compare"),
                            "--html", "-o", page,
                            os.path.join(FIX, "kvm_good.json"),
                            os.path.join(FIX, "kvm_fallback.json")],
                           env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("--html: charts need Debian's python3-matplotlib",
                      p.stderr)
        self.assertIn("the page is written without charts", p.stderr)
        with open(page) as f:
            text = f.read()
        self.assertIn("No charts on this page", text)
        self.assertNotIn("<svg", text)
        for label in ("kvm_good", "kvm_fallback"):
            self.assertIn(label, text)
        # --svg asks for charts alone: still an error without matplotlib
        s = subprocess.run([sys.executable, os.path.join(SCRIPTS, "compare"),
                            "--svg", os.path.join(tmp, "svg"),
                            os.path.join(FIX, "kvm_good.json")],
                           env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(s.returncode, 2, s.stderr)
        self.assertIn("python3-matplotlib", s.stderr)


if __name__ == "__main__":
    unittest.main()
