"""qemu_command must keep building the exact argv it built before the
scripts/cptools split (tests/fixtures/argv/qemu_command.json).

The fixture was recorded with the pre-split scripts/cpqemu.py; every tool
(run, matrix, integration tests) boots the probe through this argv, so an
accidental change here would silently change what every measurement means.
Host-specific paths (OVMF, temporary folders) are replaced by placeholders.
Re-record deliberately with: python3 tests/host/test_argv_golden.py --record
"""

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402
import cpqemu  # noqa: E402

GOLDEN = os.path.join(REPO, "tests", "fixtures", "argv", "qemu_command.json")

# name -> (image, keyword arguments); "@TMP@" is a fresh temporary folder,
# "@OVMF@" find_ovmf()'s code file (only substituted back when present).
CASES = {
    "uefi-defaults": ("@TMP@/clockprobe.img", dict(
        vars_copy="@TMP@/OVMF_VARS.fd")),
    "uefi-pc-max-smp4": ("@TMP@/clockprobe.img", dict(
        machine="pc", cpu="max", smp="4", vars_copy="@TMP@/OVMF_VARS.fd")),
    "uefi-hpet-off-writable": ("@TMP@/disk.img", dict(
        machine="q35,hpet=off", snapshot=False, mem="64M",
        vars_copy="@TMP@/OVMF_VARS.fd")),
    "uefi-icount-extra-list": ("@TMP@/clockprobe.img", dict(
        extra=["-icount", "shift=0,sleep=off"],
        vars_copy="@TMP@/OVMF_VARS.fd")),
    "uefi-extra-string": ("@TMP@/clockprobe.img", dict(
        extra="-global 'kvm-pit.lost_tick_policy=discard' -S",
        vars_copy="@TMP@/OVMF_VARS.fd", ovmf_code="/fw/CODE.fd")),
    "uefi-kvm-host": ("@TMP@/clockprobe.img", dict(
        accel="kvm", cpu="host", smp="2", vars_copy="@TMP@/OVMF_VARS.fd")),
    "uefi-serial-file": ("@TMP@/clockprobe.img", dict(
        serial_path="@TMP@/serial.log", vars_copy="@TMP@/OVMF_VARS.fd")),
    "iso-q35": ("@TMP@/clockprobe.iso", dict(
        boot="iso", smp="1,maxcpus=4", vars_copy="@TMP@/OVMF_VARS.fd")),
    "fat-dir": ("@TMP@/esp", dict(
        boot="fat", smp="2", vars_copy="@TMP@/OVMF_VARS.fd")),
    "fat-efi-file": ("@TMP@/clockprobe.efi", dict(
        boot="fat", machine="pc", vars_copy="@TMP@/work/OVMF_VARS.fd")),
    "pvh-pc": ("@TMP@/clockprobe.elf", dict(boot="pvh", machine="pc",
                                            smp="2")),
    "pvh-kvm-host-nokvmclock": ("@TMP@/clockprobe.elf", dict(
        boot="pvh", accel="kvm", cpu="host,-kvmclock", smp="2", mem=512)),
    "pvh-kvm-host-already-fixed": ("@TMP@/clockprobe.elf", dict(
        boot="pvh", accel="kvm", cpu="host,-arch-capabilities")),
    "pvh-tcg-host-cpu": ("@TMP@/clockprobe.elf", dict(
        boot="pvh", cpu="host", extra=None)),
}


def build_all():
    """Return {case: argv} with host paths replaced by placeholders."""
    tmp = tempfile.mkdtemp(prefix="argv-golden-")
    try:
        os.makedirs(os.path.join(tmp, "esp"))
        with open(os.path.join(tmp, "clockprobe.efi"), "wb") as f:
            f.write(b"MZ")
        try:
            ovmf = cpqemu.find_ovmf()[0]
        except cpqemu.QemuError:
            ovmf = None
        out = {}
        for name, (image, kw) in CASES.items():
            kw = {k: v.replace("@TMP@", tmp) if isinstance(v, str) else v
                  for k, v in kw.items()}
            if ovmf is None and "ovmf_code" not in kw and kw.get(
                    "boot", "uefi") != "pvh":
                kw["ovmf_code"] = "@OVMF@"
            argv = cpqemu.qemu_command(image.replace("@TMP@", tmp), **kw)
            sub = [a.replace(tmp, "@TMP@") for a in argv]
            if ovmf:
                sub = [a.replace(ovmf, "@OVMF@") for a in sub]
            out[name] = sub
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class ArgvGoldenTest(unittest.TestCase):
    def test_argv_unchanged(self):
        with open(GOLDEN) as f:
            golden = json.load(f)
        now = build_all()
        self.assertEqual(sorted(now), sorted(golden))
        for name in CASES:
            self.assertEqual(now[name], golden[name], name)


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        with open(GOLDEN, "w") as f:
            json.dump(build_all(), f, indent=1)
            f.write("\n")
        print("recorded", GOLDEN)
    else:
        unittest.main()
