/* Cross-CPU checks through the platform's "run on every AP" service:
 * per-CPU CPUID consistency of the timing bits, a Linux-style TSC warp test
 * and a round-trip skew estimate for every BSP<->AP pair, the same warp
 * test on kvm-clock readings when present, and (selftest) a deliberate
 * TSC_ADJUST offset on one AP to prove the test can fail. */
#ifndef CP_CROSSCPU_H
#define CP_CROSSCPU_H
#include "warp.h"
#include "platform.h"
#include "tsc_order.h"

/* Every CPU the platform lists. */
#define XCPU_MAX PLATFORM_MAX_CPUS
/* Waiting for APs that do not answer costs at most this, in all. */
#define XCPU_STALL_BUDGET_MS 2000

struct xcpu_cpu {
	uint32_t apic_id;
	bool bsp;
	bool arrived, tested;
	bool started;            /* the platform started it (cpu_list's enabled) */
	bool cpuid_consistent;
	enum tsc_read read;      /* this CPU's own ordered read (it chose it) */
	const char *read_why;
	uint64_t warps;          /* warps seen while this AP took part */
	uint64_t same_cpu_warps; /* of those, a CPU below its own last reading */
	uint64_t stalls;         /* readings equal to the last published one */
	uint64_t max_warp;
	struct warp_skew skew;
	uint64_t kvmclock_warps;
	/* Warp-loop rounds this AP actually ran in its pair's TSC phase, and
	 * the BSP's beside it (the loop ends at its deadline, not only at
	 * the configured count). */
	uint32_t iterations, bsp_iterations;
	bool past_budget;        /* not tried: the stage's budget was spent first */
};

/* Every CPU on one lock at once (Linux's check_tsc_warp runs every CPU
 * that way; kvm-unit-tests' kvmclock test too): AP<->AP orderings are
 * compared, not only BSP<->AP.  Time-bounded per CPU as Linux's loop is. */
struct xcpu_all {
	bool ran;
	const char *reason;          /* why it did not run, NULL when it did */
	char left_out[REASON_LEN];   /* members the platform could not gather, "" when none */
	uint32_t cpus;               /* CPUs that were on the lock, the BSP included */
	uint64_t window_ms;          /* each CPU's own loop time */
	uint64_t rounds;             /* lock rounds, every CPU together */
	uint64_t min_cpu_rounds;     /* the fewest one CPU ran */
	uint64_t handoffs;           /* rounds that followed another CPU's reading */
	uint64_t ap_ap_handoffs;     /* of those, one AP's after another AP's */
	uint32_t cpu_pairs_tested;   /* distinct CPU pairs one followed the other */
	uint32_t ap_pairs_tested;    /* of those, AP<->AP */
	uint64_t warps, same_cpu_warps, stalls, max_warp;
	uint32_t max_warp_cpu, max_warp_from; /* cpu_list indexes */
	uint64_t max_gap_cycles;     /* the longest a CPU went between its own rounds */
	uint32_t max_gap_cpu;
	uint64_t elapsed_us;         /* the phase, gathering included */
};

struct xcpu_selftest {
	bool requested, ran;
	bool honoured;           /* the AP's TSC moved by the written offset */
	bool tsc_adjust_honoured; /* through IA32_TSC_ADJUST */
	bool via_tsc_write;      /* TSC_ADJUST absent or ignored: IA32_TSC written */
	const char *honoured_basis; /* "pm_timer_bracket", or "none" (no clock to bracket with) */
	int moved;               /* enum xcpu_moved of the last write tried */
	int adjust_moved;        /* of the IA32_TSC_ADJUST write (when tried) */
	bool adjust_tried;
	int64_t jump_min, jump_max; /* the last write's jump, within these bounds (ticks) */
	uint32_t cpu;
	uint64_t offset_cycles;
	int64_t measured_skew;
	uint64_t warps;
	bool restored;
};

struct crosscpu_result {
	bool ran;
	const char *reason;      /* why the test did not run, NULL when it did */
	uint32_t cpus, tested;
	uint64_t warps, max_warp;
	uint64_t same_cpu_warps, stalls;
	/* An upper bound, not a measured skew: the largest |offset| + round-trip
	 * bound over the pairs (reported as skew_bound_cycles and, for old
	 * readers, max_skew_cycles). */
	uint64_t max_skew_cycles;
	uint32_t cpu_count;
	uint32_t not_started;    /* listed CPUs the platform never started */
	struct xcpu_cpu cpu[XCPU_MAX];
	bool kvmclock_tested;
	uint64_t kvmclock_warps, kvmclock_max_warp_ns;
	struct xcpu_selftest selftest;
	uint32_t iterations_per_pair; /* the configured cap per CPU and phase */
	uint64_t pair_iterations;     /* rounds actually run in the pairs' TSC phase, every CPU */
	uint32_t pair_iterations_min; /* the fewest one AP ran */
	struct xcpu_all all;
	/* The vCPUs did not run together: a round trip or a CPU's wait for
	 * the lock far longer than hardware takes (the host ran something
	 * else).  Warps seen stay real (the lock orders the reads); their
	 * absence, and the skew bound, prove less. */
	bool not_coscheduled;
	char not_coscheduled_reason[REASON_LEN];
	uint64_t elapsed_us;          /* the whole stage */
	const char *method;
	/* Why the phase ended before every CPU was tried; "" when it did not. */
	char stopped_reason[REASON_LEN];
	/* The pairs' overall budget (issue 41: hundreds of answering CPUs
	 * cost ~1 s each under an emulator), by mode= (cpu_plan.h) or
	 * xcpu_budget_ms=; watch mode's re-check: half its interval. */
	uint32_t budget_ms;
	uint32_t past_budget;    /* enabled APs left untried when it was spent */
	/* Every listed CPU without a tested pair, named: "not tested: CPUs
	 * 2-299 (298), never started 298" (cpu_plan_not_tested); "" none. */
	char not_tested[REASON_LEN];
	uint32_t not_tested_count;
};

struct run_results;
/* The all-CPU phase (crosscpu_all.c), after the pairs: each AP that
 * answered its pair, with the ordered read it chose there. */
void crosscpu_all_cpus(struct crosscpu_result *out, struct run_results *r, uint32_t bsp);
void crosscpu_run(struct crosscpu_result *out, struct run_results *r);
/* The warp test and skew estimate again, smaller (watch mode, each
 * interval): iterations per CPU and phase, each wait at most wait_ms,
 * unanswering APs at most stall_budget_ms in all, the pairs at most
 * budget_ms in all (the rest named in stopped_reason); no selftest, no
 * kvm-clock phase. */
void crosscpu_recheck(struct crosscpu_result *out, struct run_results *r, uint32_t iterations,
		      uint32_t wait_ms, uint32_t stall_budget_ms, uint32_t budget_ms);
#endif
