/* The report is a function of the run's results alone: built here on the
 * host from a results structure, with no hardware behind it. */
#include "check.h"
#include "report.h"
#include "crc32.h"

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

static struct platform plat = { .boot = "pvh" };
static struct run_results run;
static char buf_a[1 << 21], buf_b[1 << 21];

/* A TCG-like run: a TSC read under the 25-tick step, a PM timer above it. */
static void fill(struct run_results *r)
{
	memset(r, 0, sizeof *r);
	r->facts.plat = &plat;
	r->phase = "boot_services";
	r->method = "test stamps";
	r->facts.tsc_hz_rough = 2445000000ull;
	r->freq.chosen_hz = 2445000000ull;
	r->freq.chosen_name = "measured_vs_hpet";
	r->serial.source = "COM1 (default)";
	r->baselines.step.ticks = 25;
	r->baselines.step.method = "test";
	r->source_count = SOURCE_ID_COUNT;
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++) {
		r->sources[i].src = &fake_sources[i];
		r->sources[i].status = SOURCE_ABSENT;
		strcpy(r->sources[i].desc.reason, "not in this test");
	}
	struct source_result *tsc = &r->sources[SOURCE_ID_TSC];
	tsc->status = SOURCE_OK;
	tsc->desc.is_tsc = true;
	tsc->desc.width_bits = 64;
	tsc->read_path = READ_PATH_NATIVE;
	tsc->cost.cycles = (struct dist){ .min = 0, .p50 = 25, .p90 = 49, .p99 = 49, .p999 = 74, .max = 98, .mean = 20, .n = 4096 };
	tsc->cost.step_ticks = 25;
	tsc->cost.below_resolution = true;
	tsc->cost.estimate_milli = 39428;
	tsc->cost.estimate_method = "interleaved_mean";
	struct source_result *pm = &r->sources[SOURCE_ID_ACPI_PM];
	pm->status = SOURCE_OK;
	pm->desc.freq_hz = 3579545;
	pm->desc.width_bits = 24;
	pm->read_path = READ_PATH_DEVICE_MODEL;
	pm->cost.cycles = (struct dist){ .min = 171, .p50 = 318, .p90 = 330, .p99 = 400, .p999 = 500, .max = 600, .mean = 320, .n = 4096 };
	pm->cost.step_ticks = 25;
	pm->cost.estimate_milli = 318796;
	pm->cost.estimate_method = "interleaved_mean";
	pm->facts.acpi_pm.fadt_width_bits = 24;
	pm->facts.acpi_pm.width_evidence = "FADT: 24-bit";
}

static size_t build(char *buf, size_t cap)
{
	struct json j;
	json_init(&j, buf, cap);
	CHECK(report_build_json(&j, &run));
	return j.len;
}

/* Every brace and bracket closes, outside strings. */
static int balanced(const char *s, size_t n)
{
	int depth = 0;
	int in_string = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
			continue;
		}
		if (c == '"')
			in_string = 1;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			depth--;
		if (depth < 0)
			return 0;
	}
	return depth == 0 && !in_string;
}

TEST(report_is_a_function_of_the_results)
{
	fill(&run);
	size_t a = build(buf_a, sizeof buf_a);
	size_t b = build(buf_b, sizeof buf_b);
	CHECK_EQ_U64(a, b);
	CHECK(memcmp(buf_a, buf_b, a) == 0);
	CHECK(balanced(buf_a, a));
	CHECK(memchr(buf_a, '\n', a) == NULL); /* one line, as the frame needs */
	CHECK_EQ_U64(crc32_update(0, buf_a, a), crc32_update(0, buf_b, b));
}

TEST(report_nulls_percentiles_below_the_step)
{
	fill(&run);
	size_t n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "\"name\":\"tsc\"") != NULL);
	CHECK(strstr(buf_a, "\"cycles\":{\"min\":null,\"p50\":null,\"p90\":null") != NULL);
	CHECK(strstr(buf_a, "\"below_resolution\":true") != NULL);
	CHECK(strstr(buf_a, "\"estimate_cycles\":39.428") != NULL);
	CHECK(strstr(buf_a, "\"step_ticks\":25") != NULL);
	/* the PM timer is above the step: real percentiles */
	CHECK(strstr(buf_a, "\"cycles\":{\"min\":171,\"p50\":318") != NULL);
	CHECK(strstr(buf_a, "\"read_path\":\"device_model\"") != NULL);
}

