/* Linux's clocksource watchdog (kernel/time/clocksource.c,
 * clocksource_watchdog() and cs_watchdog_read()), replayed on a measured
 * series: every WATCHDOG_INTERVAL the kernel reads its watchdog clock and
 * the TSC, and marks the TSC unstable when the two elapsed times differ by
 * more than the sum of their uncertainty margins.  Pure; one replay per
 * (kernel era, watchdog clock).  The era table is data, so the verdict's
 * own era rules can supply it; wd_eras_default is this module's reading
 * of the kernel history. */
#ifndef CP_WATCHDOG_REPLAY_H
#define CP_WATCHDOG_REPLAY_H
#include "util.h"

struct wd_era {
	const char *from, *to;        /* "5.13"-style; to NULL = newest */
	uint64_t interval_ns;         /* WATCHDOG_INTERVAL: 0.5 s in every era */
	uint64_t cs_margin_ns;        /* the TSC's uncertainty_margin */
	uint64_t wd_margin_ns;        /* the watchdog clock's uncertainty_margin */
	/* cs_watchdog_read() (5.13+): a watchdog read too slow to bracket the
	 * TSC read is retried, then skipped (wd-wd slow too) or fatal. */
	bool readback_check;
	uint64_t readback_suspend_ns; /* how long a skipped read-back suspends the watchdog */
	/* 6.8 and stable backports (commit "clocksource: Skip watchdog check for
	 * large watchdog intervals"): an interval longer than this is skipped. */
	bool skip_long_interval;
	uint64_t long_interval_ns;
	/* 5.17+ check_system_tsc_reliable(): CONSTANT+NONSTOP+TSC_ADJUST on
	 * <= 4 packages takes the TSC off the watchdog. */
	bool adjust_exemption;
	const char *source;           /* where the figures come from */
};

extern const struct wd_era wd_eras_default[];
extern const unsigned wd_era_default_count;

/* What exempts the TSC from the watchdog altogether (the caller's facts). */
struct wd_exemption_facts {
	bool tsc_reliable;            /* tsc=reliable / X86_FEATURE_TSC_RELIABLE */
	bool adjust_qualified;        /* CONSTANT+NONSTOP+TSC_ADJUST, <= 4 packages */
};

/* One watchdog tick as measured: the TSC's elapsed ns since the previous
 * tick at the rate the guest would believe, and the watchdog counter's true
 * elapsed ticks (unmasked: the replay applies the kernel's mask). */
struct wd_tick {
	uint64_t at_ms;
	uint64_t cs_ns;
	uint64_t wd_ticks;
	uint64_t wd_read_ns;          /* one watchdog read's duration (best of a few) */
};

enum wd_state { WD_WATCHING, WD_UNSTABLE, WD_EXEMPT };

struct wd_replay {
	const struct wd_era *era;
	const char *watchdog;         /* clocksource name */
	uint64_t wd_hz;
	unsigned wd_mask_bits;
	enum wd_state state;
	const char *reason;           /* exempt: why; unstable: which check */
	bool started;                 /* the first tick only initialises (as in Linux) */
	uint64_t suspended_until_ms;
	uint32_t checks, skipped_long, skipped_readback;
	int64_t max_abs_skew_ns;
	uint64_t unstable_at_ms;
	int64_t unstable_skew_ns;
	uint64_t unstable_interval_ns;
};

const char *wd_state_name(enum wd_state s);
void wd_replay_init(struct wd_replay *r, const struct wd_era *era, const char *watchdog, uint64_t wd_hz,
		    unsigned wd_mask_bits, const struct wd_exemption_facts *ex);
void wd_replay_feed(struct wd_replay *r, const struct wd_tick *t);
#endif
