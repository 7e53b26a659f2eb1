/* clockprobe-guest's report from a results structure built by hand, its
 * frame, the TSC step finder, and the vDSO symbol lookup on this very
 * process's vDSO (and on damaged copies of it). */
#include "check.h"
#include "guest.h"
#include "crc32.h"
#include <stdlib.h>
#include <sys/auxv.h>
#include <time.h>

static struct guest_results R;
static struct klog_line lines[4];
static char buf[1 << 16];

static void fill(void)
{
	memset(&R, 0, sizeof R);
	strcpy(R.run_id, "00112233445566778899aabbccddeeff");
	R.run_id_source = "getrandom";
	strcpy(R.label, "q35-qemu64-smp2");
	R.label_source = "kernel command line";
	R.sysfs_dir = "/sys/devices/system/clocksource/clocksource0";
	R.pinned_cpu = 0;
	strcpy(R.release, "6.1.0-57-amd64");
	R.cpuid_ok = true;
	strcpy(R.cpu.vendor, "AuthenticAMD");
	R.hv.present = true;
	R.hv.name = "tcg";
	strcpy(R.hv.signature, "TCGTCGTCGTCG");
	R.hv.range_count = 1;
	R.hv.max_leaf = 0x40000001;
	R.hv.ranges[0].base = 0x40000000;
	strcpy(R.hv.ranges[0].signature, "TCGTCGTCGTCG");
	R.hv.ranges[0].name = "tcg";
	strcpy(R.uuid_reason, "/sys/class/dmi/id/product_uuid: no such file");
	strcpy(R.serial, "serial-1");
	R.tsc_khz = 2095982;
	R.tsc_khz_source = "kernel log: detected processor rate (tsc_khz = cpu_khz)";
	R.cs_ok = true;
	strcpy(R.current, "acpi_pm");
	cs_list_parse(&R.available, "acpi_pm \n", 9);
	R.history_status = "ok";
	R.history_source = "/dev/kmsg";
	R.lines = lines;
	R.n_lines = 2;
	lines[0].has_ts = true;
	lines[0].t_us = 1177971;
	strcpy(lines[0].text, "clocksource: Switched to clocksource acpi_pm");
	klog_classify(&lines[0].ev, lines[0].text, strlen(lines[0].text));
	lines[1].has_ts = true;
	lines[1].t_us = 12345000001ull;
	strcpy(lines[1].text, "hpet0: 3 comparators");
	klog_classify(&lines[1].ev, lines[1].text, strlen(lines[1].text));
	R.n_meas = 1;
	struct cs_measurement *m = &R.meas[0];
	strcpy(m->clocksource, "acpi_pm");
	m->status = "ok";
	m->vdso_check.known = true;
	m->vdso_check.in_vdso = false;
	m->vdso_check.calls = 1000;
	m->vdso_check.kernel_entries = 1000;
	m->vdso.measured = true;
	m->vdso.samples = 64;
	m->vdso.cycles.p50 = 1300;
	m->vdso.have_ns = true;
	m->vdso.ns.p50 = 620;
	strcpy(m->syscall.reason, "RDTSC is not usable here");
	m->syscall.batch_calls = 1000;
	m->syscall.batch_ns = 650;
	guest_skip(&R, "switch", "not asked for");
}

static const char *report(void)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	CHECK(guest_report_json(&j, &R));
	return buf;
}

TEST(report_names_and_nulls)
{
	fill();
	const char *s = report();
	CHECK(strncmp(s, "{\"schema\":1,\"guest\":{\"version\":\"" GUEST_VERSION "\"", 33) == 0);
	CHECK(strstr(s, "\"label\":\"q35-qemu64-smp2\",\"label_source\":\"kernel command line\""));
	CHECK(strstr(s, "\"current\":\"acpi_pm\",\"available\":[\"acpi_pm\"]"));
	CHECK(strstr(s, "\"uuid\":null,\"uuid_reason\":\"/sys/class/dmi/id/product_uuid: no such file\""));
	CHECK(strstr(s, "\"serial\":\"serial-1\",\"serial_reason\"") == NULL);
	CHECK(strstr(s, "\"signatures\":[{\"leaf\":1073741824,\"signature\":\"TCGTCGTCGTCG\",\"name\":\"tcg\"}]"));
	/* Only classified lines are events; every clock line is in lines[]. */
	CHECK(strstr(s, "\"events\":[{\"t_us\":1177971,\"kind\":\"switched\",\"clocksource\":\"acpi_pm\",\"khz\":null,"));
	CHECK(strstr(s, "\"lines\":[\"[    1.177971] clocksource: Switched to clocksource acpi_pm\","
			"\"[12345.000001] hpet0: 3 comparators\"]"));
	CHECK(strstr(s, "\"in_vdso\":false,\"calls_checked\":1000,\"kernel_entries\":1000"));
	/* A path without a bracketed cost keeps its batch figure. */
	CHECK(strstr(s, "\"syscall\":{\"cost\":{\"measured\":false,\"reason\":\"RDTSC is not usable here\",\"samples\":0,"
			"\"cycles\":null,\"ns\":null"));
	CHECK(strstr(s, "\"batch_calls\":1000,\"batch_ns\":650"));
	CHECK(strstr(s, "\"skipped\":[{\"what\":\"switch\",\"reason\":\"not asked for\"}],\"errors\":[]"));
	CHECK(strstr(s, "\"restore\":null"));
	CHECK(!strchr(s, '\n'));
}

