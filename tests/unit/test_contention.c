/* The contention stage's arithmetic (src/analysis/contention.c) and its
 * verdict (src/verdict/contention.c), on figures recorded from direct
 * boots under TCG (-smp 4, QEMU 7.2, this 2-core host) and on made-up
 * curves for the edges. */
#include "check.h"
#include "contention.h"
#include "stats.h"
#include "verdict.h"
#include <stdlib.h>
#include <string.h>

TEST(levels_double_up_to_every_cpu)
{
	uint32_t l[CONTENTION_MAX_LEVELS];
	CHECK_EQ_U64(contention_levels(1, l, CONTENTION_MAX_LEVELS), 1);
	CHECK_EQ_U64(l[0], 1);
	CHECK_EQ_U64(contention_levels(4, l, CONTENTION_MAX_LEVELS), 3);
	CHECK_EQ_U64(l[2], 4);
	CHECK_EQ_U64(contention_levels(6, l, CONTENTION_MAX_LEVELS), 4);
	CHECK_EQ_U64(l[3], 6);
	CHECK_EQ_U64(contention_levels(8, l, CONTENTION_MAX_LEVELS), 4);
	CHECK_EQ_U64(contention_levels(64, l, CONTENTION_MAX_LEVELS), 7);
	CHECK_EQ_U64(l[6], 64);
	CHECK_EQ_U64(contention_levels(63, l, CONTENTION_MAX_LEVELS), 7);
	CHECK_EQ_U64(l[6], 63);
	CHECK_EQ_U64(contention_levels(0, l, CONTENTION_MAX_LEVELS), 0);
	CHECK_EQ_U64(contention_levels(64, l, 3), 3);
}

