"""Issue #2: the bootable probe and its platform report."""
import re
import zlib

from base import ProbeTest

TCG_SIGNATURE = "TCGTCGTCGTCG"


class BootAndFrame(ProbeTest):
    def test_frame_crc_and_length_verify(self):
        b = self.boot("q35")
        m = re.search(r"==== CLOCKPROBE REPORT BEGIN schema=1 ====\r?\n(.*?)\r?\n"
                      r"==== CLOCKPROBE REPORT END crc32=([0-9a-f]{8}) bytes=(\d+) ====", b.log, re.S)
        self.assertIsNotNone(m, "markers not found")
        body = m.group(1).encode()
        self.assertNotIn(b"\n", body)
        self.assertEqual(len(body), int(m.group(3)))
        self.assertEqual("%08x" % (zlib.crc32(body) & 0xffffffff), m.group(2))

    def test_json_appears_once_in_the_log(self):
        # OVMF mirrors ConOut onto COM1: the JSON must go to the UART alone.
        self.assertEqual(self.boot("q35").log.count("CLOCKPROBE REPORT BEGIN"), 1)

    def test_probe_identity(self):
        r = self.report("q35")
        self.assertEqual(r["schema"], 1)
        self.assertEqual(r["probe"]["boot"], "uefi")
        self.assertEqual(r["probe"]["phase"], "boot_services")
        self.assertGreater(r["probe"]["elapsed_ms"], 0)

    def test_tcg_hypervisor_signature(self):
        hv = self.report("q35")["platform"]["hypervisor"]
        self.assertTrue(hv["present"])
        self.assertEqual(hv["signature"], TCG_SIGNATURE)
        self.assertEqual(hv["name"], "tcg")
        self.assertEqual([s["signature"] for s in hv["signatures"]], [TCG_SIGNATURE])

    def test_firmware_and_smbios(self):
        p = self.report("q35")["platform"]
        self.assertIn("EDK II", p["firmware"]["vendor"])
        self.assertRegex(p["firmware"]["uefi_revision"], r"^2\.\d+")
        self.assertEqual(p["smbios"]["manufacturer"], "QEMU")
        self.assertIn("Q35", p["smbios"]["product"])
        self.assertIn("i440FX", self.report("pc")["platform"]["smbios"]["product"])

    def test_cpu_vendor_and_counts(self):
        cpu = self.report("q35")["platform"]["cpu"]
        self.assertEqual(cpu["vendor"], "AuthenticAMD")
        self.assertEqual(cpu["logical_cpus"], 1)
        self.assertEqual(cpu["possible_cpus"], 1)
        self.assertEqual(cpu["packages"], 1)
        self.assertEqual(self.report("q35_smp4")["platform"]["cpu"]["logical_cpus"], 4)
        self.assertEqual(self.report("q35_smp4")["platform"]["cpu"]["possible_cpus"], 4)

    def test_maxcpus_counts_disabled_madt_entries(self):
        cpu = self.report("q35_maxcpus4")["platform"]["cpu"]
        self.assertEqual(cpu["logical_cpus"], 1)
        self.assertEqual(cpu["possible_cpus"], 4)

    def test_acpi_tables_and_pm_timer(self):
        for name, port in (("q35", 0x608), ("pc", 0xB008)):
            acpi = self.report(name)["platform"]["acpi"]
            sigs = [t["signature"] for t in acpi["tables"]]
            self.assertIn("FACP", sigs, name)
            self.assertIn("HPET", sigs, name)
            self.assertIn("APIC", sigs, name)
            self.assertTrue(all(t["checksum_ok"] for t in acpi["tables"]), name)
            self.assertEqual(acpi["pm_timer"]["address"], port, name)
            self.assertEqual(acpi["pm_timer"]["space"], "io")
            self.assertEqual(acpi["pm_timer"]["width_bits"], 24)
            self.assertEqual(acpi["hpet"]["address"], 0xFED00000)
            self.assertEqual(acpi["hpet"]["period_fs"], 10000000)
            self.assertTrue(acpi["hpet"]["counter_64bit"])
        self.assertEqual(self.report("q35")["platform"]["acpi"]["rsdp_revision"], 2)

    def test_hpet_off_removes_the_table(self):
        acpi = self.report("q35_hpet_off")["platform"]["acpi"]
        self.assertNotIn("HPET", [t["signature"] for t in acpi["tables"]])
        self.assertFalse(acpi["hpet"]["present"])
        self.assertIn("HPET", acpi["hpet"]["reason"])

    def test_acpi_off_still_completes_and_says_why(self):
        r = self.report("q35_acpi_off")
        acpi = r["platform"]["acpi"]
        self.assertNotIn("FACP", [t["signature"] for t in acpi["tables"]])
        self.assertFalse(acpi["pm_timer"]["present"])
        self.assertIn("FADT", acpi["pm_timer"]["reason"])
        codes = [e["code"] for e in r["errors"]]
        self.assertTrue(any("FADT" in c for c in codes), codes)

    def test_tsc_capability_bits(self):
        t = self.report("q35")["platform"]["tsc"]
        self.assertFalse(t["invariant"])  # TCG refuses invtsc
        self.assertFalse(t["rdtscp"])     # qemu64
        self.assertTrue(self.report("q35_max")["platform"]["tsc"]["rdtscp"])
        self.assertIsNone(t["freq_hz"]["hypervisor_leaf"])  # TCG clamps 0x40000010

    def test_vmware_backdoor_answers_under_vmport(self):
        vm = self.report("q35_vmport")["platform"]["hypervisor"]["vmware_backdoor"]
        self.assertTrue(vm["probed"])
        self.assertTrue(vm["present"])
        self.assertEqual(vm["version"], 6)
        self.assertIsNone(vm["tsc_hz"])  # GETHZ needs a known tsc_khz (KVM)

    def test_iso_and_fat_boot_to_the_same_report(self):
        base = self.report("q35")
        for name in ("iso", "fat"):
            r = self.report(name)
            self.assertEqual(r["platform"]["hypervisor"]["signature"], TCG_SIGNATURE)
            self.assertEqual([s["name"] for s in r["sources"]], [s["name"] for s in base["sources"]])
            self.assertEqual([s["status"] for s in r["sources"]], [s["status"] for s in base["sources"]])

    def test_report_file_on_writable_and_readonly_media(self):
        b = self.boot("disk_writable")
        self.assertIn("report saved as \\clockprobe-report.json", b.log)
        self.assertIsNotNone(b.saved, "no clockprobe-report.json on the disk")
        # Byte for byte the JSON line the serial frame carried.
        m = re.search(r"REPORT BEGIN schema=1 ====\r?\n(.*?)\r?\n==== CLOCKPROBE REPORT END", b.log, re.S)
        self.assertEqual(b.saved, m.group(1).encode())
        self.assertIn("report not saved to the boot volume: boot volume is read-only", self.boot("iso").log)

    def test_settings_file_and_dump(self):
        r = self.report("fat_settings")
        self.assertEqual(r["probe"]["mode"], "quick")
        self.assertEqual(r["probe"]["samples_setting"], 2000)
        raw = r["raw"]
        self.assertTrue(any(l.startswith("00000000 ") or l.split()[0] == "00000000" for l in raw["cpuid"]))
        sigs = [t["signature"] for t in raw["acpi_tables"]]
        for sig in ("RSDP", "FACP", "APIC", "HPET", "DSDT"):
            self.assertIn(sig, sigs)

    def test_one_boot_takes_seconds(self):
        b = self.boot("q35")
        self.assertLess(b.result.seconds, 30, "QEMU start to exit")
