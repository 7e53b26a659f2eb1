#include "warp.h"

void warp_init(struct warp_state *s)
{
	memset(s, 0, sizeof(*s));
}

bool warp_observe(struct warp_state *s, uint32_t cpu, uint64_t now)
{
	bool warp = s->have_last && now < s->last_tsc;

	s->observations++;
	if (s->have_last && now == s->last_tsc)
		s->equal++;
	if (warp) {
		uint64_t size = s->last_tsc - now;

		s->warps++;
		if (s->last_cpu == cpu)
			s->same_cpu_warps++;
		if (size > s->max_warp) {
			s->max_warp = size;
			s->max_warp_cpu = cpu;
			s->max_warp_from = s->last_cpu;
		}
	}
	/* Linux publishes every reading, a warped one included: the next
	 * comparison is against what the TSCs say now, not a stale maximum. */
	s->last_tsc = now;
	s->last_cpu = cpu;
	s->have_last = true;
	return warp;
}

void warp_skew_init(struct warp_skew *e)
{
	memset(e, 0, sizeof(*e));
}

bool warp_skew_add(struct warp_skew *e, uint64_t t0, uint64_t t1, uint64_t t2)
{
	uint64_t rtt, midpoint;

	if (t2 < t0) {
		e->rejected++;
		return false;
	}
	e->exchanges++;
	rtt = t2 - t0;
	if (e->valid && rtt >= e->rtt)
		return true;
	/* t0 + rtt / 2 rather than (t0 + t2) / 2: no overflow near 2^64. */
	midpoint = t0 + rtt / 2;
	e->offset = (int64_t)(t1 - midpoint);
	e->bound = rtt - rtt / 2;
	e->rtt = rtt;
	e->valid = true;
	return true;
}
