"""Issue #13: the hostile machine.  Each case boots (in parallel with the
rest, tests/integration/hostile_machine.py builds them) and must end with exit
status 33 and a verified report that names the problem."""
import json
import os

import hostile_machine as hostile
import probe_runs
from base import ProbeTest
from cptools import frame, schema


def errors(report, code):
    return [e["message"] for e in report["errors"] if e["code"] == code]



def pair_completed_or_named(test, x, apic_id):
    """True when the CPU of `apic_id`'s cross-CPU pair completed.  A started CPU
    whose pair the loaded host did not co-schedule within the pair's waits
    (2 cores under the suite's parallel boots) is named instead: started,
    answering, not tested, "no pair completed"."""
    c = next(c for c in x["per_cpu"] if c["apic_id"] == apic_id)
    if c["tested"]:
        return True
    test.assertTrue(c["started"] and c["answered"], c)
    test.assertIn("no pair completed", x["not_tested"])
    return False

class HostileMachine(ProbeTest):
    def test_hpet_table_pointing_into_ram_is_refused_and_ram_untouched(self):
        r = self.report("hostile_hpet_ram")
        hpet = self.source("hostile_hpet_ram", "hpet")
        self.assertEqual(hpet["status"], "error")
        self.assertIn("0x%x is RAM in the PVH memory map" % hostile.RAM_HPET_BASE, hpet["reason"])
        self.assertEqual(r["platform"]["acpi"]["hpet"]["address"], hostile.RAM_HPET_BASE)
        # The guest's RAM is a file: after QEMU exits it holds what the
        # probe left there.  A probe trusting the table sets bit 0 of the
        # "configuration register" at +0x10.
        with open(hostile.ram_file("hostile_hpet_ram"), "rb") as f:
            f.seek(hostile.RAM_HPET_BASE)
            after = f.read(len(hostile.PATTERN))
        self.assertEqual(after[hostile.CONFIG_OFFSET:hostile.CONFIG_OFFSET + 8], bytes(8))
        self.assertEqual(after, hostile.PATTERN)

    def _trace(self, name):
        with open(hostile.trace_file(name)) as f:
            return f.read().splitlines()

    def _refused(self, name, base, reason):
        """The hpet source and errors[] both name the refusal (issue 41)."""
        r = self.report(name)
        hpet = self.source(name, "hpet")
        self.assertEqual(hpet["status"], "error")
        self.assertIn("HPET not proven: ", hpet["reason"])
        self.assertIn(reason, hpet["reason"])
        self.assertEqual(r["platform"]["acpi"]["hpet"]["address"], base)
        self.assertEqual(errors(r, "HPET_NOT_PROVEN"), [hpet["reason"]])
        return r

    def test_hpet_table_in_ram_is_named_in_errors(self):
        self._refused("hostile_hpet_ram", hostile.RAM_HPET_BASE,
                      "0x%x is RAM in the PVH memory map" % hostile.RAM_HPET_BASE)

    def test_hpet_table_in_the_mcfg_window_is_refused_and_nothing_written(self):
        self._refused("hostile_hpet_mcfg", hostile.MCFG_HPET_BASE,
                      "base 0xb0000000 lies in a PCI configuration window "
                      "(MCFG segment 0, buses 0-255 at 0xb0000000)")
        trace = self._trace("hostile_hpet_mcfg")
        # SeaBIOS's own configuration writes are there (the trace works) ...
        self.assertTrue(any(t.startswith("pci_cfg_write mch 00:00.0 ") for t in trace), trace[:5])
        # ... the enable write a trusting probe makes (the register read 0,
        # so 0x1 at +0x10) is not.
        self.assertEqual([t for t in trace if "00:00.0 @0x10 <- 0x1" in t], [])

    def test_hpet_table_at_the_ioapic_is_refused_and_nothing_written(self):
        self._refused("hostile_hpet_ioapic", hostile.IOAPIC_HPET_BASE,
                      "base 0xfec00000 lies in an I/O APIC's page (MADT) at 0xfec00000")
        trace = self._trace("hostile_hpet_ioapic")
        self.assertTrue(any(t.startswith("pci_cfg_write ") for t in trace))
        self.assertEqual([t for t in trace if t.startswith("ioapic_mem_write")], [])

    def test_hpet_table_in_a_hole_no_firmware_map_sets_aside_is_refused(self):
        # hpet=off: no HPET device in QEMU's DSDT, and 0xFE000000 is in no
        # E820 entry -- not RAM, so the old "not RAM" rule let it through.
        self._refused("hostile_spcr_8b", hostile.HOLE_HPET_BASE,
                      "base 0xfe000000 is set aside by no firmware map (no HPET (PNP0103) in the AML; "
                      "0xfe000000 is not reserved in the PVH memory map (a hole))")

    def test_hpet_table_at_a_pci_bar_is_refused_by_the_bar(self):
        # The std VGA's MMIO BAR2, where SeaBIOS put it (its own trace).
        trace = self._trace("hostile_spcr_cf2")
        bar2 = [t for t in trace if t.startswith("pci_update_mappings_add VGA 00:01.0 2,")]
        self.assertEqual(bar2, ["pci_update_mappings_add VGA 00:01.0 2,0x%x+0x1000" % hostile.BAR_HPET_BASE],
                         "SeaBIOS placed the VGA's BAR2 elsewhere: move BAR_HPET_BASE (%s)" % trace)
        self._refused("hostile_spcr_cf2", hostile.BAR_HPET_BASE,
                      "base 0xfebf0000 lies in PCI 00:01.0's BAR2 (memory at 0xfebf0000, at least 16 bytes)")

    def test_real_hpet_is_set_aside_by_its_crs_and_outside_every_bar(self):
        # QEMU's own HPET on the direct boot: its DSDT device's _CRS holds
        # it, and the ECAM scan (E820 reserves the MCFG window) read every
        # bus and found the q35 functions, none claiming 0xFED00000.
        h = self.source("hostile_many_tables", "hpet")["hpet"]
        self.assertEqual(h["set_aside_by"], "inside the _CRS of _SB_.HPET (DSDT): 0xfed00000, 1024 bytes")
        scan = h["pci_scan"]
        self.assertEqual((scan["ran"], scan["complete"], scan["windows_read"], scan["buses"]),
                         (True, True, 1, 256), scan)
        # Host bridge, VGA, LPC, AHCI, SMBus; VGA BAR0 and BAR2, AHCI BAR5.
        self.assertGreaterEqual(scan["functions"], 5, scan)
        self.assertGreaterEqual(scan["memory_bars"], 3, scan)
        self.assertLess(scan["elapsed_us"], 500000, scan)

    def test_seventy_extra_tables_with_dump(self):
        r = self.report("hostile_many_tables")
        a = r["platform"]["acpi"]
        self.assertTrue(a["fadt"]["present"])
        self.assertTrue(a["hpet"]["present"])
        self.assertEqual(self.source("hostile_many_tables", "hpet")["status"], "ok")
        self.assertEqual(self.source("hostile_many_tables", "acpi_pm")["status"], "ok")
        # 8 of QEMU's own + 70: past the 64-entry list, and counted
        self.assertEqual(len(a["tables"]), 64)
        self.assertEqual(len(a["tables"]) + a["tables_dropped"], 8 + 70)
        self.assertEqual(a["errors_dropped"], 0)
        self.assertEqual(r["errors_dropped"], 0)
        raw = r["raw"]
        self.assertEqual(raw["raw_truncated"], 0)
        self.assertTrue(all(t["data"] for t in raw["acpi_tables"]))
        self.assertEqual(errors(r, "RAW_TRUNCATED") + errors(r, "RAW_DROPPED"), [])

    def test_smbios_strings_with_quotes_backslashes_controls_non_ascii(self):
        r = self.report("hostile_smbios")
        s = r["platform"]["smbios"]
        self.assertTrue(s["present"])
        self.assertEqual(s["manufacturer"], 'q"uo\\te??? caf?? ???')
        self.assertEqual(s["product"], '""')
        self.assertEqual(s["serial"], hostile.LONG_SERIAL[:64])
        self.assertTrue(s["serial_truncated"])
        self.assertFalse(s["manufacturer_truncated"] or s["product_truncated"] or s["version_truncated"])
        self.assertEqual(r["probe"]["label"], "L" * 64)
        self.assertTrue(r["probe"]["label_truncated"])
        # The whole report went through json.loads in frame.py; again,
        # as plain ASCII:
        json.loads(json.dumps(r, ensure_ascii=True))

    def test_no_hpet_no_pit_64_mib(self):
        r = self.report("hostile_no_timers")
        self.assertEqual(self.source("hostile_no_timers", "hpet")["status"], "absent")
        self.assertEqual(self.source("hostile_no_timers", "pit")["status"], "absent")
        self.assertEqual(self.source("hostile_no_timers", "acpi_pm")["status"], "ok")
        self.assertEqual(r["probe"]["phase"], "boot_services")

    def test_eight_cpus_on_two_host_cores(self):
        x = self.report("hostile_smp8")["cross_cpu"]
        self.assertEqual(x["cpus"], 8)

    def test_no_tsc_named(self):
        r = self.report("hostile_no_tsc")
        self.assertNotEqual(self.source("hostile_no_tsc", "tsc")["status"], "ok")
        self.assertTrue(errors(r, "TSC_UNUSABLE"))

    def test_every_bad_setting_named_and_order_rule(self):
        a, b = self.report("hostile_settings_a"), self.report("hostile_settings_b")
        for r in (a, b):
            self.assertEqual(r["probe"]["samples_setting"], 100)
            self.assertEqual(r["probe"]["mode"], "quick")
        self.assertEqual(errors(b, "SETTINGS"), [])
        got = errors(a, "SETTINGS")
        for want in ("unknown word: dmup", "unknown setting: smaples", "unknown mode: fast",
                     "window must be 1..60000 ms: 0", "serial must be com1..com4 or an I/O port: com9",
                     "wait must be 0..3600 seconds: -1", "expected on/off: maybe",
                     "setting needs a value: gaps_ms", "samples must be 16..1000000: 1e3"):
            self.assertIn(want, got)
        self.assertEqual(len(got), 10, got)

    def test_cross_cpu_budget_names_the_cpus_it_left(self):
        # xcpu_budget_ms=1 on three vCPUs: the first pair always runs, the
        # second no longer fits; CPU 2 is named in the report and errors[].
        x = self.report("hostile_settings_a")["cross_cpu"]
        self.assertEqual((x["cpus"], x["budget_ms"], x["past_budget"]), (3, 1, 1), x)
        self.assertRegex(x["stopped"], r"^the stage's 1 ms budget left no room for another pair after 1 "
                                       r"\(the dearest took \d+ ms\): later CPUs untested$")
        self.assertEqual(errors(self.report("hostile_settings_a"), "CPUS_NOT_TESTED"), [x["not_tested"]])
        self.assertFalse(x["per_cpu"][2]["tested"])
        if not pair_completed_or_named(self, x, 1):
            self.assertEqual(x["not_tested"], "not tested: CPUs 1-2 (2), past the budget 1, no pair completed 1")
            return
        self.assertEqual(x["tested"], 2)
        self.assertEqual(x["not_tested"], "not tested: CPU 2 (1), past the budget 1")
        self.assertEqual(x["not_tested_count"], 1)
        # The CPUs that did answer still ran together on one lock.
        self.assertEqual(x["all_cpus"]["cpus"], 2, x["all_cpus"])
        self.assertEqual([c["tested"] for c in x["per_cpu"]], [True, True, False])

    def test_settings_file_in_utf16_under_uefi(self):
        r = self.report("hostile_cfg_utf16")
        self.assertEqual(r["probe"]["samples_setting"], 100)
        self.assertEqual(r["probe"]["mode"], "quick")
        self.assertEqual(errors(r, "SETTINGS"), ["unknown word: dmup"])
        # OVMF leaves the HPET halted: the memory-map check lets the
        # probe start the real one (a hole or MMIO in the UEFI map).
        self.assertEqual(self.source("hostile_cfg_utf16", "hpet")["status"], "ok")
        # Issue 41 on the firmware path: set aside by its DSDT device, and
        # the ECAM window (reserved in the UEFI map) read bus by bus.
        h = self.source("hostile_cfg_utf16", "hpet")["hpet"]
        self.assertEqual(h["set_aside_by"], "inside the _CRS of _SB_.HPET (DSDT): 0xfed00000, 1024 bytes")
        self.assertEqual((h["pci_scan"]["ran"], h["pci_scan"]["complete"]), (True, True), h["pci_scan"])

    def test_spcr_and_serial_naming_chipset_ports_are_refused(self):
        # Issue 25: a scratch write at base + 7 would have reset the VM
        # (0xCF9), ended QEMU (0xF4) or pulsed port A (0x92).  The run ends
        # normally (exit 33), its report verified on COM1, the port named.
        for name, port, who in (("hostile_spcr_ed", 0xED, "the ACPI SPCR"),
                                ("hostile_spcr_ed", hostile.SERIAL_HOSTILE_PORT, "serial="),
                                ("hostile_spcr_cf2", 0xCF2, "the ACPI SPCR"),
                                ("hostile_spcr_8b", 0x8B, "the ACPI SPCR")):
            r = self.report(name)
            self.assertEqual(r["platform"]["acpi"]["spcr"]["uart"]["address"]
                             if who != "serial=" else port, port)
            serial = r["platform"]["serial"]
            self.assertEqual((serial["port"], serial["source"]), (0x3F8, "COM1 (default)"), name)
            self.assertIn("scratch register", serial["identified_by"])
            refused = [m for m in errors(r, "SERIAL_PORT_REFUSED")
                       if m.startswith("%s names I/O port 0x%x, not used: " % (who, port))]
            self.assertEqual(len(refused), 1, (name, r["errors"]))
        self.assertEqual(len(errors(self.report("hostile_spcr_ed"), "SERIAL_PORT_REFUSED")), 2)

    def test_spcr_naming_a_16550_outside_the_com_bases_is_used_on_its_registers(self):
        # A second 16550 at 0x500: no COM base, so no scratch round trip;
        # its registers, read, are a 16550's and the report goes there.
        b = probe_runs.get("hostile_spcr_odd_uart")
        self.assertIsNotNone(b.result, b.error)
        self.assertEqual(b.result.exit_status, 33, b.log[-2000:])
        with open(hostile.odd_uart_log(), "rb") as f:
            r, err = frame.extract_report(f.read())
        self.assertIsNone(err)
        serial = r["platform"]["serial"]
        self.assertEqual((serial["port"], serial["source"]), (hostile.ODD_UART_PORT, "ACPI SPCR"))
        self.assertIn("registers read", serial["identified_by"])
        self.assertEqual(errors(r, "SERIAL_PORT_REFUSED"), [])
        self.assertEqual(schema.check_report(r), [])
        self.assertNotIn("CLOCKPROBE REPORT BEGIN", b.log)

    def test_low_memory_still_sends_the_summary_and_names_the_report(self):
        b = probe_runs.get("hostile_low_memory")
        self.assertIsNotNone(b.result, b.error)
        self.assertEqual(b.result.exit_status, 35, b.log[-2000:])
        self.assertIn("summary (pvh boot", b.log)
        self.assertRegex(b.log, r"\n  acpi_pm +\S")        # its source rows
        self.assertIn("error REPORT_NOT_SENT: no memory for the 4096 KiB report buffer", b.log)
        self.assertNotIn("CLOCKPROBE REPORT BEGIN", b.log)



