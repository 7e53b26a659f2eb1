/* The summary as a person reads it, built from recorded results: the
 * verdict the rules give for the inputs a real q35,hpet=off boot recorded
 * (tests/fixtures/verdict/q35_hpet_off.inputs, from
 * tests/fixtures/reports/real_q35_hpet_off_2026.log), around a TCG-like
 * source table.  Every line fits 100 columns, no phrase is said twice, the
 * first line names the older kernels' acpi_pm and the confidence. */
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "verdict_inputs_fixture.h"
#include "report.h"

static const struct clock_source fake_sources[SOURCE_ID_COUNT] = {
	[SOURCE_ID_TSC] = { .name = "tsc" },
	[SOURCE_ID_RDTSCP] = { .name = "rdtscp" },
	[SOURCE_ID_KVMCLOCK] = { .name = "kvm-clock" },
	[SOURCE_ID_HV_TSC_PAGE] = { .name = "hyperv_clocksource_tsc_page" },
	[SOURCE_ID_HV_MSR] = { .name = "hyperv_clocksource_msr" },
	[SOURCE_ID_HPET] = { .name = "hpet" },
	[SOURCE_ID_ACPI_PM] = { .name = "acpi_pm" },
	[SOURCE_ID_PIT] = { .name = "pit" },
	[SOURCE_ID_VMCLOCK] = { .name = "vmclock" },
};

/* The absent reasons the same boot printed. */
static const char *const absent_reason[SOURCE_ID_COUNT] = {
	[SOURCE_ID_RDTSCP] = "CPUID.80000001h:EDX[27] (RDTSCP) is clear for this CPU model",
	[SOURCE_ID_KVMCLOCK] = "no KVM signature in the CPUID hypervisor leaves",
	[SOURCE_ID_HV_TSC_PAGE] = "no Hyper-V interface in the CPUID hypervisor leaves",
	[SOURCE_ID_HV_MSR] = "no Hyper-V interface in the CPUID hypervisor leaves",
	[SOURCE_ID_HPET] = "no HPET table",
	[SOURCE_ID_VMCLOCK] = "no VMClock device (_HID \"AMZNC10C\" / _CID \"VMCLOCK\") in the DSDT or any SSDT",
};

static struct platform plat = { .boot = "uefi" };
static struct run_results run;

static void fill(struct run_results *r, const struct verdict_input *in)
{
	memset(r, 0, sizeof *r);
	r->facts.plat = &plat;
	r->phase = "boot_services";
	r->elapsed_ms = 592;
	r->cpus_enabled = 2;
	strcpy(r->facts.cpu.vendor, "AuthenticAMD");
	strcpy(r->facts.cpu.brand, "QEMU Virtual CPU version 2.5+");
	r->facts.tsc_hz_rough = 2095000000ull;
	r->freq.chosen_hz = 2095000000ull;
	r->freq.chosen_name = "measured_vs_acpi_pm";
	r->baselines.step.ticks = 21;
	r->source_count = SOURCE_ID_COUNT;
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++) {
		/* A source added to the registry needs its row here, or the
		 * summary would read a null name. */
		if (!fake_sources[i].name) {
			fprintf(stderr, "test_summary: fake_sources has no entry for source %u\n", i);
			abort();
		}
		r->sources[i].src = &fake_sources[i];
		r->sources[i].status = SOURCE_ABSENT;
		if (absent_reason[i])
			strcpy(r->sources[i].desc.reason, absent_reason[i]);
	}
	struct source_result *tsc = &r->sources[SOURCE_ID_TSC];
	tsc->status = SOURCE_OK;
	tsc->read_path = READ_PATH_NATIVE;
	tsc->cost.step_ticks = 21;
	tsc->cost.below_resolution = true;
	tsc->cost.estimate_milli = 15100;
	struct source_result *pm = &r->sources[SOURCE_ID_ACPI_PM];
	pm->status = SOURCE_OK;
	pm->read_path = READ_PATH_DEVICE_MODEL;
	pm->cost.cycles = (struct dist){ .min = 100, .p50 = 147, .p90 = 160, .p99 = 168, .max = 900, .n = 4096 };
	pm->cost.estimate_milli = 135100;
	struct source_result *pit = &r->sources[SOURCE_ID_PIT];
	pit->status = SOURCE_OK;
	pit->read_path = READ_PATH_DEVICE_MODEL;
	pit->cost.cycles = (struct dist){ .min = 250, .p50 = 294, .p90 = 320, .p99 = 336, .max = 2000, .n = 4096 };
	pit->cost.estimate_milli = 287000;
	r->xcpu.tested = r->xcpu.cpus = 2;
	r->gaps.window_ms = 250;
	verdict_decide(&r->verdict, in);
}

static char lines[96][512];
static bool on_screen[96];
static unsigned line_count;

static void collect(const char *line, bool screen)
{
	if (line_count < 96) {
		on_screen[line_count] = screen;
		snprintf(lines[line_count++], sizeof lines[0], "%s", line);
	}
}

