/* Delivery (src/report/deliver.c): what reaches the sink, in which order,
 * and what the sink is told when something cannot go out.  The sink here
 * records every call instead of driving a UART. */
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
static char buf[1 << 20];

/* What the sink saw: one letter per call (L line, S screen line, R report,
 * W watch record, F file), the last line and report. */
static char calls[256];
static size_t ncalls;
static char last_line[256], saved_name[64];
static const char *report_at, *saved_at;
static size_t report_len, record_len;
static uint32_t record_seq;
static const char *save_answer;

static void add(char c)
{
	if (ncalls + 1 < sizeof calls)
		calls[ncalls++] = c;
	calls[ncalls] = 0;
}
static void on_line(const char *text, bool screen)
{
	add(screen ? 'S' : 'L');
	snprintf(last_line, sizeof last_line, "%s", text);
}
static void on_report(const char *json, size_t len)
{
	add('R');
	report_at = json;
	report_len = len;
}
static void on_record(uint32_t seq, const char *json, size_t len)
{
	add('W');
	record_seq = seq;
	report_at = json;
	record_len = len;
}
static const char *on_save(const char *name, const void *data, size_t len)
{
	add('F');
	snprintf(saved_name, sizeof saved_name, "%s", name);
	saved_at = data;
	(void)len;
	return save_answer;
}

static const struct sink sink = { on_line, on_report, on_record, on_save };

static void fill(void)
{
	memset(&run, 0, sizeof run);
	run.facts.plat = &plat;
	run.phase = "boot_services";
	run.facts.tsc_hz_rough = 2445000000ull;
	run.source_count = SOURCE_ID_COUNT;
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++) {
		run.sources[i].src = &fake_sources[i];
		run.sources[i].status = SOURCE_ABSENT;
		strcpy(run.sources[i].desc.reason, "not in this test");
	}
	ncalls = 0;
	calls[0] = 0;
	save_answer = NULL;
}

TEST(deliver_summary_then_report_then_file)
{
	fill();
	size_t len = report_deliver(&run, buf, sizeof buf, &sink);
	CHECK(len > 0);
	/* Every summary line before the one report, the file note last. */
	const char *r = strchr(calls, 'R');
	CHECK(r != NULL && r > calls);
	CHECK(strspn(calls, "LS") == (size_t)(r - calls));
	CHECK_STR(r, "RFS");
	CHECK(report_at == buf && report_len == len && saved_at == buf);
	CHECK_STR(saved_name, "clockprobe-report.json");
	CHECK_STR(last_line, "clockprobe: report saved as \\clockprobe-report.json");
	/* The bytes framed are the report as built. */
	struct json j;
	static char again[1 << 20];
	json_init(&j, again, sizeof again);
	CHECK(report_build_json(&j, &run));
	CHECK_EQ_U64(j.len, len);
	CHECK_EQ_U64(crc32_update(0, again, j.len), crc32_update(0, buf, len));
}

TEST(deliver_says_why_the_file_is_missing)
{
	fill();
	save_answer = "the boot volume is read-only";
	CHECK(report_deliver(&run, buf, sizeof buf, &sink) > 0);
	CHECK_STR(last_line, "clockprobe: report not saved to the boot volume: the boot volume is read-only");
	/* No volume at all: no note. */
	fill();
	struct sink no_file = sink;
	no_file.save = NULL;
	CHECK(report_deliver(&run, buf, sizeof buf, &no_file) > 0);
	CHECK(strchr(calls, 'F') == NULL);
	CHECK(calls[ncalls - 1] == 'R');
}

TEST(deliver_without_a_buffer_or_room_says_so)
{
	fill();
	/* Issue 25: no buffer (-m 5M) still gives the whole summary, then
	 * the note; nothing framed. */
	CHECK_EQ_U64(report_deliver(&run, NULL, 0, &sink), 0);
	CHECK(ncalls > 10);
	CHECK(strchr(calls, 'R') == NULL);
	CHECK_STR(last_line, "clockprobe: the framed report could not be sent (no memory for its buffer)");
	fill();
	CHECK_EQ_U64(report_deliver(&run, buf, 100, &sink), 0);
	CHECK(strchr(calls, 'R') == NULL);
	CHECK_STR(last_line, "clockprobe: report overflowed its buffer even without the raw dump");
}

TEST(deliver_watch_record_and_its_overflow)
{
	static struct watch_result w;
	memset(&w, 0, sizeof w);
	w.seq = 3;
	w.run_id = "00000000deadbeef";
	w.interval_s = 2;
	fill();
	watch_record_deliver(&w, buf, sizeof buf, &sink);
	CHECK_STR(calls, "W");
	CHECK_EQ_U64(record_seq, 3);
	CHECK(strncmp(buf, "{\"seq\":3,\"run_id\":\"00000000deadbeef\",\"interval_s\":2,", 50) == 0);
	/* Too small for the record: it still goes out, seq kept, saying so. */
	static char small[96];
	fill();
	watch_record_deliver(&w, small, sizeof small, &sink);
	CHECK_STR(calls, "W");
	CHECK_EQ_U64(record_seq, 3);
	CHECK(record_len < sizeof small);
	small[record_len] = 0;
	CHECK_STR(small, "{\"seq\":3,\"run_id\":\"00000000deadbeef\",\"error\":\"record overflowed its buffer\"}");
}
