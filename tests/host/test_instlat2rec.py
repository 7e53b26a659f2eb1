"""tests/fixtures/cpuid/instlat2rec.py: an InstLatx64 CPUID dump's logical
CPU becomes a recording the probe's decoders replay (the real Hyper-V
root-partition fixtures hyperv-root-*.txt were made with it).  The dump
below is the first lines of InstLatx64's GenuineIntel00206E6_Beckton_CPUID2
layout, two logical CPUs, written here in that format."""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

from hostlib import REPO

CPUID_DIR = os.path.join(REPO, "tests", "fixtures", "cpuid")
TOOL = os.path.join(CPUID_DIR, "instlat2rec.py")

DUMP = """------[ Logical CPU #0 ]------

allcpu: Package 0 / Core 0 / Thread 0: Valid

CPUID 00000000: 0000000B-756E6547-6C65746E-49656E69 [GenuineIntel]
CPUID 00000001: 000206E6-00200800-80B86381-BFCBFBFF
CPUID 00000004: 3C004121-01C0003F-0000003F-00000000 [SL 00]
CPUID 00000004: 3C004122-00C0003F-0000007F-00000000 [SL 01]
CPUID 40000000: 40000006-7263694D-666F736F-76482074 [Microsoft Hv]

L1    Data Cache:    32 KB,  8-way Associative, 64-byte Line

------[ Logical CPU #1 ]------

CPUID 00000000: 0000000B-756E6547-6C65746E-49656E69 [GenuineIntel]
CPUID 00000001: 000206E6-01200800-80B86381-BFCBFBFF
"""


def load_tool():
    spec = importlib.util.spec_from_file_location("instlat2rec", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class InstLatConvert(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tool = load_tool()

    def test_one_cpu_into_records(self):
        out = self.tool.convert(DUMP, 0, ["a test dump"])
        lines = out.splitlines()
        self.assertEqual(lines[0], "# source: a test dump")
        self.assertIn("# unrecorded: clamp", lines)
        data = [ln for ln in lines if not ln.startswith("#")]
        self.assertEqual(data, [
            "00000000 0 0000000b 756e6547 6c65746e 49656e69",
            "00000001 0 000206e6 00200800 80b86381 bfcbfbff",
            "00000004 0 3c004121 01c0003f 0000003f 00000000",
            "00000004 1 3c004122 00c0003f 0000007f 00000000",
            "40000000 0 40000006 7263694d 666f736f 76482074",
        ])
        # the second CPU's initial APIC ID differs
        one = self.tool.convert(DUMP, 1)
        self.assertIn("00000001 0 000206e6 01200800 80b86381 bfcbfbff", one)

    def test_amd_replays_unrecorded_leaves_as_zero(self):
        amd = DUMP.replace("756E6547-6C65746E-49656E69", "68747541-444D4163-69746E65")
        self.assertIn("# unrecorded: zero", self.tool.convert(amd))

    def test_bad_line_and_missing_cpu_are_named(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(DUMP.replace("CPUID 00000001: 000206E6-", "CPUID 00000001: 000206E6+"))
        try:
            p = subprocess.run([sys.executable, TOOL, f.name], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("line 6: not a CPUID line", p.stderr)
            p = subprocess.run([sys.executable, TOOL, f.name, "--cpu", "7"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("logical CPU #7: no CPUID lines", p.stderr)
        finally:
            os.unlink(f.name)

    def test_committed_fixtures_are_its_output(self):
        """Each hyperv-root-*.txt names its InstLatx64 file and holds
        records only in the converter's own form."""
        rec = re.compile(r"^[0-9a-f]{8} [0-9a-f]+ [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8}$")
        names = sorted(n for n in os.listdir(CPUID_DIR) if n.startswith("hyperv-root-"))
        self.assertEqual(len(names), 3)
        for name in names:
            with open(os.path.join(CPUID_DIR, name)) as f:
                text = f.read()
            self.assertIn("InstLatx64", text)
            self.assertIn("converted by tests/fixtures/cpuid/instlat2rec.py", text)
            self.assertIn("CreatePartitions set", text)
            data = [ln for ln in text.splitlines() if not ln.startswith("#")]
            self.assertTrue(data and all(rec.match(ln) for ln in data), name)


if __name__ == "__main__":
    unittest.main()