/* Words of all lines, in order, for the no-repeat check. */
#define MAX_WORDS 4096
static const char *words[MAX_WORDS];
static size_t word_len[MAX_WORDS];
static size_t word_count;

static void split_words(void)
{
	word_count = 0;
	for (unsigned i = 0; i < line_count; i++)
		for (const char *p = lines[i]; *p;) {
			while (*p == ' ')
				p++;
			const char *w = p;
			while (*p && *p != ' ')
				p++;
			if (p > w && word_count < MAX_WORDS) {
				words[word_count] = w;
				word_len[word_count++] = (size_t)(p - w);
			}
		}
}

static bool same_run(size_t a, size_t b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (word_len[a + k] != word_len[b + k] || memcmp(words[a + k], words[b + k], word_len[a + k]))
			return false;
	return true;
}

/* A phrase: six words in a row.  The summary says each one once. */
#define PHRASE 6

static const char *repeated_phrase(char *out, size_t cap)
{
	split_words();
	for (size_t a = 0; a + PHRASE <= word_count; a++)
		for (size_t b = a + PHRASE; b + PHRASE <= word_count; b++)
			if (same_run(a, b, PHRASE)) {
				size_t at = 0;
				for (size_t k = 0; k < PHRASE && at + word_len[a + k] + 2 < cap; k++) {
					memcpy(out + at, words[a + k], word_len[a + k]);
					at += word_len[a + k];
					out[at++] = ' ';
				}
				out[at] = 0;
				return out;
			}
	return NULL;
}

TEST(summary_of_the_hpet_off_run_fits_and_says_each_thing_once)
{
	static struct verdict_input in;
	char phrase[256];
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	fill(&run, &in);
	line_count = 0;
	report_summary(&run, collect);
	CHECK(line_count > 20);
	for (unsigned i = 0; i < line_count; i++) {
		if (strlen(lines[i]) > 100)
			fprintf(stderr, "too wide (%zu): %s\n", strlen(lines[i]), lines[i]);
		CHECK(strlen(lines[i]) <= 100);
	}
	const char *rep = repeated_phrase(phrase, sizeof phrase);
	if (rep)
		fprintf(stderr, "said twice: \"%s\"\n", rep);
	CHECK(rep == NULL);
	/* The first lines: the newest kernels' tsc, the older ones' acpi_pm
	 * (Debian 12's 6.1 among them) and the confidence; the risk; the fix. */
	CHECK(strstr(lines[1], "Linux 7.1+: tsc ~") == lines[1]);
	CHECK(strstr(lines[1], "; 4.19-6.11 (Debian 12's 6.1): acpi_pm ~") != NULL);
	CHECK(strstr(lines[1], " - confidence low") != NULL);
	CHECK(on_screen[1]);
	CHECK(strstr(lines[2], "Risk (7.1+): ") == lines[2]);
	bool fix = false;
	for (unsigned i = 2; i < 6; i++)
		if (strstr(lines[i], "Fix (4.19-6.11): expose invariant TSC") == lines[i])
			fix = true;
	CHECK(fix);
	/* Warnings: one line each, the fix on the next. */
	unsigned w = 0;
	for (; w < line_count; w++)
		if (strstr(lines[w], "Warnings for Linux 6.18 (") == lines[w])
			break;
	CHECK(w < line_count);
	CHECK(w + 2 < line_count && strstr(lines[w + 1], "  warning KERNEL_DEPENDENT: ") == lines[w + 1]);
	CHECK(w + 2 < line_count && strstr(lines[w + 2], "    fix: ") == lines[w + 2]);
	CHECK_EQ_U64(run.verdict.text_cut, 0);
}

/* A default summary (the lts set) and a kernels=6.18 one: 6.18 alone
 * keeps tsc, so nothing names acpi_pm and no fix is due. */
TEST(summary_for_one_kernel_that_keeps_tsc_has_no_fix)
{
	static struct verdict_input in;
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	CHECK(verdict_kernel_set_parse("6.18", 4, &in.kernels));
	fill(&run, &in);
	line_count = 0;
	report_summary(&run, collect);
	CHECK(strstr(lines[1], "Linux 6.12-7.0: tsc ~") == lines[1]);
	CHECK(strstr(lines[1], "acpi_pm") == NULL);
	for (unsigned i = 0; i < line_count; i++)
		CHECK(strstr(lines[i], "Fix (") != lines[i]);
}

/* Prints the summary when CLOCKPROBE_SHOW_SUMMARY is set (for people). */
TEST(summary_print_on_request)
{
	static struct verdict_input in;
	if (!getenv("CLOCKPROBE_SHOW_SUMMARY"))
		return;
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	fill(&run, &in);
	line_count = 0;
	report_summary(&run, collect);
	for (unsigned i = 0; i < line_count; i++)
		fprintf(stderr, "%s%s\n", on_screen[i] ? "S " : "  ", lines[i]);
}
