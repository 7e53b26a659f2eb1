/* The measurement engine: read cost, throughput and behaviour of any clock
 * source, known only through struct clock_source / source_desc. */
#ifndef CP_MEASURE_H
#define CP_MEASURE_H
#include "source.h"
#include "stats.h"

/* Samples per interrupt-masked window: short against the firmware's 10 ms
 * tick, long enough to amortise the mask/unmask around it. */
#define MEASURE_WINDOW_SAMPLES 128
#define MEASURE_BATCH_READS 256
#define MEASURE_BATCHES 9

struct op_cost {
	struct dist cycles;       /* per call, harness subtracted */
	/* Per call in a back-to-back batch, x1000: the raw batch mean, loop and
	 * call overhead included, as peer exit-cost benchmarks (kvm-unit-tests
	 * vmexit) report it; _net has the empty batch's mean subtracted. */
	uint64_t throughput_milli;
	uint64_t throughput_net_milli;
	uint32_t windows_discarded; /* interrupts found enabled at the end */
	uint32_t below_harness;   /* samples cheaper than the harness median */
	bool deadline_hit;        /* the time budget ended sampling early */
	struct log2_hist hist;
};

struct behaviour {
	uint32_t reads;
	uint32_t forward, same, wraps, backward;
	uint64_t min_step_ticks;   /* smallest non-zero forward step */
	uint64_t max_backward_ticks;
	bool frozen;               /* every read returned the same value */
};

struct source_result {
	const struct clock_source *src;
	struct source_desc desc;
	enum source_status status;
	struct op_cost cost;
	struct behaviour behaviour;
	const char *read_path;
};

struct baselines {
	struct op_cost harness; /* not subtracted from itself */
	struct op_cost cpuid;
	struct op_cost port;
	uint16_t unassigned_port;
};

struct measure_plan {
	uint32_t samples;
	uint64_t budget_cycles; /* per source */
	uint64_t window_deadline_cycles;
	uint64_t *scratch;      /* samples entries */
};

/* Chooses the serialized time-stamp pair for this CPU; returns its
 * description for the report's method field. */
const char *measure_init(bool have_rdtscp);
const char *measure_method(void);

/* Measures any argument-less operation (a source read, CPUID, a port read,
 * an MSR access) the same way: per-call distribution with the empty
 * harness subtracted, and batch throughput. */
void measure_op(struct op_cost *out, uint64_t (*op)(void), const struct measure_plan *plan);
void measure_baselines(struct baselines *b, const struct measure_plan *plan);
void measure_behaviour(struct behaviour *out, const struct source_desc *d, const struct measure_plan *plan);
#endif
