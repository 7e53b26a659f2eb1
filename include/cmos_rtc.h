/* The CMOS real-time clock (MC146818 and its descendants): wall time that,
 * under QEMU, follows the host's clock by default even while the VM is
 * stopped and its emulated counters stand still.  The watch mode compares
 * the TSC with it.  Decoding is pure (src/lib/cmos_rtc_decode.c); the port
 * access and the bounded waits are src/arch/cmos_rtc.c. */
#ifndef CP_CMOS_RTC_H
#define CP_CMOS_RTC_H
#include "util.h"

#define CMOS_RTC_REG_SECONDS 0x00
#define CMOS_RTC_REG_MINUTES 0x02
#define CMOS_RTC_REG_HOURS   0x04
#define CMOS_RTC_REG_DAY     0x07
#define CMOS_RTC_REG_MONTH   0x08
#define CMOS_RTC_REG_YEAR    0x09
#define CMOS_RTC_REG_A       0x0a
#define CMOS_RTC_REG_B       0x0b
#define CMOS_RTC_A_UIP       0x80 /* update in progress: registers unsafe */
#define CMOS_RTC_B_24H       0x02 /* else 12-hour with bit 7 of hours = PM */
#define CMOS_RTC_B_BINARY    0x04 /* else BCD */

/* The registers as read, before any decoding. */
struct cmos_rtc_raw {
	uint8_t seconds, minutes, hours, day, month, year;
	uint8_t status_b;
};

/* Seconds since 1970-01-01 00:00:00 of the registers' time, taking the
 * two-digit year as 2000-2099 (the century register's index is a firmware
 * table's business; elapsed times do not depend on it).  False, with *why
 * naming the field, when a field is out of range for its encoding. */
bool cmos_rtc_decode(const struct cmos_rtc_raw *raw, uint64_t *unix_seconds, const char **why);

/* Hardware side (src/arch/cmos_rtc.c). */
struct cmos_rtc_edge {
	bool ok;
	const char *why;          /* when !ok */
	uint64_t tsc;             /* TSC when the new second was seen */
	uint64_t poll_cycles;     /* TSC between the last two polls: the edge's uncertainty */
	uint64_t unix_seconds;    /* the second that just began */
};

/* Waits for the next change of second (bounded by max_cycles of TSC and an
 * iteration count), then reads the whole time.  A clock that never ticks,
 * or reads as garbage, comes back !ok with the reason.  idle (may be NULL)
 * runs between polls, so the caller's periodic work goes on during the
 * wait of up to a second. */
void cmos_rtc_wait_edge(struct cmos_rtc_edge *out, uint64_t max_cycles, void (*idle)(void *ctx), void *ctx);
#endif