# Issue 41: MADTs listing more CPUs than QEMU runs (madt_swap.c puts them
# first).  Each boot must end verified within WALL_LIMIT_S, name what was
# not tested, and count probe.elapsed_ms from the probe's first
# instruction: within QEMU's start-up of the boot's wall time.
WALL_LIMIT_S = 60


class HostileCpus(ProbeTest):
    def _cpus(self, name, listed, started):
        r = self.report(name)
        b = probe_runs.get(name)
        wall = b.wall_s
        ms = r["probe"]["elapsed_ms"]
        print("\n%s: wall %.2f s, probe.elapsed_ms %d" % (name, wall, ms))
        self.assertLessEqual(wall, WALL_LIMIT_S)
        # The report's elapsed time is the run's: at most the wall time,
        # and from the first instruction, so the CPUs' start before the
        # first stage is in it.  That start waits for APs that never
        # answer (src/arch/x86/boot/pvh_smp.c: 200 ms + 0.5 ms an AP INIT'ed,
        # at most 1 s, timed at an assumed 4 GHz, so never shorter at a
        # real TSC rate); half of it is the bound, whatever the host's load.
        self.assertLessEqual(ms, wall * 1000)
        staged = sum(s["elapsed_ms"] for s in r["probe"]["stages"] if s["complete"])
        self.assertGreaterEqual(ms + 1, staged)
        silent = listed - started - sum(1 for c in r["cross_cpu"]["per_cpu"]
                                        if not c["bsp"] and c["apic_id"] >= 0x100)
        if silent:
            wait_ms = min(200 + 0.5 * (silent + started - 1), 1000)
            self.assertGreaterEqual(ms - staged, wait_ms / 2, (ms, staged))
        x = r["cross_cpu"]
        self.assertEqual(len(x["per_cpu"]), listed)
        completed = [i for i in range(1, started) if pair_completed_or_named(self, x, i)]
        self.assertEqual([c["apic_id"] for c in x["per_cpu"] if c["tested"]], [0] + completed)
        self.assertEqual(x["tested"], 1 + len(completed))
        self.assertEqual(x["not_started"], listed - started)
        for c in x["per_cpu"]:
            if not c["bsp"]:
                self.assertEqual(c["started"], c["apic_id"] < started, c)
        self.assertEqual(len(set(c["apic_id"] for c in x["per_cpu"])), listed)
        return r

    def test_300_listed_cpus_on_two(self):
        r = self._cpus("hostile_madt_300", 300, 2)
        # Every untested CPU named by index, with why (issue 41); the stage
        # left none out itself, so no CPUS_NOT_TESTED (SMP_CPUS_NOT_STARTED
        # below names them by APIC id).
        # CPU 1's pair may miss its waits on a loaded 2-core host
        # (_cpus accepts that where the probe names it): then it is named too.
        if r["cross_cpu"]["tested"] == 2:
            self.assertEqual(r["cross_cpu"]["not_tested"], "not tested: CPUs 2-299 (298), never started 298")
            self.assertEqual(r["cross_cpu"]["not_tested_count"], 298)
        else:
            self.assertEqual(r["cross_cpu"]["not_tested"],
                             "not tested: CPUs 1-299 (299), never started 298, no pair completed 1")
            self.assertEqual(r["cross_cpu"]["not_tested_count"], 299)
        self.assertEqual(r["cross_cpu"]["budget_ms"], 20000)
        self.assertEqual(r["contention"]["not_tested"], None)
        self.assertEqual(errors(r, "CPUS_NOT_TESTED"), [])
        self.assertEqual(errors(r, "SMP_CPUS_NOT_STARTED"), [
            "253 listed CPUs never answered INIT-SIPI-SIPI, not started: APIC ids 0x2, 0x3, 0x4, 0x5, ...",
            "45 listed CPUs have ids the xAPIC cannot address, not started: APIC ids 0x100, 0x101, 0x102, 0x103, ..."])

    def test_running_ap_listed_twice_is_started_once_and_every_cpu_tested(self):
        r = self._cpus("hostile_madt_dup", 3, 3)
        self.assertEqual(errors(r, "ACPI_MADT_DUPLICATE_APIC_ID"),
                         ["1 repeated MADT APIC id ignored, first kept: 0x1 (entry 2)"])
        self.assertEqual(errors(r, "SMP_CPUS_NOT_STARTED"), [])
        if r["cross_cpu"]["tested"] == 3:
            self.assertEqual(r["cross_cpu"]["all_cpus"]["cpus"], 3)
        else:
            self.assertIn("no pair completed", r["cross_cpu"]["not_tested"])

    def test_250_cpus_that_never_answer(self):
        r = self._cpus("hostile_madt_absent", 252, 2)
        self.assertEqual(errors(r, "SMP_CPUS_NOT_STARTED"), [
            "250 listed CPUs never answered INIT-SIPI-SIPI, not started: APIC ids 0x2, 0x3, 0x4, 0x5, ..."])
