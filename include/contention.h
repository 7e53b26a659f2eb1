/* Clock reads under load: every ok source's read cost with 1, 2, 4, ... N
 * CPUs reading it at once (N = every CPU the probe started), the same
 * interleaved harness on each CPU, and whether the CPUs asked to run
 * together really did (a presence scan on each: time a CPU did not run
 * our code while the others read).
 *
 * The figures (this header) are plain data; src/analysis/contention.c
 * turns per-CPU figures into a level's (pure, host-tested);
 * src/measure/contention.c runs the rounds on the CPUs. */
#ifndef CP_CONTENTION_H
#define CP_CONTENTION_H
#include "util.h"
#include "source_registry.h"

#define CONTENTION_MAX_CPUS 64
/* 1, 2, 4, ... 64: seven levels; an N that is no power of two adds one. */
#define CONTENTION_MAX_LEVELS 8

/* One CPU's reading at one level. */
struct contention_cpu {
	uint32_t cpu;            /* cpu_list index */
	bool measured;
	int64_t estimate_milli;  /* the engine's estimate, TSC ticks x1000 */
	uint64_t se_milli;       /* its standard error (op_cost.estimate_se_milli) */
	/* The engine gives 0 where it cannot tell (one sample window, no
	 * batch pairs: quick mode's 128 samples are one window): an SE of 0
	 * beside a non-zero estimate is unknown, not exact. */
	bool se_known;
	uint64_t p50, p99;       /* per-call percentiles, TSC ticks */
	uint32_t samples;
	uint64_t start, end;     /* TSC at the first and last stamp of its measurement */
};

/* One source at one level: k CPUs reading it at once. */
struct contention_level {
	uint32_t cpus;           /* CPUs asked to read at once */
	uint32_t measured;       /* of those, with a figure */
	int64_t estimate_milli;  /* mean of the per-CPU estimates: the cost of one read */
	uint64_t se_milli;       /* of that mean: sqrt(sum of the per-CPU SE^2) / k */
	bool se_known;           /* every measured CPU's SE is known */
	uint64_t p50, p99;       /* pooled over every CPU's samples */
	int64_t cpu_min_milli, cpu_max_milli; /* the spread of the per-CPU estimates */
	/* The share of the CPUs' reading windows during which every CPU of
	 * the level was reading (mean over the CPUs), ppm: each keeps reading
	 * until the last has its samples, so what is missing is a CPU that
	 * started late (contention_all_reading_ppm). */
	uint32_t all_reading_ppm;
	struct contention_cpu cpu[CONTENTION_MAX_CPUS];
};

struct contention_source {
	bool measured;
	enum source_id id;
	uint32_t level_count;
	struct contention_level level[CONTENTION_MAX_LEVELS];
	/* The N-CPU estimate over the 1-CPU one, x1000, when ratio_known (0 is
	 * then a measured ratio: the top level's estimate is 0); else
	 * ratio_reason says why there is none (NULL: never computed). */
	uint64_t ratio_milli;
	bool ratio_known;
	const char *ratio_reason;
};

/* Who ran while k CPUs were asked to run together: each CPU's share of a
 * presence window spent running our code (a back-to-back TSC loop; a
 * delta over the gap threshold is time it did not run). */
struct contention_presence {
	uint32_t cpus;
	bool measured;
	uint64_t window_ms;
	uint32_t share_ppm[CONTENTION_MAX_CPUS]; /* per CPU, by position */
	/* Sum of the shares: how many CPUs ran at once on average, x1000. */
	uint32_t ran_together_milli;
	/* Fewer ran together than were asked to (contention_presence_finish()). */
	bool outnumbered;
};

struct contention_result {
	bool requested, ran;
	const char *reason;       /* why it did not run (NULL when it did) */
	char stopped_reason[REASON_LEN]; /* why it ended early, or which CPU did not answer ("" none) */
	uint32_t cpus;            /* N: CPUs that took part, the BSP included */
	uint32_t cpus_enabled;    /* CPUs the run found enabled */
	uint32_t order[CONTENTION_MAX_CPUS]; /* cpu_list index by position (0 = the BSP) */
	/* Enabled CPUs the stage holds no position for (issue 41): "not
	 * tested: CPUs 64-299 (236), the stage holds 64" (cpu_plan.h); "" none. */
	char not_tested[REASON_LEN];
	uint32_t not_tested_count;
	uint32_t samples;         /* per CPU and source at each level */
	uint32_t budget_ms;       /* per CPU and source, the engine's budget */
	uint32_t stage_budget_ms; /* the whole stage: a level that would not fit is left out */
	uint32_t gather_ms_max;   /* longest a level's new CPUs took to reach the barrier */
	uint64_t elapsed_ms;      /* the stage, start to end */
	uint32_t level_count;
	uint32_t levels[CONTENTION_MAX_LEVELS];
	struct contention_presence presence[CONTENTION_MAX_LEVELS];
	uint32_t source_count;
	struct contention_source src[SOURCE_ID_COUNT];
};

/* 1, 2, 4, ... up to n, and n itself when it is no power of two;
 * returns how many (at most cap). */
uint32_t contention_levels(uint32_t n, uint32_t *levels, uint32_t cap);

/* A level from its CPUs' figures (cpu[] and cpus filled, the per-CPU
 * samples sorted ascending in sorted[i], lens[i] of them): mean, SE,
 * spread, pooled percentiles, share of the windows all were reading. */
void contention_level_finish(struct contention_level *l, const uint64_t *const *sorted, const uint32_t *lens);

/* The value at per_100000 of the union of k sorted arrays (the same rank
 * rule as stats_percentile_sorted: ceil(p * n)); 0 when all are empty. */
uint64_t contention_pooled_percentile(const uint64_t *const *sorted, const uint32_t *lens, uint32_t k,
				      uint32_t per_100000);

/* k reading windows [start, end], every reader reading on after its own
 * window until the last window ends: the mean over the windows of the
 * share after the latest start, ppm (1000000 for one window). */
uint32_t contention_all_reading_ppm(const uint64_t *start, const uint64_t *end, uint32_t k);

/* A CPU's running share of a presence window: (window - lost) / window,
 * ppm. */
uint32_t contention_share_ppm(uint64_t window_cycles, uint64_t lost_cycles);

/* The presence's sum (ran_together_milli) and whether it falls short:
 * outnumbered when, on average, fewer than three quarters of the k CPUs
 * ran at once.  Never for k = 1. */
void contention_presence_finish(struct contention_presence *p);
/* A level's CPUs did not read together: the presence scan fell short, or
 * under three quarters of their reading windows had every CPU reading (a
 * CPU released with the others that only ran later).  Its figures then
 * also hold the host's scheduling.  Never for one CPU. */
bool contention_level_outnumbered(const struct contention_level *l, const struct contention_presence *p);

/* The fewest CPUs at which a level was outnumbered (the presence scan,
 * or any source's windows), 0 when none was. */
uint32_t contention_outnumbered_from(const struct contention_result *c);

/* The N/1 ratio of a source's curve (ratio_milli). */
void contention_source_finish(struct contention_source *s);


struct run_results;
struct measure_ctx;
/* The stage: every ok source, every level, on the CPUs the platform can
 * start together (src/measure/contention.c). */
void contention_run(struct contention_result *out, struct run_results *r, const struct measure_ctx *ctx);
#endif
