"""Issue #4: frequency, drift, cross-CPU TSC sync and gaps."""
from base import ProbeTest


class Frequency(ProbeTest):
    def test_hpet_and_pm_agree(self):
        t = self.report("q35_smp4")["platform"]["tsc"]
        hpet = t["freq_hz"]["measured_vs_hpet"]
        pm = t["freq_hz"]["measured_vs_acpi_pm"]
        self.assertIsNotNone(hpet)
        self.assertIsNotNone(pm)
        pit = t["freq_hz"]["measured_vs_pit"]
        self.assertLess(abs(hpet - pm) / pm, 0.002)
        if pit is None:
            # The PIT wraps every 55 ms: on a loaded host a descheduled vCPU
            # can miss a wrap, and such a window is dropped, named (seen
            # once in the suite: a wrap counted short made the rate 88 %
            # off).  Every window must then say so.
            windows = t["freq_windows"]["measured_vs_pit"]["windows"]
            self.assertTrue(windows)
            for x in windows:
                self.assertGreater(x["unseen_gap_us"], 0.75 * x["wrap_us"], x)
        else:
            self.assertLess(abs(pit - pm) / pm, 0.002)
        # Issue 22: the reference with the lowest total uncertainty (its
        # windows' own plus its stated tolerance) converts cycles to ns.
        unc = {k: t["freq_uncertainty_ppm"][k] for k in ("measured_vs_hpet", "measured_vs_acpi_pm", "measured_vs_pit")
               if t["freq_hz"][k] is not None}
        best = min(unc, key=unc.get)
        self.assertEqual(t["freq_chosen"]["source"], best, unc)
        self.assertEqual(t["freq_chosen"]["hz"], t["freq_hz"][best])
        # Under TCG (a hypervisor bit) the references are emulated: no
        # crystal tolerance is added, the host clock's error is unknown.
        self.assertTrue(t["freq_reference_tolerance_ppm"]["unknown_reason"])
        for k, v in unc.items():
            self.assertIsNone(t["freq_reference_tolerance_ppm"][k], k)
            self.assertAlmostEqual(v, t["freq_measured_uncertainty_ppm"][k], places=3, msg=k)
        # Every reference over several windows, each with its bound.
        w = t["freq_windows"]
        self.assertGreaterEqual(w["count"], 2)
        for k in unc:
            self.assertEqual(len(w[k]["windows"]), w["count"], k)
            self.assertTrue(all(x["bound_ppm"] > 0 for x in w[k]["windows"] if x["hz"]), k)
        # Under TCG one host clock drives every timer: not a cross-check.
        self.assertTrue(t["freq_shared_host_clock"])
        self.assertFalse(t["freq_cross_check"]["independent"])
        self.assertIn("one host clock", t["freq_cross_check"]["note"])
        self.assertEqual(len(t["freq_cross_check"]["pairs"]), len(unc) * (len(unc) - 1) // 2)

    def test_matches_the_host_tsc_rate(self):
        import host_tsc
        host = host_tsc.measure_hz()
        if host is None:
            self.skipTest("cannot measure the host TSC here")
        hz = self.report("q35_smp4")["platform"]["tsc"]["freq_hz"]["measured_vs_hpet"]
        self.assertLess(abs(hz - host) / host, 0.002, "guest %d vs host %d" % (hz, host))

    def test_icount_tsc_is_one_ghz(self):
        t = self.report("icount_a")["platform"]["tsc"]
        for key in ("measured_vs_hpet", "measured_vs_acpi_pm"):
            hz = t["freq_hz"][key]
            self.assertLess(abs(hz - 1e9) / 1e9, 0.001, key)

    def test_drift_table(self):
        drift = self.report("q35_smp4")["drift"]
        pairs = {(d["a"], d["b"]) for d in drift}
        # Nothing advertised under TCG: the TSC's rate is what the
        # references measure, so only each reference against the chosen one
        # is an independent figure (no "tsc vs" restating the same ratio).
        tsc = self.report("q35_smp4")["platform"]["tsc"]
        chosen = tsc["freq_chosen"]["source"][len("measured_vs_"):]
        measured = [o for o in ("hpet", "acpi_pm", "pit") if tsc["freq_hz"]["measured_vs_" + o] is not None]
        self.assertEqual(pairs, {(o, chosen) for o in measured if o != chosen})
        for d in drift:
            self.assertLess(abs(d["ppm"]), 2000, d)  # all derive from the host clock under TCG
            self.assertGreater(d["window_ms"], 0)


class CrossCpu(ProbeTest):
    def test_four_cpus_all_tested_no_warps(self):
        x = self.report("q35_smp4")["cross_cpu"]
        self.assertEqual(x["cpus"], 4)
        self.assertEqual(x["tested"], sum(c["tested"] for c in x["per_cpu"]))
        self.assertEqual(x["warps"], 0)
        self.assertEqual(len(x["per_cpu"]), 4)
        for c in x["per_cpu"]:
            if not c["tested"]:
                # 4 vCPUs on a loaded 2-core host: a pair the host did not
                # run within its waits is named, never silently dropped.
                self.assertFalse(c["bsp"], c)
                self.assertTrue(c["started"] and c["answered"], c)
                self.assertIn("no pair completed", x["not_tested"])
                continue
            self.assertTrue(c["cpuid_consistent"], c)
            if not c["bsp"]:
                self.assertIn("skew_cycles", c)
                self.assertLessEqual(abs(c["skew_cycles"]), c["skew_bound_cycles"] + 100000)

    def test_all_cpu_phase_reports_what_ran(self):
        # Issue 22: after the pairs every CPU is on one lock at once; what
        # ran is reported, not what was configured.  (Whether AP<->AP
        # orderings happen at all depends on the host's scheduling: the
        # opt-in test_cross_cpu_smp8.py boots 8 vCPUs alone for that.)
        r = self.report("q35_smp4")
        x = r["cross_cpu"]
        a = x["all_cpus"]
        self.assertTrue(a["ran"], a)
        self.assertLessEqual(a["cpus"], 4)
        self.assertEqual(x["ap_pairs_tested"], a["ap_pairs_tested"])
        self.assertLessEqual(a["ap_pairs_tested"], 3)
        self.assertLessEqual(a["ap_pairs_tested"], a["cpu_pairs_tested"])
        self.assertLessEqual(a["ap_ap_handoffs"], a["handoffs"])
        self.assertLessEqual(a["handoffs"], a["rounds"])
        self.assertEqual(x["iterations"]["all_cpus"], a["rounds"])
        aps = [c for c in x["per_cpu"] if not c["bsp"]]
        self.assertEqual(x["iterations"]["pair_phase"],
                         sum(c["iterations"] + c["bsp_iterations"] for c in aps if c["tested"]))
        for c in aps:
            self.assertLessEqual(c["iterations"], x["iterations_per_pair"], c)
        self.assertGreaterEqual(x["elapsed_ms"], a["elapsed_ms"])
        if x["not_coscheduled"]:
            self.assertIn("did not run together", x["not_coscheduled_reason"])
            if not x["warps"]:
                self.assertNotEqual(r["verdict"]["confidence"], "high")
        else:
            self.assertIsNone(x["not_coscheduled_reason"])

    def test_single_cpu(self):
        x = self.report("q35")["cross_cpu"]
        self.assertEqual(x["cpus"], 1)
        self.assertEqual(x["tested"], 1)

    def test_selftest_reports_whether_the_platform_can_skew_a_tsc(self):
        # TCG ignores both IA32_TSC_ADJUST and IA32_TSC writes (its TSC is
        # the host's): the selftest must say so rather than claim warps.
        # Where a platform honours the write, the warp test must see it.
        x = self.report("fat_settings")["cross_cpu"]
        st = x["selftest"]
        ap = x["per_cpu"][st["cpu"]]
        self.assertTrue(st["requested"])
        self.assertTrue(st["ran"])
        self.assertIn(st["method"], ("IA32_TSC_ADJUST", "IA32_TSC write"))
        self.assertTrue(st["restored"])
        if st["honoured"]:
            self.assertGreater(st["warps"], 0)
            self.assertLess(abs(abs(st["measured_skew_cycles"]) - st["offset_cycles"]),
                            st["offset_cycles"] // 4)
        else:
            # Nothing moved: the estimate must stay within its own bound
            # around a true skew of 0 (TCG's vCPUs share the host TSC).
            self.assertEqual(st["warps"], 0)
            if not ap["tested"]:
                # The loaded host did not run the pair within its waits
                # (2 cores, the suite's parallel boots): no bound to hold
                # the estimate to, and the probe names the CPU for it.
                self.assertIn("no pair completed", x["not_tested"])
                return
            self.assertLessEqual(abs(st["measured_skew_cycles"]), ap["skew_bound_cycles"])


class Gaps(ProbeTest):
    def test_gap_report_on_every_config(self):
        import probe_runs
        for name in probe_runs.reporting():
            r = self.report(name)
            g = r["gaps"]
            for key in ("threshold_ns", "window_ms", "count", "max_ns", "total_ns"):
                self.assertIn(key, g, name)
            if probe_runs.source(r, "tsc")["status"] != "ok":
                # -cpu qemu64,-tsc (the hostile machine): no gap scan
                # without a TSC, and the report says so.
                self.assertFalse(g["measured"], name)
                self.assertIn("TSC_UNUSABLE", [e["code"] for e in r["errors"]], name)
                continue
            self.assertTrue(g["measured"], name)
            self.assertGreaterEqual(g["threshold_ns"], 9990, name)  # 10 us, rounded through cycles
            self.assertLessEqual(g["total_ns"], g["window_ms"] * 1000000 * 2, name)


class GapsPerCpu(ProbeTest):
    def test_all_cpus_scan_when_asked(self):
        g = self.report("fat_settings")["gaps"]
        self.assertEqual([c["cpu"] for c in g["per_cpu"]], [0, 1])
        for c in g["per_cpu"]:
            self.assertTrue(c["ran"], c)
            self.assertEqual(c["window_ms"], 50)  # mode=quick
            # Every gap but the last lies inside the window; the last may
            # overrun it by however long the host kept the vCPU away (152 ms
            # seen on a loaded 2-core host), so bound the rest, not the sum.
            self.assertLessEqual(c["total_ns"] - c["max_ns"], 50 * 1000000, c)
        self.assertNotIn("per_cpu", self.report("q35_smp4")["gaps"])  # not asked
