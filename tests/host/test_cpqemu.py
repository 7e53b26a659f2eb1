"""Host tests for the QEMU plumbing (scripts/cptools/) and scripts/matrix.

Run: python3 -m unittest discover -s tests/host -v   (from the repo root)

Fixtures: tests/fixtures/reports/ (real captures; gen.py there derives the rest).  Tests that
boot QEMU use only tiny stand-in images built here (a PVH ELF and a PE32+
EFI app that print a framed report), never the probe, and are skipped when
QEMU, OVMF or binutils are missing.
"""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
import contextlib
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS, load_script  # noqa: E402
from cptools import boot as cpboot  # noqa: E402
from cptools import frame, kvm, process, qemu, query, standin  # noqa: E402
from cptools import matrixconf  # noqa: E402



matrix = load_script("matrix")


def fixture(name):
    with open(os.path.join(FIX, name), "rb") as f:
        return f.read()


def fixture_json(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


def have_qemu():
    try:
        qemu.find_qemu()  # the default one, or QEMU=PATH's
        return True
    except qemu.QemuError:
        return False


def have_binutils():
    return shutil.which("as") is not None and shutil.which("ld") is not None


def have_ovmf():
    try:
        qemu.find_ovmf()
        return True
    except qemu.QemuError:
        return False


BEGIN = "==== CLOCKPROBE REPORT BEGIN schema=1 ===="


class ExtractReportTest(unittest.TestCase):
    def test_clean_log(self):
        rep, err = frame.extract_report(fixture("clean.log"))
        self.assertIsNone(err)
        self.assertEqual(rep, fixture_json("tcg_q35.json"))
        self.assertEqual(rep["platform"]["hypervisor"]["signature"],
                         "TCGTCGTCGTCG")

    def test_crlf_log(self):
        rep, err = frame.extract_report(fixture("crlf.log"))
        self.assertIsNone(err)
        self.assertEqual(rep, fixture_json("tcg_q35.json"))

    def test_lone_cr_line_ends(self):
        text = fixture("clean.log").decode().replace("\n", "\r")
        rep, err = frame.extract_report(text)
        self.assertIsNone(err)
        self.assertEqual(rep["schema"], 1)

    def test_ansi_noise_log(self):
        raw = fixture("ansi.log")
        self.assertIn(b"\x1b[", raw)
        rep, err = frame.extract_report(raw)
        self.assertIsNone(err)
        self.assertEqual(rep, fixture_json("tcg_q35.json"))

    def test_two_reports_takes_the_last(self):
        rep, err = frame.extract_report(fixture("two_reports.log"))
        self.assertIsNone(err)
        self.assertEqual(rep["platform"]["hypervisor"]["name"], "kvm")

    def test_truncated(self):
        rep, err = frame.extract_report(fixture("truncated.log"))
        self.assertIsNone(rep)
        self.assertEqual(err, "truncated: END marker missing")

    def test_truncated_copy_after_a_whole_one(self):
        text = fixture("clean.log").decode() + BEGIN + "\n{\"schema\":1,"
        rep, err = frame.extract_report(text)
        self.assertIsNone(err)
        self.assertEqual(rep["platform"]["hypervisor"]["name"], "tcg")

    def test_corrupted_crc(self):
        rep, err = frame.extract_report(fixture("bad_crc.log"))
        self.assertIsNone(rep)
        self.assertTrue(err.startswith("CRC mismatch"), err)

    def test_wrong_length(self):
        rep, err = frame.extract_report(fixture("bad_length.log"))
        self.assertIsNone(rep)
        self.assertTrue(err.startswith("length mismatch"), err)

    def test_no_report(self):
        rep, err = frame.extract_report(fixture("no_report.log"))
        self.assertIsNone(rep)
        self.assertIn("BEGIN marker not found", err)

    def test_crc_is_standard_crc32(self):
        # CRC-32/ISO-HDLC check value: crc32("123456789") = 0xCBF43926.
        # The payload passes length and CRC, then fails as "not an object":
        # so the CRC comparison itself was exactly the standard one.
        text = "%s\n123456789\n==== CLOCKPROBE REPORT END crc32=CBF43926 " \
               "bytes=9 ====\n" % BEGIN
        rep, err = frame.extract_report(text)
        self.assertIsNone(rep)
        self.assertEqual(err, "JSON is not an object")
        bad = text.replace("CBF43926", "CBF43927")
        self.assertTrue(frame.extract_report(bad)[1].startswith(
            "CRC mismatch"))

    def test_length_counts_utf8_bytes(self):
        # {"s":"\u00e9"} is 9 characters but 10 UTF-8 bytes (e-acute = 2).
        line = '{"s":"\u00e9"}'
        import zlib
        crc = zlib.crc32(line.encode("utf-8"))
        ok = "%s\n%s\n==== CLOCKPROBE REPORT END crc32=%08x bytes=10 ====" \
             % (BEGIN, line, crc)
        self.assertEqual(frame.extract_report(ok)[0], {"s": "\u00e9"})
        wrong = ok.replace("bytes=10", "bytes=9")
        self.assertTrue(frame.extract_report(wrong)[1].startswith(
            "length mismatch"))

    def test_meta(self):
        rep, err, meta = frame.extract_report_meta(
            '%s\n{"schema":1}\n==== CLOCKPROBE REPORT END crc32=%08x '
            'bytes=12 ====\n' % (BEGIN, __import__("zlib").crc32(
                b'{"schema":1}')))
        self.assertIsNone(err)
        self.assertEqual(meta["bytes"], 12)

    def test_two_json_lines_are_malformed(self):
        text = "%s\n{}\n{}\n==== CLOCKPROBE REPORT END crc32=00000000 " \
               "bytes=2 ====\n" % BEGIN
        self.assertTrue(frame.extract_report(text)[1].startswith(
            "malformed"))

    def test_schema_mismatch(self):
        framed = frame.frame_report({"schema": 2})
        rep, err = frame.extract_report(framed)
        self.assertIsNone(rep)
        self.assertIn("schema mismatch", err)

    def test_frame_round_trip(self):
        rep = fixture_json("hyperv.json")
        self.assertEqual(frame.extract_report(frame.frame_report(rep))[0],
                         rep)

    def test_load_report_file_json_and_log(self):
        rep, err = frame.load_report_file(os.path.join(FIX, "hyperv.json"))
        self.assertIsNone(err)
        self.assertEqual(rep["platform"]["hypervisor"]["name"], "hyperv")
        rep, err = frame.load_report_file(os.path.join(FIX,
                                                        "kvm_fallback.log"))
        self.assertIsNone(err)
        self.assertEqual(rep["verdict"]["linux_clocksource"], "acpi_pm")
        rep, err = frame.load_report_file(os.path.join(FIX, "nope.json"))
        self.assertIsNone(rep)
        self.assertIn("cannot read", err)


class GetPathTest(unittest.TestCase):
    R = {
        "schema": 1,
        "sources": [{"name": "tsc", "status": "ok"},
                    {"name": "hpet", "status": "absent", "freq_hz": None}],
        "verdict": {"warnings": [{"code": "ACPI_PM_FALLBACK",
                                  "severity": "critical"}]},
        "drift": [{"a": "tsc", "b": "hpet", "ppm": -3},
                  {"a": "tsc", "b": "acpi_pm", "ppm": 5}],
        "cross_cpu": {"per_cpu": [{"cpu": 0}, {"cpu": 1}, {"cpu": 2}]},
        "platform": {"acpi": {"tables": ["FACP", "HPET"]},
                     "hypervisor": {"signatures": [
                         {"leaf": 1073741824, "name": "hyperv"},
                         {"leaf": 1073742080, "name": "kvm"}]}},
    }

    def g(self, p, default=None):
        return query.get_path(self.R, p, default)

    def test_by_name(self):
        self.assertEqual(self.g("sources[hpet].status"), "absent")
        self.assertEqual(self.g("sources[tsc].status"), "ok")

    def test_by_code(self):
        self.assertEqual(self.g("verdict.warnings[ACPI_PM_FALLBACK]."
                                "severity"), "critical")

    def test_drift_pair(self):
        self.assertEqual(self.g("drift[tsc/hpet].ppm"), -3)
        self.assertEqual(self.g("drift[tsc/acpi_pm].ppm"), 5)
        self.assertIsNone(self.g("drift[hpet/tsc].ppm"))

    def test_index(self):
        self.assertEqual(self.g("cross_cpu.per_cpu[1].cpu"), 1)
        self.assertEqual(self.g("cross_cpu.per_cpu[-1].cpu"), 2)
        self.assertIsNone(self.g("cross_cpu.per_cpu[3]"))

    def test_field_equals(self):
        self.assertEqual(self.g("platform.hypervisor.signatures"
                                "[leaf=1073742080].name"), "kvm")

    def test_string_member(self):
        self.assertEqual(self.g("platform.acpi.tables[HPET]"), "HPET")
        self.assertIsNone(self.g("platform.acpi.tables[MCFG]"))

    def test_missing_and_default(self):
        self.assertEqual(self.g("sources[pit].status", "n/a"), "n/a")
        self.assertEqual(self.g("nothing.here", 7), 7)
        self.assertIsNone(self.g("schema.deeper"))
        self.assertIs(query.get_path(self.R, "sources[hpet].freq_hz", 5),
                      None)  # present but null is not "missing"
        self.assertFalse(query.has_path(self.R, "sources[pit]"))
        self.assertTrue(query.has_path(self.R, "sources[hpet].freq_hz"))

    def test_table_entries_by_signature(self):
        r = {"platform": {"acpi": {"tables": [
            {"signature": "XSDT", "checksum_ok": True},
            {"signature": "FACP", "revision": 3}]}}}
        self.assertEqual(query.get_path(r, "platform.acpi.tables[FACP]."
                                            "revision"), 3)
        self.assertFalse(query.has_path(r, "platform.acpi.tables[HPET]"))

    def test_bare_array(self):
        self.assertEqual(len(self.g("sources")), 2)

    def test_bad_path(self):
        with self.assertRaises(ValueError):
            query.get_path(self.R, "sources..status")


class QemuCommandTest(unittest.TestCase):
    def setUp(self):
        # argv[0] follows QEMU=PATH; these tests are about the default.
        env = mock.patch.dict(os.environ)
        env.start()
        self.addCleanup(env.stop)
        os.environ.pop(qemu.QEMU_ENV, None)

    def cmd(self, **kw):
        kw.setdefault("vars_copy", "/tmp/x/OVMF_VARS.fd")
        kw.setdefault("ovmf_code", "/ovmf/CODE.fd")
        return qemu.qemu_command(kw.pop("image", "/b/clockprobe.img"),
                                 **kw)

    def test_linux_guest_boot(self):
        """scripts/linux-guest's direct kernel boot: -kernel, -initrd,
        -append; SeaBIOS adds nothing, OVMF its flash pair; the probe's
        isa-debug-exit only when asked for."""
        a = self.cmd(image="/k/vmlinuz", boot="linux", initrd="/k/initrd",
                     append="console=ttyS0 quiet", debug_exit=False,
                     vars_copy=None)
        self.assertEqual(a[a.index("-kernel") + 1], "/k/vmlinuz")
        self.assertEqual(a[a.index("-initrd") + 1], "/k/initrd")
        self.assertEqual(a[a.index("-append") + 1], "console=ttyS0 quiet")
        self.assertNotIn("pflash", " ".join(a))
        self.assertNotIn("isa-debug-exit", " ".join(a))
        a = self.cmd(image="/k/vmlinuz", boot="linux", firmware="ovmf")
        j = " ".join(a)
        self.assertIn("unit=0,readonly=on,file=/ovmf/CODE.fd", j)
        self.assertIn("unit=1,file=/tmp/x/OVMF_VARS.fd", j)
        self.assertIn("isa-debug-exit", j)
        self.assertNotIn("-initrd", a)
        with self.assertRaises(ValueError):
            self.cmd(image="/k/vmlinuz", boot="linux", firmware="ovmf",
                     vars_copy=None)
        with self.assertRaises(ValueError):
            self.cmd(image="/k/vmlinuz", boot="linux", firmware="coreboot")
        with self.assertRaises(ValueError):  # the probe's media take none
            self.cmd(boot="pvh", image="/b/p.elf", initrd="/k/initrd")

    def test_qemu_binary_from_environment_or_option(self):
        self.assertEqual(self.cmd()[0], "qemu-system-x86_64")
        os.environ[qemu.QEMU_ENV] = "/opt/q/bin/qemu-system-x86_64"
        self.assertEqual(self.cmd()[0], "/opt/q/bin/qemu-system-x86_64")
        self.assertEqual(self.cmd(qemu="/b/q")[0], "/b/q")
        self.assertEqual(qemu.qemu_binary(), "/opt/q/bin/qemu-system-x86_64")
        os.environ[qemu.QEMU_ENV] = ""
        self.assertEqual(qemu.qemu_binary(), "qemu-system-x86_64")

    def test_missing_qemu_is_a_clear_error(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        plain = os.path.join(d, "qemu-system-x86_64")
        with open(plain, "w") as f:
            f.write("not a program\n")
        for path, why in ((os.path.join(d, "none"), "no such file"),
                          (plain, "not an executable file"),
                          (d, "not an executable file"),
                          ("qemu-nonexistent-x", "no such program on PATH")):
            for how in ("env", "option"):
                os.environ.pop(qemu.QEMU_ENV, None)
                if how == "env":
                    os.environ[qemu.QEMU_ENV] = path
                with self.assertRaises(qemu.QemuError) as cm:
                    qemu.select_qemu(None if how == "env" else path)
                self.assertIn(path, str(cm.exception))
                self.assertIn(why, str(cm.exception))
        os.environ.pop(qemu.QEMU_ENV, None)
        self.assertIsNone(qemu.select_qemu(None))  # nothing asked for
        self.assertNotIn(qemu.QEMU_ENV, os.environ)
        # A binary that vanished after the argv was built: QemuError too.
        with self.assertRaises(qemu.QemuError) as cm:
            process.run_argv([os.path.join(d, "none"), "-version"], 5)
        self.assertIn("cannot start", str(cm.exception))

    def test_selected_qemu_is_every_later_argv(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        fake = os.path.join(d, "qemu-system-x86_64")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'QEMU emulator version 10.0.2'\n")
        os.chmod(fake, 0o755)
        rel = os.path.relpath(fake)
        self.assertEqual(qemu.select_qemu(rel), fake)  # made absolute
        self.assertEqual(os.environ[qemu.QEMU_ENV], fake)
        self.assertEqual(self.cmd()[0], fake)
        self.assertEqual(qemu.qemu_version(), "10.0.2")
        self.assertEqual(qemu.find_qemu(), fake)

    def test_always_attached(self):
        esp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, esp)
        for boot in ("uefi", "iso", "fat", "pvh"):
            a = self.cmd(boot=boot, image=esp if boot == "fat" else "/b/x")
            j = " ".join(a)
            self.assertEqual(a[0], "qemu-system-x86_64")
            self.assertIn("isa-debug-exit,iobase=0xf4,iosize=0x04", j)
            self.assertIn("-no-reboot", a)
            self.assertEqual(a[a.index("-nic") + 1], "none")
            self.assertEqual(a[a.index("-display") + 1], "none")
            self.assertEqual(a[a.index("-serial") + 1], "stdio")

    def test_uefi(self):
        a = self.cmd(machine="pc", smp="4", mem="64M", cpu="max",
                     serial_path="/tmp/s.log")
        j = " ".join(a)
        self.assertIn("if=pflash,format=raw,unit=0,readonly=on,"
                      "file=/ovmf/CODE.fd", j)
        self.assertIn("if=pflash,format=raw,unit=1,"
                      "file=/tmp/x/OVMF_VARS.fd", j)
        self.assertIn("file=/b/clockprobe.img,format=raw,if=ide,"
                      "media=disk,snapshot=on", j)
        self.assertEqual(a[a.index("-serial") + 1], "file:/tmp/s.log")
        self.assertEqual(a[a.index("-machine") + 1], "pc")
        self.assertEqual(a[a.index("-smp") + 1], "4")
        self.assertEqual(a[a.index("-m") + 1], "64M")
        self.assertEqual(a[a.index("-cpu") + 1], "max")
        self.assertEqual(a[a.index("-accel") + 1], "tcg")

    def test_iso_fat_pvh(self):
        a = self.cmd(boot="iso", image="/b/p.iso")
        self.assertEqual(a[a.index("-cdrom") + 1], "/b/p.iso")
        d = tempfile.mkdtemp()
        try:
            a = self.cmd(boot="fat", image=d)
            self.assertIn("file=fat:rw:%s,format=raw,if=ide" % d, a)
        finally:
            shutil.rmtree(d)
        a = qemu.qemu_command("/b/p.elf", boot="pvh")
        self.assertEqual(a[a.index("-kernel") + 1], "/b/p.elf")
        self.assertNotIn("pflash", " ".join(a))

    def test_fat_from_efi_file(self):
        d = tempfile.mkdtemp()
        try:
            efi = os.path.join(d, "probe.efi")
            with open(efi, "wb") as f:
                f.write(b"MZ")
            a = self.cmd(boot="fat", image=efi,
                         vars_copy=os.path.join(d, "OVMF_VARS.fd"))
            esp = os.path.join(d, "esp")
            self.assertIn("file=fat:rw:%s,format=raw,if=ide" % esp, a)
            self.assertTrue(os.path.isfile(os.path.join(
                esp, "EFI", "BOOT", "BOOTX64.EFI")))
        finally:
            shutil.rmtree(d)

    def test_vars_copy_required(self):
        with self.assertRaises(ValueError):
            qemu.qemu_command("/b/x.img", boot="uefi")
        with self.assertRaises(ValueError):
            qemu.qemu_command("/b/x.img", boot="floppy")

    def test_host_cpu_fixup_only_under_kvm(self):
        a = self.cmd(boot="pvh", accel="kvm", cpu="host,+invtsc")
        self.assertEqual(a[a.index("-cpu") + 1],
                         "host,+invtsc,-arch-capabilities")
        a = self.cmd(boot="pvh", accel="tcg", cpu="host")
        self.assertEqual(a[a.index("-cpu") + 1], "host")
        a = self.cmd(boot="pvh", accel="kvm", cpu="Skylake-Server")
        self.assertEqual(a[a.index("-cpu") + 1], "Skylake-Server")

    def test_extra_args(self):
        a = self.cmd(extra="-icount shift=0,sleep=off")
        self.assertEqual(a[-2:], ["-icount", "shift=0,sleep=off"])
        a = self.cmd(extra=["-global", "x=y"])
        self.assertEqual(a[-2:], ["-global", "x=y"])

    def test_exit_statuses(self):
        self.assertEqual(qemu.EXIT_COMPLETE, 33)   # (0x10 << 1) | 1
        self.assertEqual(qemu.EXIT_FAILED, 35)     # (0x11 << 1) | 1

    @unittest.skipUnless(have_ovmf(), "OVMF not installed")
    def test_find_ovmf(self):
        code, vars_ = qemu.find_ovmf()
        self.assertTrue(os.path.isfile(code) and os.path.isfile(vars_))
        if os.path.isfile("/usr/share/OVMF/OVMF_CODE_4M.fd"):
            self.assertEqual(code, "/usr/share/OVMF/OVMF_CODE_4M.fd")
            self.assertEqual(vars_, "/usr/share/OVMF/OVMF_VARS_4M.fd")


class TinyEfiAppTest(unittest.TestCase):
    def test_pe_headers(self):
        import struct
        img = standin.tiny_efi_app(b"hi")
        self.assertEqual(img[:2], b"MZ")
        pe = struct.unpack_from("<I", img, 0x3C)[0]
        self.assertEqual(img[pe:pe + 4], b"PE\0\0")
        self.assertEqual(struct.unpack_from("<H", img, pe + 4)[0], 0x8664)
        opt = pe + 24
        self.assertEqual(struct.unpack_from("<H", img, opt)[0], 0x20B)
        self.assertEqual(struct.unpack_from("<H", img, opt + 68)[0], 10)
        self.assertEqual(len(img) % 0x200, 0)
        self.assertIn(b"hi", img)


@unittest.skipUnless(have_qemu() and have_binutils(),
                     "needs qemu-system-x86_64 and binutils")
class RunProbeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="test-cpqemu-")
        cls.report = fixture_json("tcg_q35.json")
        cls.elf = standin.build_pvh_check_image(
            os.path.join(cls.tmp, "fake.elf"),
            "noise\r\n" + frame.frame_report(cls.report))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_pvh_stand_in_completes_with_report(self):
        log = os.path.join(self.tmp, "serial.log")
        res = cpboot.run_probe(self.elf, boot="pvh", machine="pc",
                               timeout=60, log_path=log)
        self.assertFalse(res.timed_out)
        self.assertEqual(res.exit_status, 33)
        rep, err = frame.extract_report(res.log_text)
        self.assertIsNone(err)
        self.assertEqual(rep, self.report)
        with open(log, "rb") as f:
            self.assertIn(b"CLOCKPROBE REPORT END", f.read())

    def test_timeout_kills_qemu(self):
        # -S: the VM never starts, so QEMU would wait forever.
        argv = qemu.qemu_command(self.elf, boot="pvh", machine="pc",
                                   extra=["-S"])
        res = process.run_argv(argv, 2)
        self.assertTrue(res.timed_out)
        self.assertIsNone(res.exit_status)
        self.assertLess(res.seconds, 15)

    @unittest.skipUnless(have_ovmf(), "OVMF not installed")
    def test_efi_stand_in_under_ovmf(self):
        d = os.path.join(self.tmp, "esp", "EFI", "BOOT")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "BOOTX64.EFI"), "wb") as f:
            f.write(standin.tiny_efi_app(frame.frame_report(self.report)))
        res = cpboot.run_probe(os.path.join(self.tmp, "esp"), boot="fat",
                               timeout=90)
        self.assertEqual(res.exit_status, 33, res.stderr)
        self.assertEqual(frame.extract_report(res.log_text)[0], self.report)

    def test_kvm_usable_answers(self):
        ok, why = kvm.kvm_usable("pvh")
        self.assertIsInstance(ok, bool)
        self.assertTrue(why)


