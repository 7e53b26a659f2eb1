#include "watchdog_replay.h"
#include "counter.h"
#include "strbuf.h"

#define NS_PER_MS 1000000ull

const char *wd_state_name(enum wd_state s)
{
	switch (s) {
	case WD_UNSTABLE: return "unstable";
	case WD_EXEMPT: return "exempt";
	case WD_NOT_WATCHED: return "not_watched";
	case WD_ABSENT: return "absent";
	default: return "watching";
	}
}

void wd_era_range(char *buf, size_t cap, const struct verdict_wd_era *e)
{
	struct strbuf sb;
	sb_init(&sb, buf, cap);
	sb_str(&sb, e->from ? e->from : "?");
	if (!e->to)
		sb_str(&sb, "+");
	else if (!e->from || !str_equal(e->from, e->to)) {
		sb_str(&sb, "-");
		sb_str(&sb, e->to);
	}
}

void wd_replay_init(struct wd_replay *r, const struct verdict_wd_era *era, uint64_t wd_hz, unsigned wd_mask_bits)
{
	memset(r, 0, sizeof *r);
	r->era = *era;
	r->watchdog = era->watchdog;
	r->wd_hz = wd_hz;
	r->wd_mask_bits = wd_mask_bits;
	if (!era->watched) {
		r->state = era->exempt ? WD_EXEMPT : WD_NOT_WATCHED;
		r->reason = era->not_watched;
	} else if (!wd_hz) {
		r->state = WD_ABSENT;
		r->reason = "the era's watchdog clock was not measured during the watch";
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

/* The read-out checks; false when this tick is not compared. */
static bool readout_ok(struct wd_replay *r, const struct wd_tick *t)
{
	const struct verdict_wd_era *e = &r->era;
	if (e->readback_check && t->wd_read_ns > e->readback_bound_ns) {
		/* cs_watchdog_read(): one watchdog read over the skip limit
		 * means "system busy": skipped, the watchdog suspended.
		 * Otherwise every retry is as slow as the best of ours. */
		if (t->wd_read_ns > e->readback_skip_ns) {
			r->skipped_readback++;
			r->suspended_until_ms = t->at_ms + e->readback_suspend_ns / NS_PER_MS;
			return false;
		}
		mark_unstable(r, t, 0, 0, "excessive watchdog read-back delay");
		return false;
	}
	if (e->readout_retry_ns && t->wd_read_ns > e->readout_retry_ns) {
		/* 7.1+: retried next round, never fatal; the next round starts
		 * afresh from this one's reads. */
		r->retried_readout++;
		r->started = false;
		return false;
	}
	return true;
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
	if (!readout_ok(r, t))
		return;
	if (!r->started) {
		r->started = true;
		return;
	}
	const struct verdict_wd_era *e = &r->era;
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
	if (e->check == VERDICT_WD_FREQ) {
		/* watchdog_check_freq(): the watchdog's delta >> shift plus the
		 * read-out window. */
		uint64_t allowed = ((uint64_t)wd_ns >> e->freq_shift) + t->wd_read_ns;
		if (abs64(skew) > allowed)
			mark_unstable(r, t, skew, interval, "frequency skew beyond delta >> shift");
	} else if (abs64(skew) > e->margin_ns) {
		mark_unstable(r, t, skew, interval, "skew beyond the margins");
	}
}
