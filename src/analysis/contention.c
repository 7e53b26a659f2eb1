/* The contention stage's arithmetic (include/contention.h): a level's
 * figures from its CPUs', the readers' overlap, who ran together.  Pure:
 * the probe and the host tests run the same code. */
#include "contention.h"
#include "stats.h"

uint32_t contention_levels(uint32_t n, uint32_t *levels, uint32_t cap)
{
	uint32_t count = 0;
	for (uint32_t k = 1; k <= n && count < cap; k *= 2)
		levels[count++] = k;
	if (count && levels[count - 1] != n && count < cap && n > 0)
		levels[count++] = n;
	return count;
}

/* How many of a sorted array are <= x. */
static uint32_t count_le(const uint64_t *v, uint32_t n, uint64_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t contention_pooled_percentile(const uint64_t *const *sorted, const uint32_t *lens, uint32_t k,
				      uint32_t per_100000)
{
	uint64_t total = 0, lo = UINT64_MAX, hi = 0;
	for (uint32_t i = 0; i < k; i++) {
		if (!lens[i])
			continue;
		total += lens[i];
		lo = MIN(lo, sorted[i][0]);
		hi = MAX(hi, sorted[i][lens[i] - 1]);
	}
	if (!total)
		return 0;
	if (per_100000 > STATS_PER)
		per_100000 = STATS_PER;
	uint64_t rank = (per_100000 * total + STATS_PER - 1) / STATS_PER;
	if (!rank)
		rank = 1;
	/* The smallest value with at least `rank` elements at or below it:
	 * a binary search over values, every array counted by bisection. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint64_t c = 0;
		for (uint32_t i = 0; i < k; i++)
			c += count_le(sorted[i], lens[i], mid);
		if (c >= rank)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint32_t contention_all_reading_ppm(const uint64_t *start, const uint64_t *end, uint32_t k)
{
	if (!k)
		return 0;
	/* Every reader keeps reading past its own window until the last one
	 * has its samples: from the latest start on, all of them read. */
	uint64_t last_start = 0;
	for (uint32_t i = 0; i < k; i++)
		last_start = MAX(last_start, start[i]);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < k; i++) {
		if (end[i] <= start[i]) {
			sum += 1000000u;
			continue;
		}
		uint64_t from = MAX(start[i], last_start);
		sum += from >= end[i] ? 0 : mul_div_u64(end[i] - from, 1000000u, end[i] - start[i]);
	}
	return (uint32_t)(sum / k);
}

uint32_t contention_share_ppm(uint64_t window_cycles, uint64_t lost_cycles)
{
	if (!window_cycles)
		return 0;
	if (lost_cycles >= window_cycles)
		return 0;
	return (uint32_t)mul_div_u64(window_cycles - lost_cycles, 1000000u, window_cycles);
}

void contention_presence_finish(struct contention_presence *p)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < p->cpus && i < CONTENTION_MAX_CPUS; i++)
		sum += p->share_ppm[i];
	p->ran_together_milli = (uint32_t)(sum / 1000);
	/* Three quarters of the CPUs, on average, or fewer. */
	p->outnumbered = p->measured && p->cpus >= 2 && sum * 4 < (uint64_t)p->cpus * 1000000u * 3;
}

bool contention_level_outnumbered(const struct contention_level *l, const struct contention_presence *p)
{
	if (l->cpus < 2)
		return false;
	if (p && p->measured && p->outnumbered)
		return true;
	return l->measured >= 2 && l->all_reading_ppm * 4ull < 3000000ull;
}