# ------------------------------------------------------------------ matrix

CONF = """\
# comment
[defaults]
timeout = 30
qemu = -global a=b
expect schema == 1
expect sources[tsc].status == ok

[one]
machine = pc,hpet=off
smp = 4
tags = fast, x
qemu = -icount shift=0
expect sources[tsc].status == absent
expect platform.cpu.logical_cpus == 4

[two-kvm]
accel = kvm
boot = pvh
skip = not today
"""


class MatrixConfigTest(unittest.TestCase):
    def test_parse(self):
        rows = matrix.parse_config(CONF)
        self.assertEqual([r.name for r in rows], ["one", "two-kvm"])
        one, two = rows
        self.assertEqual(one.get("machine"), "pc,hpet=off")
        self.assertEqual(one.get("smp"), "4")
        self.assertEqual(one.get("mem"), "256M")
        self.assertEqual(one.timeout, 30.0)
        self.assertEqual(one.tags, ["fast", "x"])
        self.assertEqual(one.qemu_extra(), ["-global", "a=b", "-icount",
                                            "shift=0"])
        # The row's tsc expectation replaced the default one.
        self.assertEqual([e.text for e in one.expects],
                         ["schema == 1", "sources[tsc].status == absent",
                          "platform.cpu.logical_cpus == 4"])
        self.assertEqual(two.get("accel"), "kvm")
        self.assertEqual(two.get("skip"), "not today")
        self.assertEqual(len(two.expects), 2)

    def test_errors(self):
        bad = ["[r]\nfoo = 1\n", "[r]\nexpect a ~ 1\n", "[r]\n[r]\n",
               "[bad name]\n", "x = 1\n", "[r]\naccel = hvf\n",
               "[r]\nboot = floppy\n", "[r]\ntimeout = soon\n",
               "[r]\nexpect a[ == 1\n", "[r]\n[defaults]\n"]
        for text in bad:
            with self.assertRaises(matrix.ConfigError, msg=text):
                matrix.parse_config(text)

    def test_guest_rows(self):
        """guest = full | fast KERNEL...: the rows scripts/linux-guest
        boots real Linux guests on (cptools.matrixconf.guest_rows)."""
        rows = matrix.parse_config(
            "[plain]\n[g-full]\ncpu = qemu64\nguest = full\n"
            "[g-fast]\nsmp = 2\nguest = fast 6.1   6.12-deb13\n")
        g = matrixconf.guest_rows(rows)
        self.assertEqual(list(g), ["g-full", "g-fast"])
        self.assertEqual((g["g-full"].guest, g["g-full"].guest_fast_kernels),
                         ("full", ()))
        self.assertEqual((g["g-fast"].guest, g["g-fast"].guest_fast_kernels),
                         ("fast", ("6.1", "6.12-deb13")))
        self.assertIsNone(rows[0].guest)
        self.assertEqual(rows[0].guest_fast_kernels, ())
        for bad in ("[r]\nguest = yes\n", "[r]\nguest = fast\n",
                    "[r]\nguest = full 6.1\n", "[r]\nguest = fast six\n",
                    "[defaults]\nguest = full\n[r]\n",
                    "[r]\nguest = full\naccel = kvm\n",
                    "[r]\nguest = full\nboot = pvh\n",
                    "[r]\nguest = full\nqemu = -icount shift=0\n",
                    "[r]\nguest = full\nskip = later\n"):
            with self.assertRaises(matrix.ConfigError, msg=bad):
                matrix.parse_config(bad)

    def test_select(self):
        rows = matrix.parse_config(
            "".join("[r%d]\n%s" % (i, "tags = fast\n" if i % 2 else "")
                    for i in range(6)))
        names = lambda rs: [r.name for r in rs]  # noqa: E731
        self.assertEqual(names(matrix.select_rows(rows, only="r1,r4")),
                         ["r1", "r4"])
        self.assertEqual(names(matrix.select_rows(rows, only="r[23]")),
                         ["r2", "r3"])
        self.assertEqual(names(matrix.select_rows(rows, fast=True)),
                         ["r1", "r3", "r5"])
        self.assertEqual(names(matrix.select_rows(rows, shard=(1, 3))),
                         ["r0", "r3"])
        self.assertEqual(names(matrix.select_rows(rows, shard=(3, 3))),
                         ["r2", "r5"])
        self.assertEqual(matrix.parse_shard("2/4"), (2, 4))
        for bad in ("0/2", "3/2", "x", "1-2"):
            with self.assertRaises(Exception):
                matrix.parse_shard(bad)

    def test_default_matrix(self):
        rows = matrix.load_config(matrix.DEFAULT_CONF)
        tcg = [r for r in rows if r.get("accel") == "tcg"]
        self.assertGreaterEqual(len(tcg), 16)
        self.assertEqual(len({r.name for r in rows}), len(rows))
        self.assertTrue([r for r in rows if r.get("accel") == "kvm"])
        self.assertTrue(matrix.select_rows(rows, fast=True))
        machines = " ".join(r.get("machine") for r in tcg)
        for want in ("pc", "q35", "hpet=off", "pit=off", "q35,acpi=off",
                     "vmport=on"):
            self.assertIn(want, machines)
        self.assertNotIn("pc,acpi=off", machines)  # OVMF cannot boot it
        cpus = {r.get("cpu") for r in tcg}
        self.assertTrue({"qemu64", "max", "EPYC", "Skylake-Server"} <= cpus)
        smps = {r.get("smp").split(",")[0] for r in tcg}
        self.assertTrue({"1", "2", "4", "8"} <= smps)
        self.assertTrue(any(r.get("mem") == "64M" for r in tcg))
        self.assertEqual(len([r for r in tcg if "-icount" in
                              (r.get("qemu") or "")]), 1)


