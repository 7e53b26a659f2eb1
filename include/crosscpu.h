/* Cross-CPU checks through the platform's "run on every AP" service:
 * per-CPU CPUID consistency of the timing bits, a Linux-style TSC warp test
 * and a round-trip skew estimate for every BSP<->AP pair, the same warp
 * test on kvm-clock readings when present, and (selftest) a deliberate
 * TSC_ADJUST offset on one AP to prove the test can fail. */
#ifndef CP_CROSSCPU_H
#define CP_CROSSCPU_H
#include "warp.h"
#include "platform.h"

#define XCPU_MAX 64
/* Waiting for APs that do not answer costs at most this, in all. */
#define XCPU_STALL_BUDGET_MS 2000

struct xcpu_cpu {
	uint32_t apic_id;
	bool bsp;
	bool arrived, tested;
	bool cpuid_consistent;
	uint64_t warps;          /* warps seen while this AP took part */
	uint64_t same_cpu_warps; /* of those, a CPU below its own last reading */
	uint64_t stalls;         /* readings equal to the last published one */
	uint64_t max_warp;
	struct warp_skew skew;
	uint64_t kvmclock_warps;
};

struct xcpu_selftest {
	bool requested, ran;
	bool honoured;           /* the AP's TSC moved by the written offset */
	bool tsc_adjust_honoured; /* through IA32_TSC_ADJUST */
	bool via_tsc_write;      /* TSC_ADJUST absent or ignored: IA32_TSC written */
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
	struct xcpu_cpu cpu[XCPU_MAX];
	bool kvmclock_tested;
	uint64_t kvmclock_warps, kvmclock_max_warp_ns;
	struct xcpu_selftest selftest;
	uint32_t iterations_per_pair;
	const char *method;
	/* Why the phase ended before every CPU was tried; "" when it did not. */
	char stopped_reason[REASON_LEN];
};

struct run_results;
void crosscpu_run(struct crosscpu_result *out, struct run_results *r);
/* The warp test and skew estimate again, smaller (watch mode, each
 * interval): iterations per CPU and phase, each wait at most wait_ms,
 * unanswering APs at most stall_budget_ms in all; no selftest, no
 * kvm-clock phase. */
void crosscpu_recheck(struct crosscpu_result *out, struct run_results *r, uint32_t iterations,
		      uint32_t wait_ms, uint32_t stall_budget_ms);
#endif