TEST(isqrt_is_the_floor)
{
	CHECK_EQ_U64(stats_isqrt_u128(0), 0);
	CHECK_EQ_U64(stats_isqrt_u128(1), 1);
	CHECK_EQ_U64(stats_isqrt_u128(15), 3);
	CHECK_EQ_U64(stats_isqrt_u128(16), 4);
	CHECK_EQ_U64(stats_isqrt_u128((unsigned __int128)4000000000ull * 4000000000ull), 4000000000ull);
	CHECK_EQ_U64(stats_isqrt_u128((unsigned __int128)4000000000ull * 4000000000ull - 1), 3999999999ull);
	unsigned __int128 top = (unsigned __int128)UINT64_MAX * UINT64_MAX;
	CHECK_EQ_U64(stats_isqrt_u128(top), UINT64_MAX - 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

TEST(pooled_percentile_equals_the_merged_sort)
{
	enum { K = 4, N = 300 };
	static uint64_t v[K][N], all[K * N];
	const uint64_t *arr[K];
	uint32_t lens[K];
	unsigned seed = 7;
	for (int round = 0; round < 20; round++) {
		uint32_t total = 0;
		for (int i = 0; i < K; i++) {
			lens[i] = (uint32_t)(rand_r(&seed) % N); /* some may be empty */
			for (uint32_t j = 0; j < lens[i]; j++)
				v[i][j] = all[total++] = (uint64_t)(rand_r(&seed) % (1000 * (i + 1)));
			qsort(v[i], lens[i], sizeof v[i][0], cmp_u64);
			arr[i] = v[i];
		}
		qsort(all, total, sizeof all[0], cmp_u64);
		const uint32_t ps[] = { 0, 1, STATS_P50, STATS_P90, STATS_P99, STATS_P999, STATS_PER };
		for (size_t p = 0; p < sizeof ps / sizeof ps[0]; p++)
			CHECK_EQ_U64(contention_pooled_percentile(arr, lens, K, ps[p]),
				     stats_percentile_sorted(all, total, ps[p]));
	}
	uint32_t none[2] = { 0, 0 };
	CHECK_EQ_U64(contention_pooled_percentile(arr, none, 2, STATS_P99), 0);
}

/* acpi_pm at 4 CPUs, -smp 4 boot: starts (us from the first) and
 * reading windows (us) as the report gave them. */
TEST(all_reading_share_on_recorded_windows)
{
	uint64_t start[4] = { 10480, 489, 506, 0 }, len[4] = { 5005, 21493, 15658, 10454 }, end[4];
	for (int i = 0; i < 4; i++)
		end[i] = start[i] + len[i];
	/* The latest start is 10480: CPU 0 reads all along, the others from
	 * then to their end. */
	uint64_t expect = (1000000ull + (21982 - 10480) * 1000000ull / 21493 + (16164 - 10480) * 1000000ull / 15658 +
			   0) / 4;
	CHECK_EQ_U64(contention_all_reading_ppm(start, end, 4), expect);
	/* Released together and never held up: all of every window. */
	uint64_t s2[2] = { 0, 1 }, e2[2] = { 1000, 1001 };
	CHECK(contention_all_reading_ppm(s2, e2, 2) >= 999000);
	uint64_t s1[1] = { 5 }, e1[1] = { 9 };
	CHECK_EQ_U64(contention_all_reading_ppm(s1, e1, 1), 1000000);
	/* One finished before the last began: none of its window counts. */
	uint64_t s3[2] = { 0, 5000 }, e3[2] = { 1000, 6000 };
	CHECK_EQ_U64(contention_all_reading_ppm(s3, e3, 2), 500000);
}

/* Presence shares recorded at -smp 2 and -smp 4 on this 2-core host
 * (share_pct): two spinning host threads here also get ~54 % each, so
 * the sums fall short and the levels are outnumbered; one CPU never is. */
TEST(presence_on_recorded_shares)
{
	struct contention_presence p = { .cpus = 2, .measured = true, .share_ppm = { 459900, 475900 } };
	contention_presence_finish(&p);
	CHECK_EQ_U64(p.ran_together_milli, 935);
	CHECK(p.outnumbered);
	struct contention_presence q = { .cpus = 4, .measured = true, .share_ppm = { 503500, 403900, 504100, 360400 } };
	contention_presence_finish(&q);
	CHECK_EQ_U64(q.ran_together_milli, 1771);
	CHECK(q.outnumbered);
	struct contention_presence one = { .cpus = 1, .measured = true, .share_ppm = { 539300 } };
	contention_presence_finish(&one);
	CHECK(!one.outnumbered);
	/* Four CPUs each running 97 % of the window: together. */
	struct contention_presence real = { .cpus = 4, .measured = true, .share_ppm = { 970000, 975000, 990000, 968000 } };
	contention_presence_finish(&real);
	CHECK(!real.outnumbered);
	CHECK_EQ_U64(real.ran_together_milli, 3903);
	CHECK_EQ_U64(contention_share_ppm(1000, 250), 750000);
	CHECK_EQ_U64(contention_share_ppm(1000, 2000), 0);
	CHECK_EQ_U64(contention_share_ppm(0, 0), 0);
}

/* hpet at 2 CPUs (-smp 8 boot): per-CPU estimates and SEs (x1000). */
TEST(level_mean_se_spread_and_pooled_tail)
{
	struct contention_level l = { .cpus = 2 };
	l.cpu[0] = (struct contention_cpu){ .cpu = 0, .measured = true, .estimate_milli = 240100, .se_milli = 51000,
					     .se_known = true, .start = 100, .end = 2642 };
	l.cpu[1] = (struct contention_cpu){ .cpu = 1, .measured = true, .estimate_milli = 243900, .se_milli = 17000,
					     .se_known = true, .start = 112, .end = 7113 };
	uint64_t a[5] = { 180, 200, 210, 230, 9000 }, b[5] = { 190, 205, 220, 7056, 9100 };
	const uint64_t *sorted[2] = { a, b };
	uint32_t lens[2] = { 5, 5 };
	contention_level_finish(&l, sorted, lens);
	CHECK_EQ_U64(l.measured, 2);
	CHECK_EQ_I64(l.estimate_milli, 242000);
	/* sqrt(51000^2 + 17000^2) / 2 = 26879.3 */
	CHECK_EQ_U64(l.se_milli, 26879);
	CHECK(l.se_known);
	CHECK_EQ_I64(l.cpu_min_milli, 240100);
	CHECK_EQ_I64(l.cpu_max_milli, 243900);
	CHECK_EQ_U64(l.p50, 210);
	CHECK_EQ_U64(l.p99, 9100);
	CHECK(l.all_reading_ppm > 990000);
	CHECK(!contention_level_outnumbered(&l, NULL));
	/* A CPU without figures is left out of everything. */
	l.cpu[1].measured = false;
	contention_level_finish(&l, sorted, lens);
	CHECK_EQ_U64(l.measured, 1);
	CHECK_EQ_I64(l.estimate_milli, 240100);
	CHECK_EQ_U64(l.p99, 9000);
	/* Negative estimates (a read cheaper than the harness) average too. */
	struct contention_level n = { .cpus = 2 };
	n.cpu[0] = (struct contention_cpu){ .measured = true, .estimate_milli = -3001 };
	n.cpu[1] = (struct contention_cpu){ .measured = true, .estimate_milli = -1000 };
	contention_level_finish(&n, NULL, NULL);
	CHECK_EQ_I64(n.estimate_milli, -2001);
	/* One CPU whose SE the engine could not give (quick mode: one sample
	 * window) leaves the level's SE unknown, not 0. */
	CHECK(!n.se_known);
	l.cpu[1].measured = true;
	l.cpu[1].se_known = false;
	contention_level_finish(&l, sorted, lens);
	CHECK(!l.se_known);
	CHECK_EQ_I64(l.estimate_milli, 242000);
}

TEST(a_level_whose_readers_started_apart_is_outnumbered)
{
	struct contention_level l = { .cpus = 4, .measured = 4, .all_reading_ppm = 250000 };
	CHECK(contention_level_outnumbered(&l, NULL));
	l.all_reading_ppm = 800000;
	CHECK(!contention_level_outnumbered(&l, NULL));
	struct contention_presence p = { .cpus = 4, .measured = true, .outnumbered = true };
	CHECK(contention_level_outnumbered(&l, &p));
	struct contention_level one = { .cpus = 1, .measured = 1, .all_reading_ppm = 0 };
	CHECK(!contention_level_outnumbered(&one, &p));
}

TEST(ratio_and_first_outnumbered_level)
{
	static struct contention_result c;
	memset(&c, 0, sizeof c);
	c.level_count = 3;
	c.levels[0] = 1, c.levels[1] = 2, c.levels[2] = 4;
	c.source_count = 1;
	struct contention_source *s = &c.src[0];
	s->measured = true;
	s->level_count = 3;
	s->level[0] = (struct contention_level){ .cpus = 1, .measured = 1, .estimate_milli = 133136, .all_reading_ppm = 1000000 };
	s->level[1] = (struct contention_level){ .cpus = 2, .measured = 2, .estimate_milli = 134700, .all_reading_ppm = 1000000 };
	s->level[2] = (struct contention_level){ .cpus = 4, .measured = 4, .estimate_milli = 239000, .all_reading_ppm = 250000 };
	contention_source_finish(s);
	CHECK_EQ_U64(s->ratio_milli, 1795);
	CHECK(s->ratio_known && s->ratio_reason == NULL);
	CHECK_EQ_U64(contention_outnumbered_from(&c), 4);
	c.presence[1] = (struct contention_presence){ .cpus = 2, .measured = true, .outnumbered = true };
	CHECK_EQ_U64(contention_outnumbered_from(&c), 2);
	/* A top level at 0 is a measured ratio of 0; below 0, noise: none. */
	s->level[2].estimate_milli = 0;
	contention_source_finish(s);
	CHECK_EQ_U64(s->ratio_milli, 0);
	CHECK(s->ratio_known && s->ratio_reason == NULL);
	s->level[2].estimate_milli = -300;
	contention_source_finish(s);
	CHECK(!s->ratio_known && s->ratio_reason != NULL && strstr(s->ratio_reason, "below zero"));
	s->level[2].estimate_milli = 239000;
	s->level[0].estimate_milli = 0;
	contention_source_finish(s);
	CHECK_EQ_U64(s->ratio_milli, 0);
	CHECK(!s->ratio_known && s->ratio_reason != NULL && strstr(s->ratio_reason, "1-CPU"));
	s->level_count = 1;
	contention_source_finish(s);
	CHECK_EQ_U64(s->ratio_milli, 0);
	CHECK(!s->ratio_known && s->ratio_reason != NULL && strstr(s->ratio_reason, "one level"));
}

/* ---- the verdict ---- */

static void curve(struct verdict_input *in, enum verdict_source src, const uint32_t *cpus, const uint64_t *ns,
		  uint32_t n, uint64_t se_alone, uint64_t se_all)
{
	struct verdict_source_fact *f = &in->sources[src];
	f->curve_points = n;
	for (uint32_t i = 0; i < n; i++) {
		f->curve_cpus[i] = cpus[i];
		f->curve_ns_milli[i] = ns[i];
	}
	f->alone_ns_milli = ns[0];
	f->alone_se_ns_milli = se_alone;
	f->contended_ns_milli = ns[n - 1];
	f->contended_se_ns_milli = se_all;
	in->contention_cpus = cpus[n - 1];
}

/* A q35 TCG machine as the -smp 4 boots saw it, minus the curves. */
static void base_input(struct verdict_input *in)
{
	memset(in, 0, sizeof *in);
	in->vendor = VERDICT_VENDOR_AMD;
	in->hypervisor_bit = VERDICT_YES;
	in->hypervisor = "tcg";
	in->tsc = VERDICT_YES;
	in->invariant_tsc = VERDICT_NO;
	in->logical_cpus = in->possible_cpus = 4;
	in->packages = 1;
	in->acpi = VERDICT_YES;
	in->hw_reduced = VERDICT_NO;
	in->legacy_pic = VERDICT_YES;
	in->sources[VERDICT_SRC_TSC].present = VERDICT_YES;
	in->sources[VERDICT_SRC_TSC].read_ns_milli = 8270;
	in->sources[VERDICT_SRC_HPET].present = VERDICT_YES;
	in->sources[VERDICT_SRC_HPET].read_ns_milli = 103439;
	in->sources[VERDICT_SRC_ACPI_PM].present = VERDICT_YES;
	in->sources[VERDICT_SRC_ACPI_PM].read_ns_milli = 67433;
	in->xcpu_tested = 4;
	in->contention_outnumbered = VERDICT_NO;
}

static struct verdict v;

TEST(contended_source_is_warned_with_its_curve)
{
	struct verdict_input in;
	base_input(&in);
	const uint32_t cpus[3] = { 1, 2, 4 };
	const uint64_t pm[3] = { 67433, 141470, 180300 }, hpet[3] = { 103439, 150000, 190000 };
	curve(&in, VERDICT_SRC_ACPI_PM, cpus, pm, 3, 196, 604);
	curve(&in, VERDICT_SRC_HPET, cpus, hpet, 3, 274, 1933);
	verdict_decide(&v, &in);
	const struct verdict_warning *w = verdict_find_warning(&v, "CLOCK_READ_CONTENDED");
	CHECK(w != NULL);
	CHECK(verdict_source_contended(&in, "acpi_pm"));
	CHECK(!verdict_source_contended(&in, "hpet")); /* 1.84x: not over 2x */
	CHECK(!verdict_source_contended(&in, "tsc"));  /* no curve */
	CHECK(!verdict_source_contended(&in, "no-such-source"));
	CHECK(strstr(w->message, "acpi_pm reads slow down 2.6x when 4 CPUs read it at once") != NULL);
	CHECK(strstr(w->evidence, "1 CPU 67 ns, 2 CPUs 141 ns, 4 CPUs 180 ns") != NULL);
	CHECK(strstr(w->fix, "invariant TSC") != NULL);
	CHECK_STR(verdict_severity_name(w->severity), "info"); /* Linux does not read acpi_pm here */
}

TEST(over_two_x_but_within_the_noise_is_not_contended)
{
	struct verdict_input in;
	base_input(&in);
	const uint32_t cpus[2] = { 1, 2 };
	const uint64_t pm[2] = { 67433, 141470 };
	/* 141.5 - 2 x 67.4 = 6.6 ns over, SE of the difference ~50 ns */
	curve(&in, VERDICT_SRC_ACPI_PM, cpus, pm, 2, 500, 51000);
	CHECK(!verdict_source_contended(&in, "acpi_pm"));
	curve(&in, VERDICT_SRC_ACPI_PM, cpus, pm, 2, 196, 604);
	CHECK(verdict_source_contended(&in, "acpi_pm"));
}

TEST(large_guest_cost_is_the_chosen_source_read_by_every_cpu)
{
	struct verdict_input in;
	base_input(&in);
	/* No invariant TSC, AMD, 4 CPUs: 6.18 keeps tsc (vDSO). */
	const uint32_t cpus[3] = { 1, 2, 4 };
	const uint64_t tsc[3] = { 8270, 34633, 8380 };
	curve(&in, VERDICT_SRC_TSC, cpus, tsc, 3, 1463, 167);
	in.contention_outnumbered = VERDICT_YES;
	verdict_decide(&v, &in);
	CHECK_STR(v.linux_clocksource, "tsc");
	CHECK(v.large_guest.measured);
	CHECK_EQ_U64(v.large_guest.cpus, 4);
	CHECK_EQ_U64(v.large_guest.read_ns_milli, 8380); /* vDSO: no syscall added */
	CHECK_EQ_U64(v.large_guest.ratio_milli, 1013);
	CHECK_EQ_U64(v.large_guest.per_added_cpu_ns_milli, 36);
	CHECK(v.large_guest.outnumbered == VERDICT_YES);
	CHECK(strstr(v.large_guest.basis, "tsc read by 4 CPUs at once") != NULL);
	/* No curve: no prediction. */
	base_input(&in);
	verdict_decide(&v, &in);
	CHECK(!v.large_guest.measured);
}

TEST(contention_inputs_round_trip_through_the_line_format)
{
	struct verdict_input in;
	memset(&in, 0, sizeof in);
	char l1[] = "contention_curve_ns hpet 1:103.439,2:186.830,4:98.342";
	char l2[] = "contended_read_ns hpet 98.342";
	char l3[] = "contention_alone_se_ns hpet 0.274";
	char l4[] = "contention_cpus 4";
	char l5[] = "contention_outnumbered true";
	char bad[] = "contention_curve_ns hpet 1:103.4,x:5";
	const char *why;
	CHECK(verdict_inputs_parse_line(&in, l1, &why));
	CHECK(verdict_inputs_parse_line(&in, l2, &why));
	CHECK(verdict_inputs_parse_line(&in, l3, &why));
	CHECK(verdict_inputs_parse_line(&in, l4, &why));
	CHECK(verdict_inputs_parse_line(&in, l5, &why));
	const struct verdict_source_fact *f = &in.sources[VERDICT_SRC_HPET];
	CHECK_EQ_U64(f->curve_points, 3);
	CHECK_EQ_U64(f->curve_cpus[2], 4);
	CHECK_EQ_U64(f->curve_ns_milli[1], 186830);
	CHECK_EQ_U64(f->contended_ns_milli, 98342);
	CHECK_EQ_U64(f->alone_se_ns_milli, 274);
	CHECK_EQ_U64(in.contention_cpus, 4);
	CHECK(in.contention_outnumbered == VERDICT_YES);
	CHECK(!verdict_inputs_parse_line(&in, bad, &why));
}

/* The ratio comes from the estimates as printed beside it (to their SE's
 * precision): 24.6 / 2.9, not 24.580 / 2.936 (a clean clone printed 8.352
 * beside levels whose printed figures give 8.475). */
TEST(ratio_from_the_printed_figures)
{
	static struct contention_source s;
	memset(&s, 0, sizeof s);
	s.measured = true;
	s.level_count = 2;
	s.level[0] = (struct contention_level){ .cpus = 1, .measured = 1, .estimate_milli = 2936, .se_milli = 1200,
						.se_known = true };
	s.level[1] = (struct contention_level){ .cpus = 2, .measured = 2, .estimate_milli = 24580, .se_milli = 1500,
						.se_known = true };
	contention_source_finish(&s);
	CHECK(s.ratio_known);
	CHECK_EQ_U64(s.ratio_milli, 8482); /* 24.6 / 2.9 = 8.4827 */
	/* A 1-CPU figure that prints as 0 is nothing to divide by. */
	s.level[0].estimate_milli = 40;
	s.level[0].se_milli = 2000;
	contention_source_finish(&s);
	CHECK(!s.ratio_known && strstr(s.ratio_reason, "1-CPU"));
}
