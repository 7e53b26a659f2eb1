/* Reads the CMOS RTC through ports 0x70/0x71.  Every wait is bounded by a
 * TSC deadline and an iteration count: a missing RTC floats to 0xff (UIP
 * forever set), a stopped one never changes second. */
#include "cmos_rtc.h"
#include "arch.h"

#define CMOS_INDEX_PORT 0x70
#define CMOS_DATA_PORT 0x71
/* Each poll is two port accesses (~1-50 us even when trapped); 2^26 polls
 * outlast any sane max_cycles, and end a loop whose TSC stands still. */
#define EDGE_POLL_LIMIT (1u << 26)

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX_PORT, reg);
	return inb(CMOS_DATA_PORT);
}

static void read_raw(struct cmos_rtc_raw *r)
{
	r->seconds = cmos_read(CMOS_RTC_REG_SECONDS);
	r->minutes = cmos_read(CMOS_RTC_REG_MINUTES);
	r->hours = cmos_read(CMOS_RTC_REG_HOURS);
	r->day = cmos_read(CMOS_RTC_REG_DAY);
	r->month = cmos_read(CMOS_RTC_REG_MONTH);
	r->year = cmos_read(CMOS_RTC_REG_YEAR);
	r->status_b = cmos_read(CMOS_RTC_REG_B);
}

void cmos_rtc_wait_edge(struct cmos_rtc_edge *out, uint64_t max_cycles, void (*idle)(void *ctx), void *ctx)
{
	memset(out, 0, sizeof *out);
	uint64_t start = rdtsc(), prev = start;
	uint8_t first = 0xff;
	bool have_first = false, saw_uip = false;
	for (uint32_t polls = 0; polls < EDGE_POLL_LIMIT; polls++) {
		bool uip = cmos_read(CMOS_RTC_REG_A) & CMOS_RTC_A_UIP;
		uint8_t sec = uip ? 0 : cmos_read(CMOS_RTC_REG_SECONDS);
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
			struct cmos_rtc_raw raw;
			read_raw(&raw);
			out->ok = cmos_rtc_decode(&raw, &out->unix_seconds, &out->why);
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
	out->why = have_first ? "the RTC's second did not change within its deadline"
			      : "the RTC stayed in update-in-progress (absent or stuck)";
}