class QemuOptionTest(unittest.TestCase):
    """scripts/run and scripts/matrix take --qemu PATH / QEMU=PATH; one
    that is not there is a usage error before anything boots."""

    def run_script(self, name, args, env=None):
        e = dict(os.environ, **(env or {}))
        e.pop("OUT", None)
        return subprocess.run(
            [sys.executable, os.path.join(SCRIPTS, name)] + args,
            capture_output=True, text=True, env=e, timeout=60)

    def test_missing_qemu(self):
        missing = os.path.join(tempfile.gettempdir(), "no-such-qemu-here")
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        for name, args in (("run", ["--out", out]),
                           ("matrix", ["--only", "q35-icount", "--out",
                                       out])):
            for how in ("option", "env"):
                p = self.run_script(
                    name, args + (["--qemu", missing] if how == "option"
                                  else []),
                    {qemu.QEMU_ENV: missing} if how == "env" else None)
                self.assertEqual(p.returncode, 2, (name, how, p.stderr))
                self.assertIn("%s: QEMU binary %s" % (name, missing),
                              p.stderr)
                self.assertIn("no such file", p.stderr)


class ExpectationTest(unittest.TestCase):
    R = {"schema": 1, "verdict": {"linux_clocksource": "acpi_pm",
                                  "linux_kernel": "6.1", "vdso": False},
         "sources": [{"name": "hpet", "status": "absent", "freq_hz": None}],
         "cross_cpu": {"warps": 0, "tested": 4},
         "errors": ["a", "b"],
         "platform": {"hypervisor": {"signature": "Microsoft Hv"}}}

    def ev(self, text):
        return matrix.Expectation(text).evaluate(self.R)

    def test_ops(self):
        cases = [
            ("sources[hpet].status == absent", True),
            ("sources[hpet].status != absent", False),
            ("cross_cpu.warps == 0", True),
            ("cross_cpu.tested >= 4", True),
            ("cross_cpu.tested > 4", False),
            ("cross_cpu.tested <= 3", False),
            ("cross_cpu.tested < 5", True),
            ("verdict.linux_clocksource == acpi_pm", True),
            ("verdict.linux_clocksource in [tsc, kvm-clock]", False),
            ("verdict.linux_clocksource in [hpet, acpi_pm]", True),
            ("verdict.linux_clocksource not in [hpet, acpi_pm]", False),
            ("verdict.vdso == false", True),
            ("verdict.vdso == 0", False),       # a bool is not a number
            ("cross_cpu.warps == false", False),
            ("verdict.linux_kernel == 6.1", True),  # bare text vs "6.1"
            ('platform.hypervisor.signature == "Microsoft Hv"', True),
            ("sources[hpet].freq_hz == null", True),
            ("sources[hpet].freq_hz exists", False),
            ("sources[hpet].freq_hz missing", True),
            ("sources[tsc] missing", True),
            ("sources[hpet] exists", True),
            ("len(errors) == 2", True),
            ("len(errors) >= 3", False),
            ("verdict.linux_clocksource >= 1", False),
        ]
        for text, want in cases:
            ok, msg = self.ev(text)
            self.assertIs(ok, want, "%s -> %s" % (text, msg))

    def test_failure_messages(self):
        ok, msg = self.ev("cross_cpu.tested == 2")
        self.assertEqual(msg, "cross_cpu.tested == 2: got 4")
        ok, msg = self.ev("sources[pit].status == absent")
        self.assertFalse(ok)
        self.assertIn("not in the report", msg)

    def test_parse_errors(self):
        for bad in ("justapath", "a ==", "a =~ b", "a in (1, 2)"):
            with self.assertRaises(matrix.ConfigError, msg=bad):
                matrix.Expectation(bad)


