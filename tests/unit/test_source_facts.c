/* Each source's pure half (the _facts.c files in src/arch/x86/sources/) reached
 * through the registry's hooks, as the report and the verdict input call
 * them: the kvm-clock section in every report, its figures once
 * registered, the sources' own members, and the verdict's facts joined by
 * Linux name. */
#include "check.h"
#include "report.h"
#include <stdlib.h>

static const struct clock_source fake[SOURCE_ID_COUNT] = {
	[SOURCE_ID_TSC] = { .name = "tsc" },
	[SOURCE_ID_RDTSCP] = { .name = "rdtscp" },
	[SOURCE_ID_KVMCLOCK] = { .name = "kvm-clock", .report_extra = kvmclock_report_extra,
				 .report_section = kvmclock_report_section, .verdict_facts = kvmclock_verdict_facts },
	[SOURCE_ID_HV_TSC_PAGE] = { .name = "hyperv_clocksource_tsc_page", .report_extra = hv_tsc_page_report_extra,
				    .verdict_facts = hv_tsc_page_verdict_facts },
	[SOURCE_ID_HV_MSR] = { .name = "hyperv_clocksource_msr" },
	[SOURCE_ID_HPET] = { .name = "hpet", .report_extra = hpet_report_extra, .verdict_facts = hpet_verdict_facts },
	[SOURCE_ID_ACPI_PM] = { .name = "acpi_pm", .report_extra = acpi_pm_report_extra },
	[SOURCE_ID_PIT] = { .name = "pit" },
	[SOURCE_ID_VMCLOCK] = { .name = "vmclock", .report_section = vmclock_report_section },
};
static const struct clock_source *registry[SOURCE_ID_COUNT];

static struct platform plat = { .boot = "pvh" };
static struct run_results run;
static struct verdict_input in;
static char buf[1 << 20];

static void fill(unsigned prepared)
{
	memset(&run, 0, sizeof run);
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++)
		registry[i] = &fake[i];
	run.registry = registry;
	run.registry_count = SOURCE_ID_COUNT;
	run.facts.plat = &plat;
	run.phase = "boot_services";
	run.facts.tsc_hz_rough = 1000000000ull;
	run.source_count = prepared;
	for (unsigned i = 0; i < prepared; i++) {
		run.sources[i].src = &fake[i];
		run.sources[i].status = SOURCE_ABSENT;
		strcpy(run.sources[i].desc.reason, "not in this test");
	}
}

static const char *build(void)
{
	struct json j;
	json_init(&j, buf, sizeof buf - 1);
	CHECK(report_build_json(&j, &run));
	buf[j.len] = 0;
	return buf;
}

/* No sample buffer: no source was set up, and the contract's kvmclock
 * member is still there, with its null figures. */
TEST(facts_kvmclock_section_without_any_source)
{
	fill(0);
	CHECK(strstr(build(), "\"kvmclock\":{\"registered\":false,\"msr_write_cycles\":null,"
			      "\"msr_read_cycles\":null,\"pvclock\":null}") != NULL);
	CHECK(strstr(buf, "\"sources\":[]") != NULL);
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.pvclock_stable, VERDICT_UNKNOWN);
}

/* Figures of a KVM boot's page (version 2, stable flag set). */
TEST(facts_kvmclock_registered)
{
	fill(SOURCE_ID_COUNT);
	struct source_result *k = &run.sources[SOURCE_ID_KVMCLOCK];
	k->status = SOURCE_OK;
	k->facts.kvmclock = (struct kvmclock_facts){
		.registered = true, .msr = 0x4b564d01, .stable = true, .tsc_hz = 2445432000ull, .retries = 3,
		.snapshot = { .version = 2, .tsc_to_system_mul = 3512880263u, .tsc_shift = -1, .flags = 3 },
	};
	k->facts.kvmclock.msr_write.cycles = (struct dist){ .min = 1800, .p50 = 2000, .p99 = 4000, .n = 512 };
	k->facts.kvmclock.msr_read.cycles.p50 = 1100;
	build();
	CHECK(strstr(buf, "\"kvmclock\":{\"registered\":true,\"msr\":1263947009,\"msr_write_cycles\":2000,"
			  "\"msr_read_cycles\":1100,\"msr_write\":{\"min\":1800,\"p50\":2000,\"p99\":4000,"
			  "\"samples\":512,\"what\":\"re-registering the pvclock page") != NULL);
	/* Stable: the unstable path was not measured, and says so. */
	CHECK(strstr(buf, "\"unstable_read\":null,\"pvclock\":{\"version\":2,\"tsc_to_system_mul\":3512880263,"
			  "\"tsc_shift\":-1,\"flags\":3,\"stable\":true,\"tsc_hz\":2445432000}}") != NULL);
	/* Its own members close its sources[] entry. */
	CHECK(strstr(buf, "\"msr\":1263947009,\"stable\":true,\"version_retries\":3}") != NULL);
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.pvclock_stable, VERDICT_YES);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_KVMCLOCK].present, VERDICT_YES);
	k->facts.kvmclock.snapshot.flags = 2; /* PVCLOCK_GUEST_STOPPED only */
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.pvclock_stable, VERDICT_NO);
}

