/* The measurement engine: read cost, throughput and behaviour of any clock
 * source, known only through struct clock_source / source_desc. */
#ifndef CP_MEASURE_H
#define CP_MEASURE_H
#include "source.h"
#include "stats.h"
#include "readpath.h"
#include "pvclock.h"
#include "vmclock.h"

/* Samples per interrupt-masked window: short against the firmware's 10 ms
 * tick, long enough to amortise the mask/unmask around it. */
#define MEASURE_WINDOW_SAMPLES 128
#define MEASURE_BATCH_READS 256
#define MEASURE_BATCHES 9

/* Per-call cost of one operation.  Every window of samples is paired with
 * a window of the empty harness taken right before it, in the same masked
 * stretch, and the pair's harness median is what that window subtracts. */
struct op_cost {
	struct dist cycles;       /* per call, the paired harness median subtracted */
	struct dist harness;      /* the interleaved empty harness, raw */
	uint64_t harness_window_p50_min, harness_window_p50_max;
	uint32_t windows;         /* harness/op window pairs kept */
	/* Unbiased cost: mean of raw reads minus mean of the interleaved
	 * harness, both trimmed alike of outliers (a vCPU preempted inside a
	 * sample), x1000.  A counter that moves in steps makes every single
	 * sample a multiple of the step, but the phase of each sample against
	 * the step is random, so the means keep what the medians lose. */
	int64_t estimate_milli;
	const char *estimate_method; /* "interleaved_mean" | "batch_net" */
	uint32_t estimate_trimmed;   /* samples left out of the means */
	uint64_t step_ticks;      /* the TSC's step in this run (0 = not observable) */
	bool below_resolution;    /* net cost under two steps: percentiles mean nothing */
	/* Per call in a back-to-back batch, x1000: the raw batch mean, loop and
	 * call overhead included, as peer exit-cost benchmarks (kvm-unit-tests
	 * vmexit) report it; _net has the empty batch's mean subtracted. */
	uint64_t throughput_milli;
	uint64_t throughput_net_milli;
	uint32_t batch_pairs;     /* batch pairs behind the two figures above */
	uint32_t windows_discarded; /* interrupts found enabled at the end */
	uint32_t below_harness;   /* samples cheaper than their harness median */
	uint32_t at_harness;      /* samples equal to it: clamped to 0 as well */
	bool deadline_hit;        /* the time budget ended sampling early */
	struct log2_hist hist;
};

/* How the TSC's own step was established (baselines.tsc_step). */
struct tsc_step {
	uint64_t ticks;           /* 0 = not observable */
	uint32_t pairs, stalls;   /* back-to-back pairs read, pairs with equal values */
	uint64_t min_nonzero, max_nonzero;
	const char *method;
};

struct behaviour {
	uint32_t reads;
	uint32_t forward, same, wraps, backward;
	uint64_t min_step_ticks;   /* smallest non-zero forward step */
	uint64_t max_backward_ticks;
	bool frozen;               /* every read returned the same value */
};

/* What a source learned beyond its read cost.  Each source fills its own
 * member through its collect hook; everything else reads it here, in the
 * run's results, never through the source's file. */
struct kvmclock_facts {
	bool registered;
	uint32_t msr;
	struct op_cost msr_write; /* registering the page: a VM exit */
	struct op_cost msr_read;
	struct pvclock_time_info snapshot; /* fields after registration */
	bool stable;              /* flag set and CPUID bit 24 allows honouring it */
	uint64_t tsc_hz;          /* implied by mul/shift */
	uint32_t retries;         /* version changes seen while reading */
};

struct hpet_facts {
	bool read;                /* capabilities were read */
	uint64_t capabilities;    /* the general capabilities register */
	bool enabled_by_probe;    /* the probe started a halted counter */
};

struct acpi_pm_facts {
	unsigned fadt_width_bits;
	const char *width_evidence; /* why 24 or 32 bits */
};

