/* Gap detection over a back-to-back TSC loop run with interrupts masked:
 * every delta between consecutive readings above a threshold is time the
 * vCPU (or CPU, for SMIs) did not run our code.  Online: the engine feeds
 * each pair as it reads it and keeps no sample array. */
#ifndef CP_GAPS_H
#define CP_GAPS_H
#include "util.h"
#include "stats.h"

#define GAPS_FIRST_N 8

struct gap_event {
	uint64_t offset;	/* cycles from window start to the gap's start */
	uint64_t size;		/* the whole delta, in cycles */
};

struct gaps {
	uint64_t threshold;	/* a delta strictly above this is a gap */
	uint64_t window_start;
	uint64_t window;	/* cycles, set by gaps_finish */
	uint64_t reads;		/* pairs fed */
	uint64_t count, max, total;
	uint64_t backward;	/* pairs with now < prev: not gaps, reported apart */
	uint32_t recorded;	/* valid entries in first[] */
	struct gap_event first[GAPS_FIRST_N];
	struct log2_hist hist;	/* of gap sizes, cycles */
};

void gaps_init(struct gaps *g, uint64_t threshold, uint64_t window_start);
void gaps_feed(struct gaps *g, uint64_t prev, uint64_t now);
/* Closes the window at window_end (the last TSC reading). */
void gaps_finish(struct gaps *g, uint64_t window_end);
/* total / window in ppm, rounded; 0 for an empty window. */
uint64_t gaps_share_ppm(const struct gaps *g);

/* max(10 us worth of cycles, 50 x the RDTSC p50): 10 us is far above any
 * cache miss or TLB walk inside the loop, and 50x keeps slow emulated
 * TSCs (TCG ~26 cycles per read, quantised) from flagging their own
 * jitter.  With tsc_hz unknown (0) only the 50x term applies. */
uint64_t gaps_threshold(uint64_t tsc_hz, uint64_t rdtsc_p50);

/* The scan's threshold from its own loop: max(10 us, 8 x the loop's
 * median round, or the TSC's step if larger).  A delta of a few rounds is
 * the loop itself (a trapped RDTSC takes ~15 us a round under nested KVM);
 * 8 rounds is time it did not run. */
uint64_t gaps_threshold_for_loop(uint64_t tsc_hz, uint64_t loop_cycles);
#endif