void contention_level_finish(struct contention_level *l, const uint64_t *const *sorted, const uint32_t *lens)
{
	unsigned __int128 var = 0;
	__int128 sum = 0;
	uint64_t start[CONTENTION_MAX_CPUS], end[CONTENTION_MAX_CPUS];
	const uint64_t *arrays[CONTENTION_MAX_CPUS];
	uint32_t n_of[CONTENTION_MAX_CPUS];
	uint32_t k = 0;
	l->measured = 0;
	l->se_known = true;
	l->cpu_min_milli = INT64_MAX;
	l->cpu_max_milli = INT64_MIN;
	for (uint32_t i = 0; i < l->cpus && i < CONTENTION_MAX_CPUS; i++) {
		const struct contention_cpu *c = &l->cpu[i];
		if (!c->measured)
			continue;
		sum += c->estimate_milli;
		var += (unsigned __int128)c->se_milli * c->se_milli;
		l->se_known &= c->se_known;
		l->cpu_min_milli = MIN(l->cpu_min_milli, c->estimate_milli);
		l->cpu_max_milli = MAX(l->cpu_max_milli, c->estimate_milli);
		start[k] = c->start;
		end[k] = c->end;
		arrays[k] = sorted ? sorted[i] : NULL;
		n_of[k] = sorted && lens ? lens[i] : 0;
		k++;
	}
	l->measured = k;
	if (!k) {
		l->estimate_milli = 0;
		l->se_milli = 0;
		l->se_known = false;
		l->cpu_min_milli = l->cpu_max_milli = 0;
		l->p50 = l->p99 = 0;
		l->all_reading_ppm = 0;
		return;
	}
	/* Mean of k independent estimates: its variance is the sum of theirs
	 * over k^2.  Rounded to the nearest milli-tick. */
	unsigned __int128 mag = sum < 0 ? (unsigned __int128)-sum : (unsigned __int128)sum;
	uint64_t q = u128_div_u64(mag + k / 2, k); /* no 128-bit divide helper in the probe */
	l->estimate_milli = sum < 0 ? -(int64_t)q : (int64_t)q;
	l->se_milli = (stats_isqrt_u128(var) + k / 2) / k;
	l->p50 = contention_pooled_percentile(arrays, n_of, k, STATS_P50);
	l->p99 = contention_pooled_percentile(arrays, n_of, k, STATS_P99);
	l->all_reading_ppm = contention_all_reading_ppm(start, end, k);
}

/* A level's estimate as the report prints it (to its SE's precision),
 * x1000: the ratio is computed from the very figures printed beside it. */
static int64_t as_printed_milli(const struct contention_level *l)
{
	unsigned dec = stats_se_decimals(l->se_milli);
	int64_t r = stats_round_milli(l->estimate_milli, dec);
	for (unsigned i = dec; i < 3; i++)
		r *= 10;
	return r;
}

void contention_source_finish(struct contention_source *s)
{
	s->ratio_milli = 0;
	s->ratio_known = false;
	s->ratio_reason = "one level only: nothing contended to compare";
	if (s->level_count < 2)
		return;
	const struct contention_level *one = &s->level[0], *all = &s->level[s->level_count - 1];
	s->ratio_reason = "a level was not measured";
	if (!one->measured || !all->measured)
		return;
	int64_t one_p = as_printed_milli(one), all_p = as_printed_milli(all);
	s->ratio_reason = "the 1-CPU estimate is not above zero: nothing to divide by";
	if (one_p <= 0)
		return;
	/* Below zero is the harness's noise (the SE beside it says how much),
	 * not a cost: no ratio, where a top estimate of 0 is a ratio of 0. */
	s->ratio_reason = "the highest level's estimate is below zero (noise about the harness: see its SE)";
	if (all_p < 0)
		return;
	s->ratio_reason = NULL;
	s->ratio_known = true;
	s->ratio_milli = mul_div_u64((uint64_t)all_p, 1000, (uint64_t)one_p);
}

uint32_t contention_outnumbered_from(const struct contention_result *c)
{
	for (uint32_t li = 0; c && li < c->level_count; li++) {
		const struct contention_presence *p = &c->presence[li];
		if (p->measured && p->outnumbered)
			return c->levels[li];
		for (uint32_t s = 0; s < c->source_count; s++)
			if (li < c->src[s].level_count && contention_level_outnumbered(&c->src[s].level[li], p))
				return c->levels[li];
	}
	return 0;
}
