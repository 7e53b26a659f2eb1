"""Issue #3: clock-source measurements and exit baselines."""
from base import ProbeTest
from cptools import icountdiff

MEASURED = ("tsc", "hpet", "acpi_pm", "pit")


class Sources(ProbeTest):
    def assert_measured(self, s, name):
        self.assertEqual(s["status"], "ok", "%s: %s" % (name, s.get("reason")))
        rc = s["read_cost"]
        self.assertGreaterEqual(rc["samples"], 1000, name)
        c = rc["cycles"]
        # Never a 0 presented as a measurement: either the percentiles are
        # real (p50 > 0), or the cost is under two TSC steps and they are
        # null, with the unbiased estimate standing in.
        if rc["below_resolution"]:
            self.assertEqual(set(c.values()), {None}, (name, c))
            self.assertEqual(set(rc["ns"].values()), {None}, (name, rc["ns"]))
        else:
            self.assertGreater(c["p50"], 0, name)
            self.assertTrue(c["min"] <= c["p50"] <= c["p90"] <= c["p99"] <= c["p999"] <= c["max"], c)
            if rc["step_ticks"]:
                self.assertGreaterEqual(rc["estimate_cycles"], 2 * rc["step_ticks"] - 1e-9, name)
        self.assertIn(rc["estimate_method"], ("interleaved_turns", "batch_net"), name)
        self.assertGreaterEqual(rc["estimate_cycles"], 0, name)
        # Issue 22: every estimate with its standard error and its check
        # on other data.  Their agreement within three combined SEs is
        # tested over five boots in test_estimate_agreement.py (opt-in: it
        # is a statistical claim, and under host load TCG's cost drift
        # moves it).
        for key in ("estimate_se_cycles", "estimate_batch_cycles", "estimate_batch_se_cycles"):
            self.assertIsNotNone(rc[key], (name, key))
            self.assertGreaterEqual(rc[key], 0, (name, key))
        self.assertIsNotNone(s["throughput_net_se_cycles"], name)
        self.assertIsNotNone(s["throughput_se_cycles"], name)
        self.assertGreaterEqual(rc["at_harness"], 0, name)
        self.assertGreater(rc["harness"]["windows"], 0, name)
        self.assertLessEqual(rc["harness"]["window_p50_min"], rc["harness"]["window_p50_max"], name)
        # A path is named, or the classifier says why it cannot tell (its
        # yardsticks overlap on a loaded host: test_baselines_and_read_paths).
        if s["read_path"] == "unknown":
            self.assertRegex(s["read_path_basis"], "yardsticks not ordered|overlap", name)
        else:
            self.assertIn(s["read_path"], ("native", "exit", "device_model"), name)
        self.assertEqual(s["backward_steps"], 0, name)
        self.assertGreater(s["resolution_ns"], 0, name)
        self.assertGreater(sum(s["histogram"]["log2_bins"]), 0, name)

    def test_q35_and_pc_sources_ok(self):
        for config in ("q35_max", "pc_max"):
            for name in MEASURED + ("rdtscp",):
                s = self.source(config, name)
                self.assert_measured(s, "%s/%s" % (config, name))

    def test_rdtscp_absent_on_qemu64(self):
        s = self.source("q35", "rdtscp")
        self.assertEqual(s["status"], "absent")
        self.assertIn("RDTSCP", s["reason"])

    def test_kvmclock_absent_under_tcg_with_reason(self):
        s = self.source("q35", "kvm-clock")
        self.assertEqual(s["status"], "absent")
        self.assertIn("KVM", s["reason"])
        k = self.report("q35")["kvmclock"]
        self.assertFalse(k["registered"])
        # Contract names stay present, null, when there is no kvm-clock.
        self.assertIsNone(k["msr_write_cycles"])
        self.assertIsNone(k["pvclock"])

    def test_frequencies_and_widths(self):
        self.assertEqual(self.source("q35", "acpi_pm")["freq_hz"], 3579545)
        self.assertEqual(self.source("q35", "acpi_pm")["width_bits"], 24)
        self.assertEqual(self.source("q35", "hpet")["freq_hz"], 100000000)
        self.assertEqual(self.source("q35", "pit")["freq_hz"], 1193182)
        self.assertEqual(self.source("q35", "pit")["width_bits"], 16)
        # The PM timer ticks every 279.365 ns: its resolution cannot be finer.
        self.assertGreaterEqual(self.source("q35", "acpi_pm")["resolution_ns"], 279.365)

    def test_hpet_off_pit_off_acpi_off(self):
        self.assertEqual(self.source("q35_hpet_off", "hpet")["status"], "absent")
        self.assertIn("HPET", self.source("q35_hpet_off", "hpet")["reason"])
        self.assertEqual(self.source("q35_hpet_off", "acpi_pm")["status"], "ok")
        pit = self.source("q35_pit_off", "pit")
        self.assertEqual(pit["status"], "absent")
        self.assertIn("8254", pit["reason"])
        for name in ("hpet", "acpi_pm"):
            s = self.source("q35_acpi_off", name)
            self.assertEqual(s["status"], "absent", name)
            self.assertTrue(s["reason"], name)
        self.assertIn("FADT", self.source("q35_acpi_off", "acpi_pm")["reason"])

    def test_baselines_and_read_paths(self):
        r = self.report("q35_max")
        b = r["baselines"]
        for key in ("harness_cycles", "cpuid_cycles", "unassigned_port_cycles"):
            for field in ("min", "p50", "throughput", "throughput_se"):
                self.assertIn(field, b[key], key)
            # Every figure says how precise it is: the single-batch-mean
            # throughput too (a preempted batch shows in its SE).
            self.assertGreaterEqual(b[key]["throughput_se"], 0, key)
        # An unassigned port costs more than the empty harness: read from
        # the figures that are net of the harness and carry an SE.  (The
        # two plain batch throughputs are one batch each: a clean clone's
        # harness batch, preempted, read 172 ticks against the port's 88,
        # while the port's net figures were 65.3 +- 0.08 and 74.5 +- 0.3.)
        port = b["unassigned_port_cycles"]
        self.assertGreater(port["throughput_net"], 3 * port["throughput_net_se"])
        self.assertGreater(port["estimate_cycles"], 3 * port["estimate_se_cycles"])
        # Under TCG the yardsticks are emulation costs: now and then the
        # unassigned port costs under twice the empty harness (a fresh
        # clone saw port 149, harness 80 ticks) and the classifier must
        # say it cannot tell, with the reason.  It must never name the
        # wrong path.
        for name, path in (("tsc", "native"), ("acpi_pm", "device_model"),
                           ("hpet", "device_model"), ("pit", "device_model")):
            s = self.source("q35_max", name)
            if s["read_path"] == "unknown":
                self.assertRegex(s["read_path_basis"], "yardsticks not ordered|overlap", name)
            else:
                self.assertEqual(s["read_path"], path, name)

    def test_pm_timer_to_cpuid_ratio_near_peer_benchmark(self):
        # kvm-unit-tests vmexit on this QEMU (TCG, OVMF): inl_from_pmtimer
        # 167-170 vs cpuid 38-42 cycles, both batch means with loop
        # overhead: ~4.2, and ~3.5 here on an idle host.  But TCG figures
        # move with the host's load (a loaded 2-core run gave 1.96), so
        # only what holds on every run is asserted: a PM-timer read goes
        # through the device model, clearly (25 %) dearer than a CPUID,
        # which TCG runs as a helper call.  The interleaved estimates, not
        # the back-to-back batch means: one preempted batch moved those
        # 4x (q35 acpi_pm 841 against an estimate of 189; pc's CPUID
        # batch 174 against 35), and the harness drops such windows.
        # A window the host slowed whole (its median with it) is no
        # outlier within it: the estimate then moves and its SE says by how
        # much (a clean clone's q35: acpi_pm 2174 +- 2042 ticks against a
        # CPUID of 24.2).  So the bound is on what the probe claims: the
        # ratio within 3 SE of the PM-timer estimate overlaps (1.25, 20),
        # and a tight estimate (SE under 10 %) has its ratio inside.
        for config in ("pc", "q35"):
            r = self.report(config)
            pm = self.source(config, "acpi_pm")["read_cost"]
            cpuid = r["baselines"]["cpuid_cycles"]["estimate_cycles"]
            est, se = pm["estimate_cycles"], pm["estimate_se_cycles"]
            self.assertIsNotNone(se, config)
            low, high = (est - 3 * se) / cpuid, (est + 3 * se) / cpuid
            self.assertGreater(high, 1.25, config)
            self.assertLess(low, 20.0, config)
            if se <= 0.1 * est:
                self.assertGreater(est / cpuid, 1.25, config)
                self.assertLess(est / cpuid, 20.0, config)

    def test_icount_runs_are_bit_identical(self):
        # The whole report, not a few figures: with the RTC on virtual time
        # nothing in a boot depends on the host (docs/architecture.md,
        # "Checking that a refactor kept behaviour").
        a, b = self.report("icount_a"), self.report("icount_b")
        self.assertEqual(icountdiff.differences(a, b), [])
        for name in ("tsc", "acpi_pm", "hpet"):
            self.assertIsNotNone(probe_source(a, name)["read_cost"]["estimate_cycles"], name)

    def test_tsc_step_is_found_or_said_unobservable(self):
        # Under -icount the TSC counts instructions: nothing clusters, and
        # back-to-back differences only bound the step (their common
        # divisor) or, all equal, say nothing; never more than the smallest.
        st = self.report("icount_a")["baselines"]["tsc_step"]
        self.assertFalse(st["method"].startswith("intervals"), st)
        if st["ticks"] is None:
            self.assertIn("not observable", st["method"])
        else:
            self.assertLessEqual(st["ticks"], st["min_nonzero"], st)
        for config in ("q35", "q35_max", "pc"):
            st = self.report(config)["baselines"]["tsc_step"]
            self.assertTrue(st["method"], config)
            if st["ticks"] is not None:
                self.assertGreater(st["ticks"], 0, config)

    def test_no_hypervisor_means_no_exit_labels(self):
        # -cpu qemu64,-hypervisor: CPUID says bare metal; nothing may be
        # labelled as an exit or a trip to the device model.
        r = self.report("pvh_nohv")
        self.assertFalse(r["platform"]["hypervisor"]["present"])
        ok = [s for s in r["sources"] if s["status"] == "ok"]
        self.assertTrue(ok)
        # Issue 22: the bit alone does not make "hardware"; the costs must
        # fit hardware too.  TCG's unassigned port answers in tens of ns
        # (no LPC bus), so here the label is unknown, with that reason.
        for s in ok:
            self.assertIn(s["read_path"], ("hardware", "unknown"), s["name"])
            if s["read_path"] == "unknown":
                self.assertIn("no hypervisor bit", s["read_path_basis"], s["name"])
        self.assertFalse(r["baselines"]["harness_anomaly"])

    def test_serialization_is_reported(self):
        for config in ("q35", "q35_max"):
            s = self.report(config)["baselines"]["serialization"]
            self.assertIn(s["fence"], ("lfence", "mfence"))
            self.assertTrue(s["evidence"])
            # AMD-vendor CPU models without the CPUID bit: DE_CFG decided.
            if not s["lfence_serializing"]:
                self.assertEqual(s["fence"], "mfence")
            self.assertIn(s["fence"], self.report(config)["baselines"]["method"])

    def test_pm_timer_width_is_verified(self):
        s = self.source("q35", "acpi_pm")
        self.assertIn(s["fadt_width_bits"], (24, 32))
        self.assertTrue(s["width_evidence"])
        if s["width_bits"] == 32:
            self.assertIn("seen set", s["width_evidence"])

    def test_fault_guard_catches_a_deliberate_fault(self):
        r = self.report("q35")
        fg = r["probe"]["fault_guard"]
        self.assertIn("#GP", fg["noncanonical_read"])
        self.assertGreaterEqual(r["probe"]["faults_caught"], 1)
        self.assertIn(fg["bogus_msr_read"], ("none", "#GP (general protection)"))

    def test_measurement_fits_the_time_budget(self):
        # Probe time, discovery to report, default mode under TCG: the issue
        # allows 1.5 s for the source measurements plus 1 s for frequency,
        # cross-CPU and gaps.
        self.assertLess(self.report("q35")["probe"]["elapsed_ms"], 2500)


def probe_source(report, name):
    for s in report["sources"]:
        if s["name"] == name:
            return s
    raise KeyError(name)