TEST(report_overflow_is_refused)
{
	fill();
	struct json j;
	json_init(&j, buf, 200);
	CHECK(!guest_report_json(&j, &R));
}

TEST(frame_end_carries_crc_and_length)
{
	fill();
	const char *s = report();
	char end[128];
	struct strbuf sb;
	sb_init(&sb, end, sizeof end);
	guest_frame_end(&sb, s, strlen(s));
	char want[128];
	snprintf(want, sizeof want, "==== CLOCKPROBE GUEST END crc32=%08x bytes=%zu ====",
		 crc32_update(0, s, strlen(s)), strlen(s));
	CHECK_STR(end, want);
}

TEST(summary_names_the_path_and_what_was_skipped)
{
	fill();
	char text[4096];
	struct strbuf sb;
	sb_init(&sb, text, sizeof text);
	guest_summary(&sb, &R);
	CHECK(strstr(text, "Linux 6.1.0-57-amd64, clocksource acpi_pm (available: acpi_pm); hypervisor tcg\n"));
	CHECK(strstr(text, "  acpi_pm: syscall (vDSO falls back); vDSO call p50 620 ns"));
	CHECK(strstr(text, "; syscall not measured (RDTSC is not usable here)"));
	CHECK(strstr(text, "  skipped switch: not asked for\n"));
}

TEST(errors_past_the_list_are_counted)
{
	fill();
	for (int i = 0; i < GUEST_MAX_ERRORS + 3; i++)
		guest_error(&R, "SWITCH", "x");
	CHECK_EQ_U64(R.n_errors, GUEST_MAX_ERRORS);
	CHECK_EQ_U64(R.errors_dropped, 3);
	CHECK(strstr(report(), "\"errors_dropped\":3"));
}

TEST(step_from_clusters)
{
	/* Intervals of a counter that moves 21 ticks at a time (this host's
	 * TSC as the guest sees it): every interval a multiple of 21, give or
	 * take a tick. */
	uint64_t iv[384], b2b[64];
	for (int i = 0; i < 384; i++)
		iv[i] = 42 + 21 * (uint64_t)(i % 12) + (uint64_t)(i % 3 == 0);
	for (int i = 0; i < 64; i++)
		b2b[i] = i % 2 ? 21 : 42;
	struct guest_step s;
	guest_step_find(&s, iv, 384, b2b, 64);
	CHECK_EQ_U64(s.ticks, 21);
	CHECK_EQ_U64(s.clusters, 12);
	CHECK_EQ_U64(s.min_nonzero, 21);
	CHECK_EQ_U64(s.max_nonzero, 42);
	CHECK(strstr(s.method, "cluster"));
}