/* The vmclock source's sources[] entry: freq_hz 0 and no behaviour, the
 * page holds state (its own section is its facts half's:
 * test_source_facts). */
TEST(report_vmclock_entry)
{
	fill(&run);
	struct source_result *s = &run.sources[SOURCE_ID_VMCLOCK];
	s->status = SOURCE_OK;
	s->desc.state_only = true;
	s->desc.width_bits = 64;
	size_t n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "\"name\":\"vmclock\",\"status\":\"ok\",\"freq_hz\":0") != NULL);
}

/* Clock pairing and steal time as a KVM host with a TSC clocksource
 * would give them (constructed: there is no KVM here). */
TEST(report_kvm_pairing_and_steal)
{
	fill(&run);
	struct kvm_pairing_result *p = &run.pairing;
	p->attempted = true;
	p->instruction = "vmmcall";
	p->tsc_hz = 2445000000ull;
	for (int i = 0; i < KVM_PAIRING_SAMPLES; i++)
		p->samples[i] = (struct kvm_pairing_sample){ 0, 1767225600, 3000000 * i, 2445000000000ull + 7335000ull * i };
	kvm_pairing_summarize(&p->summary, p->samples, KVM_PAIRING_SAMPLES, p->tsc_hz);
	p->cost.cycles = (struct dist){ .min = 2000, .p50 = 2400, .p90 = 2600, .p99 = 3000, .p999 = 4000, .max = 9000, .mean = 2500, .n = 512 };
	p->cost.estimate_milli = 2450000;
	p->cost.estimate_method = "interleaved_mean";
	kvm_steal_explain(&run.steal, 1000, 2001000, 4000000, 250000000);
	run.steal.attempted = true;
	size_t n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "\"kvm_clock_pairing\":{\"status\":\"ok\",\"instruction\":\"vmmcall\",\"first_fault\":\"none\",\"first_result\":\"ok\"") != NULL);
	/* 1767225600 s - 1000 s of TSC at 2.445 GHz; 3 ms per pairing on both
	 * sides: no spread, no drift. */
	CHECK(strstr(buf_a, "\"offset_ns\":1767224600000000000,\"offset_spread_ns\":0,\"span_ns\":45000000,\"drift_ppb\":0") != NULL);
	CHECK(strstr(buf_a, "\"steal\":{\"measured\":true,\"registered\":true") != NULL);
	CHECK(strstr(buf_a, "\"explained_ppm\":500000},\"steal_ns\":2000000") != NULL);
}

static char lines[64][256];
static unsigned line_count;

static void collect(const char *line, bool screen)
{
	(void)screen;
	if (line_count < 64)
		snprintf(lines[line_count++], sizeof lines[0], "%s", line);
}

TEST(summary_prints_the_bound_and_the_estimate)
{
	fill(&run);
	line_count = 0;
	report_summary(&run, collect);
	int found = 0, note = 0;
	for (unsigned i = 0; i < line_count; i++) {
		if (strstr(lines[i], "  tsc ") == lines[i] && strstr(lines[i], "<21") && strstr(lines[i], "<step") &&
		    strstr(lines[i], "16.1"))
			found = 1;
		if (strstr(lines[i], "below the TSC step: tsc (25-tick step): p50 shows the bound"))
			note = 1;
	}
	CHECK(found);
	CHECK(note);
}

static bool screen_of[64];

static void collect_screen(const char *line, bool screen)
{
	if (line_count < 64) {
		screen_of[line_count] = screen;
		snprintf(lines[line_count++], sizeof lines[0], "%s", line);
	}
}

static const char *line_with(const char *needle, bool *screen)
{
	for (unsigned i = 0; i < line_count; i++)
		if (strstr(lines[i], needle)) {
			if (screen)
				*screen = screen_of[i];
			return lines[i];
		}
	return NULL;
}

/* Issue #12: the longest name still leaves a gap before its column, every
 * row's second column starts where the header's does, every warning and
 * error reaches the screen, and the gaps line gives the share lost. */
