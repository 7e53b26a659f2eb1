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
#include "results.h"
#include "../../src/report/report_parts.h"

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
	tsc->cost.estimate_se_milli = 210;
	struct source_result *pm = &r->sources[SOURCE_ID_ACPI_PM];
	pm->status = SOURCE_OK;
	pm->read_path = READ_PATH_DEVICE_MODEL;
	pm->cost.cycles = (struct dist){ .min = 100, .p50 = 147, .p90 = 160, .p99 = 168, .max = 900, .n = 4096 };
	pm->cost.estimate_milli = 135100;
	pm->cost.estimate_se_milli = 2700;
	struct source_result *pit = &r->sources[SOURCE_ID_PIT];
	pit->status = SOURCE_OK;
	pit->read_path = READ_PATH_DEVICE_MODEL;
	pit->cost.cycles = (struct dist){ .min = 250, .p50 = 294, .p90 = 320, .p99 = 336, .max = 2000, .n = 4096 };
	pit->cost.estimate_milli = 287000;
	r->xcpu.ran = true;
	r->xcpu.tested = r->xcpu.cpus = 2;
	r->xcpu.max_skew_cycles = 391;
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
	CHECK(strstr(lines[1], "Linux 7.1+: tsc ") == lines[1]);
	CHECK(strstr(lines[1], "; 4.19-6.11 (Debian 12's 6.1): acpi_pm ") != NULL);
	CHECK(strstr(lines[1], " - confidence low") != NULL || strstr(lines[2], " - confidence low") != NULL);
	CHECK(on_screen[1]);
	unsigned risk_at = strstr(lines[2], "Risk (7.1+): ") == lines[2] ? 2 : 3;
	CHECK(strstr(lines[risk_at], "Risk (7.1+): ") == lines[risk_at]);
	bool fix = false;
	for (unsigned i = 2; i < 10; i++)
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
	CHECK(strstr(lines[1], "Linux 6.12-7.0: tsc ") == lines[1]);
	CHECK(strstr(lines[1], "acpi_pm") == NULL);
	for (unsigned i = 0; i < line_count; i++)
		CHECK(strstr(lines[i], "Fix (") != lines[i]);
}

/* The est. column of a source's table row: its fifth word. */
static const char *table_estimate(const char *source, char *out, size_t cap)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "  %s ", source);
	for (unsigned i = 0; i < line_count; i++) {
		if (strncmp(lines[i], prefix, strlen(prefix)))
			continue;
		char copy[512], *save = NULL, *w = NULL;
		snprintf(copy, sizeof copy, "%s", lines[i]);
		w = strtok_r(copy, " ", &save);
		for (int k = 0; w && k < 4; k++)
			w = strtok_r(NULL, " ", &save);
		snprintf(out, cap, "%s", w ? w : "");
		return out;
	}
	return NULL;
}

/* All of the summary's text joined, wrapped lines back into one (a
 * continuation's indent is one space). */
static void joined(char *out, size_t cap)
{
	size_t at = 0;
	out[0] = 0;
	for (unsigned i = 0; i < line_count && at + 2 < cap; i++) {
		const char *p = lines[i];
		while (*p == ' ')
			p++;
		at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? " " : "", p);
	}
}

/* Issue 38: the headline's cost is the table's measured estimate, to the
 * same precision from the same SE; the syscall it adds off the vDSO is
 * stated as its range, never folded in; the verdict's input is built from
 * the same results as the table (results_verdict_input). */
TEST(headline_cost_is_the_tables_measured_estimate)
{
	static struct verdict_input in, from_results;
	static char all[16384];
	char est[64], want[160];
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	fill(&run, &in);
	results_verdict_input(&run, &from_results);
	for (int s = 0; s < VERDICT_SRC_COUNT; s++) {
		in.sources[s].read_ns_milli = from_results.sources[s].read_ns_milli;
		in.sources[s].read_se_ns_milli = from_results.sources[s].read_se_ns_milli;
	}
	verdict_decide(&run.verdict, &in);
	line_count = 0;
	report_summary(&run, collect);
	joined(all, sizeof all);
	CHECK(table_estimate("tsc", est, sizeof est) != NULL);
	CHECK(strstr(est, "+-") != NULL);
	snprintf(want, sizeof want, "Linux 7.1+: tsc %s ns;", est);
	CHECK(strstr(all, want) != NULL);
	CHECK(table_estimate("acpi_pm", est, sizeof est) != NULL);
	CHECK(strstr(est, "+-") != NULL);
	snprintf(want, sizeof want, "acpi_pm %s ns + syscall 50-300 ns (not measured) per read", est);
	if (!strstr(all, want))
		fprintf(stderr, "want \"%s\" in: %s\n", want, all);
	CHECK(strstr(all, want) != NULL);
	/* The Windows line states its read the same way. */
	snprintf(want, sizeof want, "per read %s ns + kernel call 50-300 ns (not measured);", est);
	CHECK(strstr(all, want) != NULL);
	/* The sum with the 150 ns estimate is in the JSON (predicted_read_ns),
	 * never on the screen as a read cost. */
	CHECK(run.verdict.by_kernel[0].syscall_added);
	char sum[32];
	snprintf(sum, sizeof sum, "%llu ns",
		 (unsigned long long)((run.verdict.by_kernel[0].predicted_read_ns_milli + 500) / 1000));
	CHECK(strstr(all, sum) == NULL);
}

