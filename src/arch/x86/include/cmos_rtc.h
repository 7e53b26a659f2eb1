/* The CMOS real-time clock (MC146818 and its descendants) at ports
 * 0x70/0x71: wall time that, under QEMU, follows the host's clock by
 * default even while the VM is stopped and its emulated counters stand
 * still.  The run identity reads the start time from it and the watch
 * mode compares the TSC with its second edges.  Decoding is pure
 * (rtc_decode in identity.h); this is the port access and the bounded
 * waits (src/arch/cmos_rtc.c). */
#ifndef CP_CMOS_RTC_H
#define CP_CMOS_RTC_H
#include "identity.h"

/* One register. */
uint8_t cmos_rtc_read(uint8_t reg);
/* The six time registers in rtc_decode's order. */
void cmos_rtc_read_fields(uint8_t raw[RTC_FIELDS]);

struct cmos_rtc_edge {
	bool ok;
	const char *reason;       /* when !ok: why */
	uint64_t tsc;             /* TSC when the new second was seen */
	uint64_t poll_cycles;     /* TSC between the last two polls: the edge's uncertainty */
	uint64_t unix_seconds;    /* the second that just began */
};

/* Waits for the next change of second (bounded by max_cycles of TSC and
 * max_polls polls: the caller's facts_spin_cap of max_cycles, which ends
 * the wait should the TSC stop), then reads the whole time.  A clock that never ticks,
 * or reads as garbage, comes back !ok with the reason.  idle (may be NULL)
 * runs between polls, so the caller's periodic work goes on during the
 * wait of up to a second. */
void cmos_rtc_wait_edge(struct cmos_rtc_edge *out, uint64_t max_cycles, uint64_t max_polls, void (*idle)(void *ctx),
			void *ctx);
#endif
