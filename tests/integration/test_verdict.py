"""Issue #5: the verdict is present and self-consistent on every config."""
from base import ProbeTest
import probe_runs

def ver(s):
    return tuple(int(x) for x in s.split("."))


def covering(ranges, version):
    v = ver(version)
    return [rg for rg in ranges if ver(rg["from"]) <= v and (rg["to"] is None or v <= ver(rg["to"]))]


KNOWN = {"tsc", "kvm-clock", "hpet", "acpi_pm", "jiffies", "refined-jiffies",
         "hyperv_clocksource_tsc_page", "hyperv_clocksource_msr", "xen"}


class Verdict(ProbeTest):
    def test_present_and_consistent_everywhere(self):
        for name in probe_runs.CONFIGS:
            r = self.report(name)
            v = r["verdict"]
            cs = v["linux_clocksource"]
            self.assertIn(cs, KNOWN, name)
            self.assertTrue(v["linux_kernel"], name)
            self.assertIsInstance(v["vdso"], bool)
            self.assertTrue(v["reasoning"], name)
            codes = [w["code"] for w in v["warnings"]]
            # ACPI_PM_FALLBACK fires exactly when acpi_pm is predicted.
            self.assertEqual("ACPI_PM_FALLBACK" in codes, cs == "acpi_pm", (name, cs, codes))
            for w in v["warnings"]:
                for key in ("code", "severity", "message", "evidence", "fix"):
                    self.assertTrue(w.get(key), (name, w))
            # The predicted source must have been found present, and its
            # predicted cost must include its measured read cost.
            if cs in ("tsc", "hpet", "acpi_pm"):
                src = probe_runs.source(r, cs)
                self.assertEqual(src["status"], "ok", (name, cs))
                self.assertIsNotNone(v["predicted_read_ns"], name)
                # The verdict uses the unbiased estimate, never a median
                # that quantization may have turned into 0.
                self.assertGreaterEqual(v["predicted_read_ns"] + 0.01, src["read_cost"]["estimate_ns"], name)
            # by_kernel ranges cover 5.4 .. newest and agree with the main line.
            ranges = v["by_kernel"]
            self.assertIsNone(ranges[-1]["to"], name)
            for version in ("5.4", "6.1", v["linux_kernel"]):
                self.assertEqual(len(covering(ranges, version)), 1, (name, version, ranges))
            main = covering(ranges, v["linux_kernel"])[0]
            self.assertEqual(main["linux_clocksource"], cs, name)
            self.assertEqual(main["vdso"], v["vdso"], name)
            if v["vdso"]:
                self.assertIn(cs, ("tsc", "kvm-clock", "hyperv_clocksource_tsc_page", "xen"), name)

    def test_hpet_off_smp4_tcg_predicts_a_fallback_for_debian12(self):
        # qemu64 is AMD-vendor without invariant TSC; with 4 possible CPUs
        # Linux 6.1 marks the TSC unsynchronized (tsc.c unsynchronized_tsc).
        v = self.report("q35_smp4")["verdict"]
        deb = covering(v["by_kernel"], "6.1")
        self.assertEqual(len(deb), 1)
        self.assertEqual(deb[0]["linux_clocksource"], "hpet")
