/* Timing clock_gettime(CLOCK_MONOTONIC) inside the guest: per-call cost
 * (TSC-bracketed, empty bracket subtracted), a back-to-back batch timed by
 * the clock itself, consecutive deltas, and whether the vDSO entered the
 * kernel.  Also the TSC's step and rate.  Call on a pinned thread. */
#ifndef CP_GUEST_MEASURE_H
#define CP_GUEST_MEASURE_H
#include "guest.h"
#include "sys.h"

struct measure_cfg {
	uint32_t samples;	/* cap per measurement */
	uint32_t budget_ms;	/* time per measurement */
	bool rdtsc_ok;
	uint64_t tsc_khz;	/* 0: no ns conversion */
	uint64_t *scratch;	/* 2 * samples + 64 entries */
};

void measure_path(struct path_cost *out, clock_gettime_fn fn, const struct measure_cfg *cfg);
void measure_deltas(struct delta_stats *out, clock_gettime_fn fn, const struct measure_cfg *cfg);
/* In a child process under seccomp: calls that entered clock_gettime(2). */
void measure_vdso_check(struct vdso_check *out, clock_gettime_fn vdso, uint32_t calls);
void measure_tsc_step(struct guest_step *out, const struct measure_cfg *cfg);
/* The TSC's rate against CLOCK_MONOTONIC_RAW over window_ms; 0 on failure. */
uint64_t measure_tsc_khz(uint32_t window_ms, uint64_t *uncertainty_ppm, uint64_t *window_out_ms);
#endif
