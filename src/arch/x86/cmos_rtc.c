/* Reads the CMOS RTC through ports 0x70/0x71.  Every wait is bounded by a
 * TSC deadline and an iteration count: a missing RTC floats to 0xff (UIP
 * forever set), a stopped one never changes second. */
#include "cmos_rtc.h"
#include "x86.h"
#include "arch_api.h"
#include "facts.h"

#define CMOS_INDEX_PORT 0x70
#define CMOS_DATA_PORT 0x71
uint8_t cmos_rtc_read(uint8_t reg)
{
	outb(CMOS_INDEX_PORT, reg);
	return inb(CMOS_DATA_PORT);
}

void cmos_rtc_read_fields(uint8_t raw[RTC_FIELDS])
{
	static const uint8_t regs[RTC_FIELDS] = { 0x00, 0x02, 0x04, 0x07, 0x08, 0x09 };
	for (int i = 0; i < RTC_FIELDS; i++)
		raw[i] = cmos_rtc_read(regs[i]);
}

static const char *read_unix_seconds(uint64_t *unix_seconds)
{
	uint8_t raw[RTC_FIELDS];
	cmos_rtc_read_fields(raw);
	struct utc_time t;
	const char *why = rtc_decode(raw, cmos_rtc_read(RTC_REG_STATUS_B), &t);
	if (!why)
		*unix_seconds = utc_time_unix_seconds(&t);
	return why;
}

void rtc_wait_edge(struct rtc_edge *out, uint64_t max_cycles, uint64_t max_polls, void (*idle)(void *ctx),
			void *ctx)
{
	memset(out, 0, sizeof *out);
	uint64_t start = rdtsc(), prev = start;
	uint8_t first = 0xff;
	bool have_first = false, saw_uip = false;
	/* max_polls: max_cycles at the spin cost (the caller's), for a TSC that stands still. */
	for (uint64_t polls = 0; polls < max_polls; polls++) {
		bool uip = cmos_rtc_read(RTC_REG_STATUS_A) & RTC_A_UPDATE_IN_PROGRESS;
		uint8_t sec = uip ? 0 : cmos_rtc_read(RTC_REG_SECONDS);
		/* Stamped after the read: the edge lies between the previous
		 * poll's stamp and this one. */
		uint64_t now = rdtsc();
		if (uip) {
			saw_uip = true;
		} else if (have_first && (saw_uip || sec != first)) {
			/* The update ends with UIP falling, or (a UIP window missed
			 * by a descheduled vCPU) with the second having changed. */
			out->tsc = now;
			out->poll_cycles = now - prev;
			out->reason = read_unix_seconds(&out->unix_seconds);
			out->ok = !out->reason;
			return;
		} else if (!have_first) {
			first = sec;
			have_first = true;
			saw_uip = false;
		}
		if (now - start > max_cycles)
			break;
		/* The edge may fall during idle too: it counts in the next
		 * poll's uncertainty. */
		prev = now;
		if (idle)
			idle(ctx);
	}
	out->reason = have_first ? "the RTC's second did not change within its deadline"
			      : "the RTC stayed in update-in-progress (absent or stuck)";
}

/* An update cycle lasts 244 us after UIP rises, at most ~2 ms in all;
 * the deadline and the spin cap sized from it end a missing RTC (every
 * port reads 0xff) quickly. */
#define RTC_UIP_WAIT_MS 10
#define RTC_READ_ATTEMPTS 3
static bool rtc_wait_idle(const struct probe_facts *f)
{
	uint64_t deadline = tb_now() + facts_ms_to_cycles(f, RTC_UIP_WAIT_MS);
	/* The wait's own 10 ms at the spin cost: ends it should the TSC stop. */
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, RTC_UIP_WAIT_MS));
	for (uint64_t i = 0; i < cap && tb_now() < deadline; i++) {
		if (!(cmos_rtc_read(RTC_REG_STATUS_A) & RTC_A_UPDATE_IN_PROGRESS))
			return true;
		cpu_relax();
	}
	return false;
}

/* An update can still start between the UIP check and the last read:
 * two equal reads in a row are a consistent time (as Linux does). */
const char *rtc_read_now(const struct probe_facts *f, struct utc_time *t)
{
	uint8_t a[RTC_FIELDS], b[RTC_FIELDS];
	for (int attempt = 0; attempt < RTC_READ_ATTEMPTS; attempt++) {
		if (!rtc_wait_idle(f))
			return "the CMOS RTC stayed in its update cycle (no RTC at port 0x70?)";
		cmos_rtc_read_fields(a);
		uint8_t status_b = cmos_rtc_read(RTC_REG_STATUS_B);
		cmos_rtc_read_fields(b);
		if (mem_equal(a, b, sizeof a))
			return rtc_decode(a, status_b, t);
	}
	return "the CMOS RTC changed between every pair of reads";
}