@unittest.skipUnless(have_qemu() and have_binutils(),
                     "needs qemu-system-x86_64 and binutils")
class MatrixRunTest(unittest.TestCase):
    def test_end_to_end_with_stand_in(self):
        tmp = tempfile.mkdtemp(prefix="test-matrix-")
        try:
            rep = fixture_json("tcg_q35.json")
            elf = standin.build_pvh_check_image(
                os.path.join(tmp, "fake.elf"), frame.frame_report(rep))
            conf = os.path.join(tmp, "m.conf")
            with open(conf, "w") as f:
                f.write("[defaults]\nboot = pvh\nmachine = pc\nimage = %s\n"
                        "timeout = 60\nexpect schema == 1\n"
                        "[good]\nexpect sources[hpet].status == ok\n"
                        "expect cross_cpu.warps == 0\n"
                        "[bad]\nexpect sources[hpet].status == absent\n"
                        "[kvm-row]\naccel = kvm\nskip = no KVM in tests\n"
                        "[noimg]\nimage = %s/none.elf\n"
                        "image_optional = yes\n" % (elf, tmp))
            out = os.path.join(tmp, "out")
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                rc = matrix.main(["--conf", conf, "--jobs", "2",
                                  "OUT=" + out])
            self.assertEqual(rc, 1, buf.getvalue())
            suite = ET.parse(os.path.join(out, "junit.xml")).getroot()
            self.assertEqual(suite.get("tests"), "4")
            self.assertEqual(suite.get("failures"), "1")
            self.assertEqual(suite.get("errors"), "0")
            self.assertEqual(suite.get("skipped"), "2")
            cases = {c.get("name"): c for c in suite.iter("testcase")}
            self.assertIsNone(cases["good"].find("failure"))
            fail = cases["bad"].find("failure")
            self.assertIn("sources[hpet].status == absent: got 'ok'",
                          fail.text)
            self.assertIn("no KVM in tests",
                          cases["kvm-row"].find("skipped").get("message"))
            self.assertIn("not built",
                          cases["noimg"].find("skipped").get("message"))
            with open(os.path.join(out, "good.json")) as f:
                self.assertEqual(json.load(f), rep)
            self.assertTrue(os.path.isfile(os.path.join(out, "good.log")))
            with open(os.path.join(out, "summary.md")) as f:
                summary = f.read()
            self.assertIn("| good | expected |", summary)
            self.assertIn("| kvm-row | skipped |", summary)
            self.assertFalse(os.path.exists(os.path.join(out, "work")))
            # --only narrows the run; the good row alone passes.
            with contextlib.redirect_stdout(io.StringIO()):
                rc = matrix.main(["--conf", conf, "--only", "good",
                                  "OUT=" + out])
            self.assertEqual(rc, 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
