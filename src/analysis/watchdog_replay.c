#include "watchdog_replay.h"
#include "counter.h"

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull

/* Figures, kernel/time/clocksource.c:
 *  - WATCHDOG_INTERVAL = HZ >> 1: 0.5 s throughout.
 *  - before 5.13: one threshold, WATCHDOG_THRESHOLD = NSEC_PER_SEC >> 4
 *    (62.5 ms), no read-back check, no skip: modelled as two 31.25 ms
 *    margins.
 *  - 5.13 introduced per-clock uncertainty margins, lower-bounded by
 *    2 * WATCHDOG_MAX_SKEW, and cs_watchdog_read(); WATCHDOG_MAX_SKEW was
 *    100 us (MAX_SKEW_USEC 100), so TSC + watchdog margin = 400 us.
 *  - later, MAX_SKEW_USEC = 125 * WATCHDOG_INTERVAL / HZ = 62 us ("500 ppm
 *    based on NTP's limits"): margins 124 us each, 248 us together.  The
 *    release that changed 100 -> 62 is not pinned down here (placed with
 *    6.8 below); the verdict's era table, once wired in, decides.
 *  - 6.8 (and stable backports): WATCHDOG_INTERVAL_MAX_NS = 2 *
 *    WATCHDOG_INTERVAL in ns = 1 s; a longer readout interval is skipped.
 *  - WD_READ_SKIP suspends the watchdog for HZ * 300 jiffies (5 min).
 *  - 5.17 check_system_tsc_reliable(): the TSC_ADJUST exemption. */
const struct wd_era wd_eras_default[] = {
	{ NULL, "5.12", 500 * NS_PER_MS, 31250 * NS_PER_US, 31250 * NS_PER_US, false, 0, false, 0, false,
	  "WATCHDOG_THRESHOLD (NSEC_PER_SEC >> 4)" },
	{ "5.13", "5.16", 500 * NS_PER_MS, 200 * NS_PER_US, 200 * NS_PER_US, true, 300000 * NS_PER_MS, false, 0, false,
	  "uncertainty margins >= 2 * WATCHDOG_MAX_SKEW (100 us); cs_watchdog_read()" },
	{ "5.17", "6.7", 500 * NS_PER_MS, 200 * NS_PER_US, 200 * NS_PER_US, true, 300000 * NS_PER_MS, false, 0, true,
	  "as 5.13, plus check_system_tsc_reliable()" },
	{ "6.8", NULL, 500 * NS_PER_MS, 124 * NS_PER_US, 124 * NS_PER_US, true, 300000 * NS_PER_MS, true,
	  1000 * NS_PER_MS, true,
	  "MAX_SKEW_USEC 125 * WATCHDOG_INTERVAL / HZ; WATCHDOG_INTERVAL_MAX_NS skip" },
};
const unsigned wd_era_default_count = ARRAY_SIZE(wd_eras_default);

const char *wd_state_name(enum wd_state s)
{
	switch (s) {
	case WD_UNSTABLE: return "unstable";
	case WD_EXEMPT: return "exempt";
	default: return "watching";
	}
}

void wd_replay_init(struct wd_replay *r, const struct wd_era *era, const char *watchdog, uint64_t wd_hz,
		    unsigned wd_mask_bits, const struct wd_exemption_facts *ex)
{
	memset(r, 0, sizeof *r);
	r->era = era;
	r->watchdog = watchdog;
	r->wd_hz = wd_hz;
	r->wd_mask_bits = wd_mask_bits;
	if (ex->tsc_reliable) {
		r->state = WD_EXEMPT;
		r->reason = "TSC reliable (tsc_clocksource_reliable): no watchdog";
	} else if (era->adjust_exemption && ex->adjust_qualified) {
		r->state = WD_EXEMPT;
		r->reason = "CONSTANT+NONSTOP+TSC_ADJUST on <= 4 packages: no watchdog";
	}
}

static uint64_t abs64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

static void mark_unstable(struct wd_replay *r, const struct wd_tick *t, int64_t skew, uint64_t interval,
			  const char *why)
{
	r->state = WD_UNSTABLE;
	r->reason = why;
	r->unstable_at_ms = t->at_ms;
	r->unstable_skew_ns = skew;
	r->unstable_interval_ns = interval;
}

void wd_replay_feed(struct wd_replay *r, const struct wd_tick *t)
{
	if (r->state != WD_WATCHING || !r->wd_hz)
		return;
	if (r->suspended_until_ms && t->at_ms < r->suspended_until_ms)
		return;
	if (r->suspended_until_ms) {
		/* clocksource_reset_watchdog(): the next tick re-initialises. */
		r->suspended_until_ms = 0;
		r->started = false;
	}
	const struct wd_era *e = r->era;
	if (e->readback_check) {
		/* wd-cs-wd spans about two watchdog reads; it must fit in the
		 * watchdog's doubled margin plus the TSC's.  Linux retries; a
		 * best-of-several read that is still too slow fails every retry.
		 * A single wd-wd read over 2 * wd margin means "system busy":
		 * skipped, watchdog suspended. */
		uint64_t wd_delay = 2 * t->wd_read_ns;
		if (wd_delay > 2 * e->wd_margin_ns + e->cs_margin_ns) {
			if (t->wd_read_ns > 2 * e->wd_margin_ns) {
				r->skipped_readback++;
				r->suspended_until_ms = t->at_ms + e->readback_suspend_ns / NS_PER_MS;
				return;
			}
			mark_unstable(r, t, 0, 0, "excessive watchdog read-back delay");
			return;
		}
	}
	if (!r->started) {
		r->started = true;
		return;
	}
	/* The kernel sees the watchdog through its mask: a gap longer than the
	 * counter's wrap period (4.69 s for the 24-bit PM timer) loses wraps. */
	uint64_t wd_ticks = t->wd_ticks & counter_mask(r->wd_mask_bits);
	int64_t wd_ns = (int64_t)mul_div_u64(wd_ticks, 1000000000ull, r->wd_hz);
	int64_t cs_ns = (int64_t)t->cs_ns;
	uint64_t interval = (uint64_t)(cs_ns > wd_ns ? cs_ns : wd_ns);
	if (e->skip_long_interval && interval > e->long_interval_ns) {
		r->skipped_long++;
		return;
	}
	r->checks++;
	int64_t skew = cs_ns - wd_ns;
	if (abs64(skew) > abs64(r->max_abs_skew_ns))
		r->max_abs_skew_ns = skew;
	if (abs64(skew) > e->cs_margin_ns + e->wd_margin_ns)
		mark_unstable(r, t, skew, interval, "skew beyond the margins");
}
