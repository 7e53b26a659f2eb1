/* The timer stage's arithmetic and bookkeeping (include/timers.h): the
 * APIC timer's rate against the TSC, when a shot was due, each shot's
 * figures.  Pure: the probe and the host tests run the same code. */
#include "timers.h"
#include "strbuf.h"

uint64_t timers_apic_ratio(uint32_t count0, uint64_t t0, uint32_t count1, uint64_t t1)
{
	if (count1 >= count0 || t1 <= t0)
		return 0;
	/* (t1 - t0) / (count0 - count1), 32 fraction bits. */
	return u128_div_u64((unsigned __int128)(t1 - t0) << 32, (uint64_t)(count0 - count1));
}

uint64_t timers_apic_hz(uint64_t ratio_fp32, uint64_t tsc_hz)
{
	if (!ratio_fp32)
		return 0;
	return u128_div_u64((unsigned __int128)tsc_hz << 32, ratio_fp32);
}

uint32_t timers_apic_count_for(uint64_t ticks, uint64_t ratio_fp32)
{
	if (!ratio_fp32)
		return 1;
	uint64_t c = u128_div_u64((unsigned __int128)ticks << 32, ratio_fp32);
	return c < 1 ? 1 : c > 0xffffffffull ? 0xffffffffu : (uint32_t)c;
}

uint64_t timers_oneshot_due(uint64_t t0, uint64_t t1, uint32_t count, uint64_t ratio_fp32)
{
	uint64_t mid = t0 + (t1 - t0) / 2;
	/* Rounded to the nearest tick. */
	return mid + (uint64_t)(((unsigned __int128)count * ratio_fp32 + (1ull << 31)) >> 32);
}

uint64_t timers_shot_delay(uint32_t i, uint64_t min_ticks, uint64_t max_ticks)
{
	if (max_ticks <= min_ticks)
		return min_ticks;
	/* A multiplicative hash of the shot's number: scattered, the same
	 * sequence on every run (icount runs stay bit-identical). */
	uint32_t h = (i + 1) * 2654435761u;
	return min_ticks + mul_div_u64(h, max_ticks - min_ticks, 0xffffffffull);
}

void timers_shots_init(struct timer_shots *s)
{
	s->n = s->missed = s->early = s->raw_n = 0;
	s->most_early = 0;
}

void timers_shot(struct timer_shots *s, uint64_t arm_ticks, uint64_t due, uint64_t handler)
{
	if (s->raw_n < TIMERS_RAW_SHOTS) {
		s->raw_due[s->raw_n] = due;
		s->raw_handler[s->raw_n++] = handler;
	}
	if (!handler) {
		s->missed++;
		return;
	}
	if (s->n >= TIMERS_MAX_SHOTS)
		return;
	uint64_t latency = 0;
	if (handler >= due) {
		latency = handler - due;
	} else {
		/* Before it was due: a hypervisor that fires early on purpose
		 * (KVM's lapic_timer_advance) or, for the one-shot, the rate's
		 * calibration error.  Counted, and shown apart. */
		s->early++;
		s->most_early = MAX(s->most_early, due - handler);
	}
	s->arm[s->n] = arm_ticks;
	s->latency[s->n++] = latency;
}

void timers_finish(struct timer_result *t, struct timer_shots *s)
{
	t->fired = s->n;
	t->missed = s->missed;
	t->early = s->early;
	t->most_early_ticks = s->most_early;
	t->raw_n = s->raw_n;
	for (uint32_t i = 0; i < s->raw_n; i++) {
		t->raw_due[i] = s->raw_due[i];
		t->raw_handler[i] = s->raw_handler[i];
	}
	stats_dist_compute(&t->arm_cycles, s->arm, s->n);
	stats_dist_compute(&t->latency_cycles, s->latency, s->n);
	if (s->n) {
		t->status = TIMER_OK;
		t->reason[0] = 0;
	}
}

static void set_reason(char *dst, const char *why, const char *more)
{
	struct strbuf sb;
	sb_init(&sb, dst, REASON_LEN);
	sb_str(&sb, why);
	if (more)
		sb_str(&sb, more);
}

void timers_set_both(struct timers_result *out, enum timer_status st, const char *why, const char *more)
{
	out->lapic_oneshot.status = out->tsc_deadline.status = st;
	set_reason(out->lapic_oneshot.reason, why, more);
	set_reason(out->tsc_deadline.reason, why, more);
}

void timers_not_measured(struct timers_result *out, const char *why)
{
	memset(out, 0, sizeof *out);
	out->reason = why;
	timers_set_both(out, TIMER_ERROR, why, NULL);
}

const char *timers_status_name(enum timer_status st)
{
	switch (st) {
	case TIMER_OK:
		return "ok";
	case TIMER_ABSENT:
		return "absent";
	case TIMER_ERROR:
		return "error";
	default:
		return "not_run";
	}
}
