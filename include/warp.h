/* Cross-CPU TSC synchronisation, two ways.
 *
 * 1. Warp test, as Linux's check_tsc_warp (arch/x86/kernel/tsc_sync.c):
 *    all CPUs loop on a shared lock; holding it, each reads its TSC,
 *    compares with the last value any CPU published, and publishes its
 *    own.  Because the lock orders the reads in real time, a reading
 *    below the previous one means the TSCs disagree by at least that
 *    much: a warp.  This module is the bookkeeping under the lock; the
 *    engine owns the lock and calls warp_observe while holding it.
 *
 * 2. Skew estimate from round trips: the BSP reads t0, the AP answers
 *    with its TSC t1, the BSP reads t2 on receipt.  The AP's read
 *    happened somewhere in [t0, t2] of BSP time, so
 *      offset = t1 - (t0 + t2) / 2     (AP minus BSP; > 0: AP ahead)
 *    is off by at most ceil((t2 - t0) / 2).  Asymmetric delays bias the
 *    estimate but never past that bound; the exchange with the smallest
 *    round trip gives the tightest bound and is the one kept. */
#ifndef CP_WARP_H
#define CP_WARP_H
#include "util.h"

struct warp_state {
	uint64_t last_tsc;
	uint32_t last_cpu;
	bool have_last;
	uint64_t observations;
	uint64_t warps;		/* readings below the last published one */
	uint64_t same_cpu_warps; /* of those, below the same CPU's own value */
	uint64_t equal;		/* readings equal to the last published one: the TSC stood still */
	uint64_t max_warp;	/* cycles */
	uint32_t max_warp_cpu;	/* the CPU that read the lower value */
	uint32_t max_warp_from;	/* the CPU that had published the higher one */
};

void warp_init(struct warp_state *s);
/* Call with the lock held.  Returns true when this reading is a warp. */
bool warp_observe(struct warp_state *s, uint32_t cpu, uint64_t now);

struct warp_skew {
	int64_t offset;		/* AP minus BSP, cycles */
	uint64_t bound;		/* |true offset - offset| <= bound */
	uint64_t rtt;		/* t2 - t0 of the exchange kept */
	uint32_t exchanges;	/* valid exchanges seen */
	uint32_t rejected;	/* exchanges with t2 < t0 (BSP TSC went back) */
	bool valid;
};

void warp_skew_init(struct warp_skew *e);
/* False (and ignored) when t2 < t0.  Offsets beyond +-2^63 cycles are
 * outside the estimator's range. */
bool warp_skew_add(struct warp_skew *e, uint64_t t0, uint64_t t1, uint64_t t2);
#endif
