/* Linux's clocksource watchdog (kernel/time/clocksource.c), replayed on a
 * measured series: every WATCHDOG_INTERVAL the kernel reads its watchdog
 * clock and the TSC, and marks the TSC unstable when the two elapsed times
 * differ by more than the era allows.  Pure; one replay per kernel era.
 * The eras and all their figures are the verdict's
 * (verdict_watchdog_eras(), src/verdict/watchdog.c): this module only
 * walks the series through them. */
#ifndef CP_WATCHDOG_REPLAY_H
#define CP_WATCHDOG_REPLAY_H
#include "util.h"
#include "verdict.h"

/* One watchdog tick as measured: the TSC's elapsed ns since the previous
 * tick at the rate the guest would believe, and the watchdog counter's true
 * elapsed ticks (unmasked: the replay applies the kernel's mask). */
struct wd_tick {
	uint64_t at_ms;
	uint64_t cs_ns;
	uint64_t wd_ticks;
	uint64_t wd_read_ns;          /* one watchdog read's duration (best of a few) */
};

enum wd_state {
	WD_WATCHING,
	WD_UNSTABLE,
	WD_EXEMPT,       /* Linux trusts the TSC in this era: no watchdog */
	WD_NOT_WATCHED,  /* the TSC is not registered, or nothing can watch it */
	WD_ABSENT,       /* the era's watchdog clock was not measured */
};

struct wd_replay {
	struct verdict_wd_era era;
	const char *watchdog;         /* the era's watchdog clock (Linux's name) */
	uint64_t wd_hz;
	unsigned wd_mask_bits;
	enum wd_state state;
	const char *reason;           /* not watching: why; unstable: which check */
	bool started;                 /* the first tick only initialises (as in Linux) */
	uint64_t suspended_until_ms;
	uint32_t checks, skipped_long, skipped_readback, retried_readout;
	int64_t max_abs_skew_ns;
	uint64_t unstable_at_ms;
	int64_t unstable_skew_ns;
	uint64_t unstable_interval_ns;
};

const char *wd_state_name(enum wd_state s);
/* wd_hz 0: the era's watchdog clock was not measured (state absent). */
void wd_replay_init(struct wd_replay *r, const struct verdict_wd_era *era, uint64_t wd_hz, unsigned wd_mask_bits);
void wd_replay_feed(struct wd_replay *r, const struct wd_tick *t);
/* "5.16-6.0", "7.1+", "4.19-5.9": the kernel range a replay stands for. */
void wd_era_range(char *buf, size_t cap, const struct verdict_wd_era *e);
#endif