struct hv_tsc_page_facts {
	struct hv_ref_tsc_page snapshot; /* the page as prepare found it */
	uint32_t invalid_reads;
};

/* The VMClock page as prepare read it (src/sources/vmclock.c). */
struct vmclock_facts {
	bool page_read;           /* a snapshot passed the seqcount */
	uint64_t address, length; /* the _CRS range */
	const char *address_basis; /* which firmware map set it aside */
	int check;                /* enum vmclock_check of the page */
	struct vmclock_page page;
	uint32_t snapshot_retries; /* failed seqcount tries taking it */
	uint32_t read_retries;    /* failed tries during the measured reads */
	uint32_t busy_reads;      /* measured reads that gave up on the seqcount */
	uint64_t counter_hz;      /* the advertised counter period as a rate, 0 when none */
};

struct source_facts {
	struct kvmclock_facts kvmclock;
	struct hpet_facts hpet;
	struct acpi_pm_facts acpi_pm;
	struct hv_tsc_page_facts hv_tsc_page;
	struct vmclock_facts vmclock;
};

struct source_result {
	const struct clock_source *src;
	struct source_desc desc;
	enum source_status status;
	struct op_cost cost;
	struct behaviour behaviour;
	struct source_facts facts;
	enum read_path read_path;
	char read_path_basis[200]; /* which yardsticks decided the label */
};

struct baselines {
	struct op_cost harness; /* not subtracted from itself */
	struct op_cost cpuid;
	struct op_cost port;
	struct op_cost kernel_port;
	uint16_t unassigned_port;
	uint16_t kernel_port_number;
	struct tsc_step step;
	/* Min/max of every interleaved harness window's median, all sources. */
	uint64_t harness_window_p50_min, harness_window_p50_max;
	uint32_t harness_windows;
};

/* Which fence orders RDTSC on this CPU, and how that was established. */
enum stamp_fence { STAMP_FENCE_LFENCE, STAMP_FENCE_MFENCE };
struct serialization {
	enum stamp_fence fence;
	bool lfence_serializing;
	const char *evidence;
	bool de_cfg_read;         /* AMD DE_CFG (MSR 0xC0011029) was read */
	int de_cfg_fault;         /* its read faulted: the vector */
	uint64_t de_cfg;
};

struct measure_plan {
	uint32_t samples;
	uint64_t budget_cycles; /* per source */
	uint64_t window_deadline_cycles;
	uint64_t *scratch;      /* samples entries */
	uint64_t *harness_scratch; /* samples entries, for the interleaved harness */
};

/* Chooses the serialized time-stamp pair for this CPU; returns its
 * description for the report's method field. */
const char *measure_init(const struct serialization *ser, bool have_rdtscp);
/* Picks the RDTSC fence for the stamps on this CPU (serialize.c). */
void serialization_choose(struct serialization *out, const struct cpu_info *cpu);
const char *measure_method(void);

/* Measures any argument-less operation (a source read, CPUID, a port read,
 * an MSR access) the same way: per-call distribution with the empty
 * harness subtracted, and batch throughput. */
void measure_op(struct op_cost *out, uint64_t (*op)(void), const struct measure_plan *plan);
void measure_baselines(struct baselines *b, const struct measure_plan *plan);
/* The TSC step of this run (0 = not observable), as measure_baselines found it. */
uint64_t measure_tsc_step(void);
void measure_behaviour(struct behaviour *out, const struct source_desc *d, const struct measure_plan *plan);

/* One reference reading for a rate or an offset: of `tries` reads, the one
 * with the narrowest TSC bracket (an interrupt or a preempted vCPU widens
 * it); returns the raw value, with the bracket's midpoint and width
 * (stamp.c).  The frequency window and the watch both time against it. */
uint64_t measure_stamp(const struct source_desc *d, unsigned tries, uint64_t *tsc_mid, uint64_t *bracket);
#endif
