/* The run's yardsticks gathered from its results and every measured
 * source labelled (src/results/read_paths.c), on the figures of a real
 * TCG run (tests/fixtures/reports/real_make_run.log: harness, CPUID, the
 * two ports, tsc/hpet/acpi_pm/pit throughput and p50/p90). */
#include "check.h"
#include "results.h"

static const struct clock_source fake[SOURCE_ID_COUNT] = {
	[SOURCE_ID_TSC] = { .name = "tsc" },	   [SOURCE_ID_RDTSCP] = { .name = "rdtscp" },
	[SOURCE_ID_KVMCLOCK] = { .name = "kvm-clock" }, [SOURCE_ID_HV_TSC_PAGE] = { .name = "hyperv_clocksource_tsc_page" },
	[SOURCE_ID_HV_MSR] = { .name = "hyperv_clocksource_msr" }, [SOURCE_ID_HPET] = { .name = "hpet" },
	[SOURCE_ID_ACPI_PM] = { .name = "acpi_pm" }, [SOURCE_ID_PIT] = { .name = "pit" },
	[SOURCE_ID_VMCLOCK] = { .name = "vmclock" },
};

static struct run_results run;

static void ok(enum source_id id, uint64_t throughput_milli, uint64_t p50, uint64_t p90, bool reads_tsc)
{
	struct source_result *s = &run.sources[id];
	s->status = SOURCE_OK;
	s->cost.throughput_milli = throughput_milli;
	s->cost.cycles.p50 = p50;
	s->cost.cycles.p90 = p90;
	s->desc.reads_tsc = reads_tsc;
}

static void fill_tcg(void)
{
	memset(&run, 0, sizeof run);
	run.source_count = SOURCE_ID_COUNT;
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++) {
		run.sources[i].src = &fake[i];
		run.sources[i].status = SOURCE_ABSENT;
	}
	run.facts.hv.present = true;
	run.facts.tsc_hz_rough = 2445431953ull;
	struct baselines *b = &run.baselines;
	b->harness.throughput_milli = 60769;
	b->harness.cycles.p50 = 74;
	b->cpuid.throughput_milli = 100011;
	b->cpuid.cycles = (struct dist){ .p50 = 25, .p90 = 74 };
	b->cpuid.estimate_milli = 29357;
	b->port.throughput_milli = 147574;
	b->port.cycles = (struct dist){ .p50 = 123, .p90 = 196 };
	b->kernel_port.throughput_milli = 227773;
	b->kernel_port.cycles = (struct dist){ .p50 = 123, .p90 = 270 };
	ok(SOURCE_ID_TSC, 61921, 25, 49, true);
	ok(SOURCE_ID_HPET, 647050, 588, 662, false);
	ok(SOURCE_ID_ACPI_PM, 395160, 343, 392, false);
	ok(SOURCE_ID_PIT, 517753, 442, 466, false);
}

TEST(read_paths_of_a_tcg_run)
{
	fill_tcg();
	results_judge_read_paths(&run);
	CHECK(run.harness_anomaly_reason == NULL);
	CHECK_EQ_U64(run.sources[SOURCE_ID_TSC].read_path, READ_PATH_NATIVE);
	CHECK_EQ_U64(run.sources[SOURCE_ID_HPET].read_path, READ_PATH_DEVICE_MODEL);
	CHECK_EQ_U64(run.sources[SOURCE_ID_ACPI_PM].read_path, READ_PATH_DEVICE_MODEL);
	CHECK_EQ_U64(run.sources[SOURCE_ID_PIT].read_path, READ_PATH_DEVICE_MODEL);
	/* The report of that run, word for word. */
	CHECK_STR(run.sources[SOURCE_ID_TSC].read_path_basis,
		  "cost 61 under emulation (cpuid ~ rdtsc): native/device_model split at sqrt(rdtsc*port); "
		  "yardsticks (cycles/read): rdtsc 61, cpuid 100, kernel port 227, port 147");
	/* Absent sources keep no label. */
	CHECK_STR(run.sources[SOURCE_ID_KVMCLOCK].read_path_basis, "");
}

TEST(read_paths_without_a_hypervisor_are_hardware)
{
	fill_tcg();
	run.facts.hv.present = false;
	results_judge_read_paths(&run);
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++)
		if (run.sources[i].status == SOURCE_OK)
			CHECK_EQ_U64(run.sources[i].read_path, READ_PATH_HARDWARE);
}

/* A nested KVM that traps RDTSC: the empty harness costs ~21,000 ticks
 * (design.md), over a microsecond at any rate. */
TEST(read_paths_with_a_trapping_rdtsc)
{
	fill_tcg();
	run.baselines.harness.cycles.p50 = 21000;
	results_judge_read_paths(&run);
	CHECK(run.harness_anomaly_reason != NULL);
	CHECK(strstr(run.harness_anomaly_reason, "RDTSC traps") != NULL);
	CHECK_EQ_U64(run.sources[SOURCE_ID_TSC].read_path, READ_PATH_EXIT);
	CHECK(strstr(run.sources[SOURCE_ID_TSC].read_path_basis, "RDTSC traps (harness anomaly)") != NULL);
}
