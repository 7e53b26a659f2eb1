#include "gaps.h"

#define GAPS_MIN_NS 10000ull
#define GAPS_RDTSC_FACTOR 50ull

void gaps_init(struct gaps *g, uint64_t threshold, uint64_t window_start)
{
	memset(g, 0, sizeof(*g));
	g->threshold = threshold;
	g->window_start = window_start;
}

static void record_gap(struct gaps *g, uint64_t prev, uint64_t delta)
{
	g->count++;
	g->total += delta;
	if (delta > g->max)
		g->max = delta;
	log2_hist_add(&g->hist, delta);
	if (g->recorded < GAPS_FIRST_N) {
		g->first[g->recorded].offset = prev - g->window_start;
		g->first[g->recorded].size = delta;
		g->recorded++;
	}
}

void gaps_feed(struct gaps *g, uint64_t prev, uint64_t now)
{
	g->reads++;
	if (now < prev) {
		g->backward++;
		return;
	}
	if (now - prev > g->threshold)
		record_gap(g, prev, now - prev);
}

void gaps_finish(struct gaps *g, uint64_t window_end)
{
	g->window = window_end >= g->window_start ?
			    window_end - g->window_start : 0;
}

uint64_t gaps_share_ppm(const struct gaps *g)
{
	if (g->window == 0)
		return 0;
	return u128_div_u64((unsigned __int128)g->total * 1000000 +
				    g->window / 2,
			    g->window);
}

#define GAPS_LOOP_FACTOR 8ull

uint64_t gaps_threshold_for_loop(uint64_t tsc_hz, uint64_t loop_cycles)
{
	uint64_t floor_cycles = mul_div_u64(tsc_hz, GAPS_MIN_NS, 1000000000ull);
	uint64_t loop = loop_cycles > UINT64_MAX / GAPS_LOOP_FACTOR ? UINT64_MAX : loop_cycles * GAPS_LOOP_FACTOR;
	return MAX(floor_cycles, loop);
}

uint64_t gaps_threshold(uint64_t tsc_hz, uint64_t rdtsc_p50)
{
	uint64_t floor_cycles = mul_div_u64(tsc_hz, GAPS_MIN_NS, 1000000000ull);
	uint64_t rdtsc_cycles = rdtsc_p50 > UINT64_MAX / GAPS_RDTSC_FACTOR ?
					UINT64_MAX :
					rdtsc_p50 * GAPS_RDTSC_FACTOR;

	return MAX(floor_cycles, rdtsc_cycles);
}