TEST(facts_hpet_acpi_pm_and_tsc_page_members)
{
	fill(SOURCE_ID_COUNT);
	struct source_result *h = &run.sources[SOURCE_ID_HPET], *pm = &run.sources[SOURCE_ID_ACPI_PM];
	h->status = pm->status = SOURCE_OK;
	/* QEMU's HPET: 10 ns period, 64-bit, 3 timers, vendor 0x8086. */
	h->facts.hpet = (struct hpet_facts){ .read = true, .enabled_by_probe = true };
	h->facts.hpet.capabilities = (10000000ull << 32) | (0x8086u << 16) | (1u << 13) | (2u << 8) | 1;
	pm->facts.acpi_pm = (struct acpi_pm_facts){ .fadt_width_bits = 24, .width_evidence = "FADT: 24-bit (TMR_VAL_EXT clear)" };
	build();
	CHECK(strstr(buf, "\"hpet\":{\"period_fs\":10000000,\"counter_64bit\":true,\"timers\":3,\"vendor_id\":32902,"
			  "\"enabled_by_probe\":true,\"set_aside_by\":null,\"pci_scan\":null}") != NULL);
	/* The proof's figures (issue 41): which map set the block aside and
	 * what the PCI scan read, as QEMU q35's direct boot gave them. */
	str_copy(h->facts.hpet.set_aside_by, sizeof h->facts.hpet.set_aside_by,
		 "inside the _CRS of _SB_.HPET (DSDT): 0xfed00000, 1024 bytes");
	h->facts.hpet.pci_checked = true;
	h->facts.hpet.pci = (struct pci_scan){ .ran = true, .complete = true, .windows = 1, .windows_read = 1,
					       .buses = 256, .functions = 5, .bars = 3, .config_reads = 8282,
					       .elapsed_us = 14799 };
	build();
	CHECK(strstr(buf, "\"set_aside_by\":\"inside the _CRS of _SB_.HPET (DSDT): 0xfed00000, 1024 bytes\","
			  "\"pci_scan\":{\"ran\":true,\"complete\":true,\"windows\":1,\"windows_read\":1,\"buses\":256,"
			  "\"functions\":5,\"bridges\":0,\"memory_bars\":3,\"config_reads\":8282,\"elapsed_us\":14799,"
			  "\"note\":null}") != NULL);
	CHECK(strstr(buf, "\"fadt_width_bits\":24,\"width_evidence\":\"FADT: 24-bit (TMR_VAL_EXT clear)\"") != NULL);
	/* The HPET's rate reaches the verdict whenever the device is there. */
	h->desc.freq_hz = 100000000;
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.hpet_freq_hz, 100000000);
	h->status = SOURCE_ERROR;
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.hpet_freq_hz, 100000000);
	h->status = SOURCE_ABSENT;
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.hpet_freq_hz, 0);
	h->status = SOURCE_OK;

	/* The TSC page: present but invalid (sequence 0) is an error, and the
	 * verdict learns it is not valid; absent leaves it unknown. */
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.hv_tsc_page_valid, VERDICT_UNKNOWN);
	run.sources[SOURCE_ID_HV_TSC_PAGE].status = SOURCE_ERROR;
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.hv_tsc_page_valid, VERDICT_NO);
	run.sources[SOURCE_ID_HV_TSC_PAGE].status = SOURCE_OK;
	run.sources[SOURCE_ID_HV_TSC_PAGE].facts.hv_tsc_page.snapshot.tsc_sequence = 7;
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.hv_tsc_page_valid, VERDICT_YES);
	CHECK(strstr(build(), "\"tsc_sequence\":7,\"tsc_scale\":0,\"tsc_offset\":0,\"tsc_hz_from_scale\":0,"
			      "\"invalid_reads\":0") != NULL);
}