/* Issue 38: every duration in one rounded format; ticks with ns beside
 * and why the bound is that wide; nothing cut with "..."; the fix a user
 * copies whole on one line. */
TEST(units_round_and_nothing_is_cut)
{
	static struct verdict_input in;
	static char all[16384];
	struct strbuf sb;
	char b[64];
	static const struct { uint64_t ns_milli; const char *text; } cases[] = {
		{ 8449, "8.4 ns" }, { 8450, "8.5 ns" }, { 9960, "10 ns" }, { 47999000, "48.0 us" },
		{ 9999600, "10.0 us" }, { 12979400000ull, "13.0 ms" }, { 3000000000000ull, "3.000 s" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sb_init(&sb, b, sizeof b);
		sb_ns(&sb, cases[i].ns_milli);
		CHECK_STR(b, cases[i].text);
	}
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	fill(&run, &in);
	run.xcpu.not_coscheduled = true;
	strcpy(run.xcpu.not_coscheduled_reason, "the fastest round trip with CPU 1 took 5548 us: the vCPUs did not run together");
	run.xcpu.max_skew_cycles = 10379668;
	run.gaps.g.threshold = 20950;	  /* 10 us at 2095 MHz */
	run.gaps.g.max = 27192000;	  /* 12.979 ms */
	run.elapsed_ms = 836;
	strcpy(run.timers.lapic_oneshot.reason, "boot services own the LAPIC timer (the firmware's tick): measured "
						 "after ExitBootServices only, which this run did not reach");
	run.timers.lapic_oneshot.status = TIMER_ABSENT;
	run.timers.phase = "boot_services";
	line_count = 0;
	report_summary(&run, collect);
	joined(all, sizeof all);
	for (unsigned i = 0; i < line_count; i++) {
		size_t n = strlen(lines[i]);
		CHECK(n <= 100);
		/* the old cut's mark ("-cpu ...,+invtsc" is a placeholder, kept) */
		CHECK(n < 3 || strcmp(lines[i] + n - 3, "...") != 0);
	}
	CHECK(strstr(lines[0], "run time 836 ms from start to report") != NULL);
	CHECK(strstr(all, "skew bound 10379668 ticks = 4954.5 us (|offset| + half the fastest CPU-to-CPU round "
			  "trip; the fastest round trip with CPU 1 took 5548 us: the vCPUs did not run together, so the bound "
			  "and 0 warps prove less)") != NULL);
	CHECK(strstr(all, "Gaps: 0 over 10 us") == NULL);
	CHECK(strstr(all, "Gaps: 0 over 10.0 us in 250 ms, max 13.0 ms,") != NULL);
	CHECK(strstr(all, "which this run did not reach") != NULL);
	/* the libvirt element on one line, whole */
	bool whole = false;
	for (unsigned i = 0; i < line_count; i++)
		if (strstr(lines[i], "<feature policy='require' name='invtsc'/>"))
			whole = true;
	CHECK(whole);
	/* ticks never alone: each "ticks" figure of the cross-CPU line has ns */
	CHECK(strstr(all, "skew bound 10379668 ticks = ") != NULL);
}

/* Issue 38: the result line, last, its word the one the host gate gives:
 * FAILED for the lts set (ACPI_PM_FALLBACK critical on 4.19-6.11), PASSED
 * for 6.18 alone only if 6.18 has no warning at all -- here WARNING
 * (KERNEL_DEPENDENT, TSC_NOT_INVARIANT are warnings). */
TEST(result_line_is_last_and_follows_the_gate)
{
	static struct verdict_input in;
	static char all[16384];
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	fill(&run, &in);
	line_count = 0;
	report_summary(&run, collect);
	CHECK(line_count > 0);
	CHECK_STR(lines[line_count - 1], "RESULT: FAILED (ACPI_PM_FALLBACK critical for Linux 4.19-6.11 over kernels lts)");
	CHECK(on_screen[line_count - 1]);
	CHECK(verdict_kernel_set_parse("6.18", 4, &in.kernels));
	fill(&run, &in);
	run.error_count = 1;
	run.errors[0].code = "SETTINGS";
	line_count = 0;
	report_summary(&run, collect);
	joined(all, sizeof all);
	const char *res = strstr(all, "RESULT: ");
	CHECK(res && strstr(res, "RESULT: WARNING (") == res);
	CHECK(res && strstr(res, " for Linux 6.12-7.0, and ") != NULL);
	CHECK(res && strstr(res, " more over kernels 6.18); 1 run error above") != NULL);
	CHECK(res && strstr(res + 1, "RESULT: ") == NULL);
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