TEST(step_without_clusters)
{
	/* Spread evenly (one tick apart): no clusters; back-to-back reads that
	 * repeat give the median non-zero step. */
	uint64_t iv[300], b2b[40];
	for (int i = 0; i < 300; i++)
		iv[i] = 100 + (uint64_t)i;
	for (int i = 0; i < 40; i++)
		b2b[i] = i < 20 ? 0 : 30;
	struct guest_step s;
	guest_step_find(&s, iv, 300, b2b, 40);
	CHECK_EQ_U64(s.ticks, 30);
	CHECK_EQ_U64(s.stalls, 20);
	CHECK(strstr(s.method, "repeat"));
	/* Never repeating: the common divisor only bounds it (the probe's
	 * rule: under -icount every difference is a multiple of 2 without
	 * the TSC stepping by 2), and a divisor of 1 is the step. */
	for (int i = 0; i < 300; i++)
		iv[i] = 100 + (uint64_t)i;
	for (int i = 0; i < 40; i++)
		b2b[i] = 36 + 12 * (uint64_t)(i % 3);
	guest_step_find(&s, iv, 300, b2b, 40);
	CHECK_EQ_U64(s.ticks, 0);
	CHECK_EQ_U64(s.bound_ticks, 12);
	CHECK(strstr(s.method, "bound"));
	for (int i = 0; i < 300; i++)
		iv[i] = 100 + (uint64_t)i;
	for (int i = 0; i < 40; i++)
		b2b[i] = 36 + (uint64_t)(i % 3);
	guest_step_find(&s, iv, 300, b2b, 40);
	CHECK_EQ_U64(s.ticks, 1);
	CHECK_EQ_U64(s.bound_ticks, 1);
	/* Always the same difference (-icount): not observable. */
	for (int i = 0; i < 40; i++)
		b2b[i] = 7;
	for (int i = 0; i < 300; i++)
		iv[i] = 100 + (uint64_t)i;
	guest_step_find(&s, iv, 300, b2b, 40);
	CHECK_EQ_U64(s.ticks, 0);
	CHECK(strstr(s.method, "not observable"));
	guest_step_find(&s, NULL, 0, NULL, 0);
	CHECK_EQ_U64(s.ticks, 0);
	CHECK(strstr(s.method, "no TSC reads"));
}

/* The vDSO mapping of this process: start and length from /proc/self/maps. */
static const uint8_t *live_vdso(size_t *len)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	*len = 0;
	while (base && f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base)
			*len = hi - lo;
	}
	if (f)
		fclose(f);
	return *len ? (const uint8_t *)base : NULL;
}

TEST(vdso_symbol_in_this_process)
{
	size_t len;
	const uint8_t *vdso = live_vdso(&len);
	if (!vdso) {
		printf("SKIP test_guest_report:vdso_symbol_in_this_process: no vDSO mapped here\n");
		return;
	}
	uint64_t off = vdso_symbol_offset(vdso, len, "__vdso_clock_gettime");
	CHECK(off > 0 && off < len);
	typedef int (*fn_t)(clockid_t, struct timespec *);
	struct timespec a, b;
	fn_t fn = (fn_t)(uintptr_t)(vdso + off);
	CHECK_EQ_I64(fn(CLOCK_MONOTONIC, &a), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK(b.tv_sec >= a.tv_sec);
	CHECK(vdso_symbol_offset(vdso, len, "__vdso_getcpu") > 0);
	CHECK_EQ_U64(vdso_symbol_offset(vdso, len, "__vdso_no_such_symbol"), 0);
	CHECK_EQ_U64(vdso_symbol_offset(vdso, len, "__vdso_clock_gettim"), 0); /* a prefix is no match */

	/* Damaged copies: cut short, bad magic, section table out of range. */
	uint8_t *copy = malloc(len);
	memcpy(copy, vdso, len);
	CHECK_EQ_U64(vdso_symbol_offset(copy, len, "__vdso_clock_gettime"), off);
	CHECK_EQ_U64(vdso_symbol_offset(copy, 63, "__vdso_clock_gettime"), 0);
	CHECK_EQ_U64(vdso_symbol_offset(copy, len / 4, "__vdso_clock_gettime"), 0);
	copy[1] = 'X';
	CHECK_EQ_U64(vdso_symbol_offset(copy, len, "__vdso_clock_gettime"), 0);
	copy[1] = 'E';
	uint64_t huge = UINT64_MAX - 8;
	memcpy(copy + 40, &huge, 8); /* e_shoff */
	CHECK_EQ_U64(vdso_symbol_offset(copy, len, "__vdso_clock_gettime"), 0);
	CHECK_EQ_U64(vdso_symbol_offset(NULL, 0, "__vdso_clock_gettime"), 0);
	free(copy);
}

TEST(history_keeps_the_first_and_the_latest_lines)
{
	static struct klog_line store[GUEST_MAX_LINES];
	for (uint32_t total = 10; total <= 1003; total += 331) {
		memset(&R, 0, sizeof R);
		R.lines = store;
		uint32_t ring = 0;
		for (uint32_t i = 0; i < total; i++)
			history_slot(&R, &ring)->t_us = i;
		history_finish(&R, ring);
		uint32_t kept = total < GUEST_MAX_LINES ? total : GUEST_MAX_LINES;
		CHECK_EQ_U64(R.n_lines, kept);
		CHECK_EQ_U64(R.lines_dropped, total - kept);
		for (uint32_t i = 0; i < kept; i++) {
			/* 0..199, then the latest 200 in order */
			uint64_t want = i < GUEST_MAX_LINES / 2 ? i : total - (kept - i);
			CHECK_EQ_U64(R.lines[i].t_us, want);
		}
	}
}
