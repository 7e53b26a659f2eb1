"""qemu_command must keep building the exact argv it built before the
scripts/cptools split (tests/fixtures/argv/qemu_command.json).

The fixture was recorded with the pre-split scripts/cpqemu.py; every tool
(run, matrix, linux-guest, integration tests) boots through this argv, so
an accidental change here would silently change what every measurement
means.  The linux-* cases are scripts/linux-guest's real-guest boots
(recorded when its own argv builder moved here: the same options as
before, in qemu_command's order).  Host-specific paths (OVMF, temporary
folders) are replaced by placeholders, and the QEMU environment variable
is cleared while building (it would replace argv[0]).
Re-record deliberately with: python3 tests/host/test_argv_golden.py --record
"""

import json
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO, load_script  # noqa: E402
from cptools import qemu  # noqa: E402

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
    "uefi-qemu-path": ("@TMP@/clockprobe.img", dict(
        qemu="/opt/qemu-10.0/bin/qemu-system-x86_64",
        vars_copy="@TMP@/OVMF_VARS.fd")),
    # scripts/linux-guest's guests: q35-qemu64-smp2-nohpet (SeaBIOS) and
    # q35-skylake-sockets2 (OVMF, the kernel's EFI stub).
    "linux-seabios-q35-nohpet": ("@TMP@/vmlinuz", dict(
        boot="linux", machine="q35,hpet=off", cpu="qemu64", smp="2",
        mem="512M", initrd="@TMP@/initrd.cpio",
        append="console=ttyS0 quiet panic=-1 clockprobe.settle=8",
        debug_exit=False)),
    "linux-ovmf-q35-skylake-sockets2": ("@TMP@/vmlinuz", dict(
        boot="linux", machine="q35", cpu="Skylake-Server",
        smp="4,sockets=2,cores=2", mem="512M", initrd="@TMP@/initrd.cpio",
        append="console=ttyS0 quiet panic=-1 clockprobe.settle=8",
        firmware="ovmf", vars_copy="@TMP@/OVMF_VARS.fd", debug_exit=False)),
}


def build_all():
    """Return {case: argv} with host paths replaced by placeholders."""
    tmp = tempfile.mkdtemp(prefix="argv-golden-")
    env = mock.patch.dict(os.environ)
    env.start()
    os.environ.pop(qemu.QEMU_ENV, None)
    try:
        os.makedirs(os.path.join(tmp, "esp"))
        with open(os.path.join(tmp, "clockprobe.efi"), "wb") as f:
            f.write(b"MZ")
        try:
            ovmf = qemu.find_ovmf()[0]
        except qemu.QemuError:
            ovmf = None
        out = {}
        for name, (image, kw) in CASES.items():
            kw = {k: v.replace("@TMP@", tmp) if isinstance(v, str) else v
                  for k, v in kw.items()}
            if ovmf is None and "ovmf_code" not in kw and (kw.get(
                    "boot", "uefi") not in ("pvh", "linux")
                    or kw.get("firmware") == "ovmf"):
                kw["ovmf_code"] = "@OVMF@"
            argv = qemu.qemu_command(image.replace("@TMP@", tmp), **kw)
            sub = [a.replace(tmp, "@TMP@") for a in argv]
            if ovmf:
                sub = [a.replace(ovmf, "@OVMF@") for a in sub]
            out[name] = sub
        return out
    finally:
        env.stop()
        shutil.rmtree(tmp, ignore_errors=True)


class ArgvGoldenTest(unittest.TestCase):
    def test_argv_unchanged(self):
        with open(GOLDEN) as f:
            golden = json.load(f)
        now = build_all()
        self.assertEqual(sorted(now), sorted(golden))
        for name in CASES:
            self.assertEqual(now[name], golden[name], name)


class LinuxGuestArgvTest(unittest.TestCase):
    """scripts/linux-guest builds its guests' argv with qemu_command: the
    linux-* cases above are what it boots on those matrix.conf rows."""

    CASES = (("linux-seabios-q35-nohpet", "q35-qemu64-smp2-nohpet",
              "seabios"),
             ("linux-ovmf-q35-skylake-sockets2", "q35-skylake-sockets2",
              "ovmf"))

    def test_linux_guest_boots_the_golden_argv(self):
        with open(GOLDEN) as f:
            golden = json.load(f)
        lg = load_script("linux-guest")
        with mock.patch.dict(os.environ):
            os.environ.pop(qemu.QEMU_ENV, None)
            for case, config, firmware in self.CASES:
                if firmware == "ovmf":
                    try:
                        ovmf = qemu.find_ovmf()[0]
                    except qemu.QemuError as e:
                        self.skipTest(str(e))
                argv = lg.guest_command(
                    "@TMP@/vmlinuz", config, firmware, None,
                    "@TMP@/OVMF_VARS.fd" if firmware == "ovmf" else None)
                argv = [a.replace(lg.INITRD, "@TMP@/initrd.cpio")
                        for a in argv]
                if firmware == "ovmf":
                    argv = [a.replace(ovmf, "@OVMF@") for a in argv]
                self.assertEqual(argv, golden[case], case)


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        with open(GOLDEN, "w") as f:
            json.dump(build_all(), f, indent=1)
            f.write("\n")
        print("recorded", GOLDEN)
    else:
        unittest.main()