TEST(summary_aligns_every_name_and_shows_warnings_and_errors)
{
	fill(&run);
	run.verdict.linux_clocksource = "tsc";
	run.verdict.why = "tsc (300) wins";
	run.verdict.warning_count = 2;
	run.verdict.warnings[0] = (struct verdict_warning){ .code = "TSC_NOT_INVARIANT", .message = "not invariant",
							    .evidence = "CPUID 0x80000007 EDX[8] = 0" };
	run.verdict.warnings[1] = (struct verdict_warning){ .code = "LARGE_GAPS", .message = "the vCPU stopped" };
	results_error(&run, "SETTINGS", "unknown setting: colour");
	run.gaps.window_ms = 50;
	run.gaps.g.window = 1000000;
	run.gaps.g.total = 123456; /* 12.3456 % */
	line_count = 0;
	report_summary(&run, collect_screen);

	const char *header = line_with("p50 ns", NULL);
	CHECK(header != NULL);
	size_t col = (size_t)(strstr(header, "p50 ns") - header);
	const char *row = line_with("hyperv_clocksource_tsc_page", NULL);
	CHECK(row != NULL);
	CHECK_STR(strstr(row, "absent:"), row + col);
	CHECK(row[col - 1] == ' ');
	CHECK_STR(strstr(line_with("  pit", NULL), "absent:"), line_with("  pit", NULL) + col);

	bool screen = false;
	CHECK(line_with("TSC_NOT_INVARIANT: not invariant", &screen) != NULL);
	CHECK(screen);
	CHECK(line_with("LARGE_GAPS: the vCPU stopped", &screen) != NULL);
	CHECK(screen);
	/* the evidence is in the JSON; the summary keeps to one line each */
	CHECK(line_with("evidence:", &screen) == NULL);
	CHECK(line_with("error SETTINGS: unknown setting: colour", &screen) != NULL);
	CHECK(screen);
	/* 12.3456 % rounded, not cut (issue 38) */
	CHECK(line_with("12.35 % of the time lost", NULL) != NULL);
	CHECK(line_with("Why (Linux ", NULL) != NULL);
}

/* Issue 25: machine-given text reaches the serial log shown, never raw: a
 * CR/LF in a CPUID brand string (or ESC, or a control byte in a setting's
 * word) would forge a line of the summary, or a report marker. */
TEST(summary_shows_control_bytes_of_machine_text)
{
	fill(&run);
	strcpy(run.facts.cpu.vendor, "Genuine\x1b[2J");
	strcpy(run.facts.cpu.brand, "CPU\r\n==== CLOCKPROBE REPORT BEGIN schema=1 ====\x7f");
	run.facts.hv.present = true;
	run.facts.hv.range_count = 1;
	strcpy(run.facts.hv.signature, "KVM\nKVM\x01");
	results_error(&run, "SETTINGS", "unknown word: x\x1b]0;pwn\x07");
	line_count = 0;
	report_summary(&run, collect_screen);
	for (unsigned i = 0; i < line_count; i++)
		for (const char *c = lines[i]; *c; c++)
			CHECK((uint8_t)*c >= 0x20 && (uint8_t)*c < 0x7f);
	CHECK(line_with("CPU: Genuine\\x1b[2J CPU\\x0d\\x0a==== CLOCKPROBE REPORT BEGIN schema=1 ====\\x7f", NULL));
	CHECK(line_with("(KVM\\x0aKVM\\x01)", NULL));
	CHECK(line_with("error SETTINGS: unknown word: x\\x1b]0;pwn\\x07", NULL));
	/* The JSON keeps the text itself, escaped by the writer. */
	size_t n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "CPU\\r\\n==== CLOCKPROBE") != NULL);
}

/* Issue 25: an advertised rate outside 100 MHz..10 GHz is never chosen
 * and is named in platform.tsc.freq_implausible. */
TEST(report_names_implausible_rates)
{
	fill(&run);
	run.freq.hz[FREQ_HYPERVISOR_LEAF] = 1000;
	run.freq.implausible_mask = 1u << FREQ_HYPERVISOR_LEAF;
	run.freq.excluded_reason[FREQ_HYPERVISOR_LEAF] = "outside 100 MHz..10 GHz, where every x86 TSC runs: not used";
	size_t n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "\"freq_implausible\":[{\"source\":\"hypervisor_leaf\",\"hz\":1000,\"reason\":"
			    "\"outside 100 MHz..10 GHz, where every x86 TSC runs: not used\"}]") != NULL);
	fill(&run);
	n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "\"freq_implausible\":[]") != NULL);
}

static bool report_framed;

static void count_report(const char *json, size_t len) { report_framed = true; }

/* Issue 25: with no memory for the report buffer (-m 5M) everything was
 * measured; the summary still goes out, and an error says what did not. */