/* The verdict's clocksources are joined to the sources by Linux's name:
 * rdtscp has none, and Xen's pvclock has no source here. */
TEST(facts_verdict_sources_joined_by_name)
{
	fill(SOURCE_ID_COUNT);
	run.sources[SOURCE_ID_TSC].status = SOURCE_OK;
	run.sources[SOURCE_ID_TSC].cost.estimate_milli = 3000;
	run.sources[SOURCE_ID_TSC].read_path = READ_PATH_NATIVE;
	run.sources[SOURCE_ID_PIT].status = SOURCE_ERROR;
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_TSC].present, VERDICT_YES);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_TSC].read_ns_milli, 3000); /* 3 ticks at 1 GHz */
	CHECK_EQ_U64(in.sources[VERDICT_SRC_TSC].read_path, VERDICT_PATH_NATIVE);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_PIT].present, VERDICT_YES); /* an error is still presence */
	CHECK_EQ_U64(in.sources[VERDICT_SRC_PIT].read_ns_milli, 0);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_HPET].present, VERDICT_NO);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_XEN].present, VERDICT_UNKNOWN);
	/* Set up but none of them: nothing is known. */
	fill(0);
	results_verdict_input(&run, &in);
	CHECK_EQ_U64(in.sources[VERDICT_SRC_TSC].present, VERDICT_UNKNOWN);
}

/* The vmclock section from the page QEMU 10.0.2 wrote, and with a TSC
 * relation a hypervisor could publish: the advertised rate against the
 * run's TSC rate. */
TEST(facts_vmclock_section)
{
	fill(SOURCE_ID_COUNT);
	run.freq.chosen_hz = 2445000000ull;
	size_t plen;
	uint8_t *page = read_fixture("tests/fixtures/acpi/ovmf-q35-vmclock/VMCLOCK.bin", &plen);
	struct source_result *s = &run.sources[SOURCE_ID_VMCLOCK];
	s->status = SOURCE_OK;
	struct vmclock_facts *v = &s->facts.vmclock;
	v->status = "ok";
	v->page_read = true;
	v->address = 0xfeffb000;
	v->length = 4096;
	v->address_basis = "reserved in the PVH memory map (E820 type 2)";
	vmclock_decode(&v->page, page, plen);
	free(page);
	build();
	CHECK(strstr(buf, "\"vmclock\":{\"status\":\"ok\",\"address\":4278169600,\"address_hex\":\"0xfeffb000\"") != NULL);
	CHECK(strstr(buf, "\"version\":1,\"counter_id\":255,\"counter\":\"invalid\"") != NULL);
	CHECK(strstr(buf, "\"seq_count\":2,\"disruption_marker\":1,\"flags\":0") != NULL);
	CHECK(strstr(buf, "\"counter_hz\":null,\"counter_vs_measured_ppm\":null") != NULL);
	/* A page advertising the TSC at 2,445,000,000 Hz + 10 ppm against the
	 * run's 2,445,000,000: floor(2^64 / 2445024450) = 7544605156. */
	v->page.counter_id = VMCLOCK_COUNTER_X86_TSC;
	v->page.counter_period_frac_sec = 7544605156ull;
	v->counter_hz = vmclock_counter_hz(v->page.counter_period_frac_sec, 0);
	CHECK_EQ_U64(v->counter_hz, 2445024450ull);
	build();
	CHECK(strstr(buf, "\"counter_hz\":2445024450,\"measured_tsc_hz\":2445000000,\"counter_vs_measured_ppm\":10") != NULL);
	/* Absent: the contract's names, null, and the reason the source gave. */
	s->status = SOURCE_ABSENT;
	memset(v, 0, sizeof *v);
	v->status = "absent";
	strcpy(v->reason, "no VMClock device");
	build();
	CHECK(strstr(buf, "\"vmclock\":{\"status\":\"absent\",\"reason\":\"no VMClock device\",\"version\":null") != NULL);
}

/* No sample buffer: the source was never prepared, and its section still
 * stands, absent and "not examined". */
TEST(facts_vmclock_section_without_any_source)
{
	fill(0);
	CHECK(strstr(build(), "\"vmclock\":{\"status\":\"absent\",\"reason\":\"not examined\",\"version\":null,"
			      "\"counter_id\":null,\"clock_status\":null,\"disruption_marker\":null,"
			      "\"vm_generation_counter\":null,\"flags\":null}") != NULL);
}