TEST(report_without_a_buffer_still_sends_the_summary)
{
	fill(&run);
	line_count = 0;
	report_framed = false;
	struct sink out = { .line = collect_screen, .report = count_report };
	CHECK_EQ_U64(report_deliver(&run, NULL, 4u << 20, &out), 0);
	CHECK(!report_framed);
	CHECK(line_with("clockprobe 0.", NULL) != NULL);	/* the summary's first line */
	CHECK(line_with("  acpi_pm", NULL) != NULL);		/* its source rows */
	bool screen = false;
	/* The summary wraps at 100 columns: the error's start, then its end. */
	CHECK(line_with("error REPORT_NOT_SENT: no memory for the 4096 KiB report buffer:", &screen) != NULL);
	CHECK(screen);
	CHECK(line_with("only this summary", NULL) != NULL);
	CHECK(line_with("clockprobe: the framed report could not be sent (no memory for its buffer)", NULL));
}

/* Tables in host memory the dump reads as if at their physical address. */
static uint8_t big_table[200000], small_table[100];

static void fill_with_dump(struct run_results *r)
{
	fill(r);
	r->raw.captured = true;
	struct acpi_info *a = &r->facts.acpi;
	memcpy(big_table, "SSDT", 4);
	memcpy(small_table, "HPET", 4);
	const struct { uint8_t *p; uint32_t n; const char *sig; } t[] = {
		{ big_table, sizeof big_table, "SSDT" }, { small_table, sizeof small_table, "HPET" },
		{ big_table, sizeof big_table, "SSDT" },
	};
	for (unsigned i = 0; i < 3; i++) {
		struct acpi_table *e = &a->tables[a->table_count++];
		strcpy(e->signature, t[i].sig);
		e->address = (uintptr_t)t[i].p;
		e->length = t[i].n;
		e->readable = true;
	}
}

/* The whole report always comes out: data that does not fit is left out
 * table by table, counted and named; the rest stays valid. */
TEST(report_dump_too_big_drops_table_data_not_the_report)
{
	fill_with_dump(&run);
	size_t whole = report_build_whole(&run, buf_a, sizeof buf_a);
	CHECK(whole > 0);
	CHECK(balanced(buf_a, whole));
	buf_a[whole] = 0;
	CHECK(strstr(buf_a, "\"raw_truncated\":0") != NULL);
	CHECK(strstr(buf_a, "RAW_TRUNCATED") == NULL);

	/* Room for the report and one 200 kB table's 267 kB of base64, not two. */
	fill_with_dump(&run);
	size_t cap = whole - 200000 * 4 / 3 + 1000;
	size_t n = report_build_whole(&run, buf_b, cap);
	CHECK(n > 0 && n < cap);
	CHECK(balanced(buf_b, n));
	buf_b[n] = 0;
	CHECK(strstr(buf_b, "\"raw_truncated\":1") != NULL);
	CHECK(strstr(buf_b, "\"code\":\"RAW_TRUNCATED\",\"message\":\"1 ACPI table dumps left out") != NULL);
	CHECK(strstr(buf_b, "\"signature\":\"HPET\",\"address\":") != NULL);
	CHECK_EQ_U64(report_raw_tables_omitted(&run), 1);

	/* Not even the bare raw part fits: it goes, the report stays. */
	fill_with_dump(&run);
	size_t bare_cap = build(buf_a, sizeof buf_a);
	fill_with_dump(&run);
	run.raw.captured = false;
	size_t no_raw = build(buf_a, sizeof buf_a);
	fill_with_dump(&run);
	n = report_build_whole(&run, buf_b, no_raw + 200);
	(void)bare_cap;
	CHECK(n > 0);
	CHECK(balanced(buf_b, n));
	buf_b[n] = 0;
	CHECK(strstr(buf_b, "\"code\":\"RAW_DROPPED\"") != NULL);
	CHECK(strstr(buf_b, "\"raw\":") == NULL);
}

TEST(report_counts_every_drop)
{
	fill(&run);
	run.facts.acpi.tables_dropped = 7;
	run.facts.acpi.errors_dropped = 3;
	for (unsigned i = 0; i < MAX_RUN_ERRORS + 2; i++)
		results_error(&run, "X", "y");
	size_t n = build(buf_a, sizeof buf_a);
	buf_a[n] = 0;
	CHECK(strstr(buf_a, "\"tables_dropped\":7,\"errors_dropped\":3") != NULL);
	CHECK(strstr(buf_a, "],\"errors_dropped\":2") != NULL);
}
