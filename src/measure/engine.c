/* Read-cost engine.  Every sample is a serialized time-stamp pair around
 * exactly one call through a function pointer; the same pair around a call
 * to an empty function is the harness, whose median is subtracted.  All
 * sampling runs in short interrupt-masked windows with no firmware call
 * inside; a window that ends with interrupts enabled is thrown away. */
#include "measure.h"
#include "arch.h"
#include "counter.h"

static bool end_with_rdtscp;
static uint64_t harness_p50;
static volatile uint64_t sink; /* keeps read results observable */

static const char method_rdtscp[] =
	"lfence;rdtsc;lfence | read | rdtscp;lfence (RDTSCP waits for the read to complete), "
	"minus the median of the same pair around an empty call";
static const char method_lfence[] =
	"lfence;rdtsc;lfence | read | lfence;rdtsc;lfence (no RDTSCP on this CPU), "
	"minus the median of the same pair around an empty call";

static inline __attribute__((always_inline)) uint64_t stamp_begin(void) { return tsc_stamp_begin(); }

static inline __attribute__((always_inline)) uint64_t stamp_end(bool rdtscp_end)
{
	return rdtscp_end ? tsc_stamp_end_rdtscp() : tsc_stamp_end_lfence();
}

const char *measure_init(bool have_rdtscp)
{
	end_with_rdtscp = have_rdtscp;
	return measure_method();
}

const char *measure_method(void) { return end_with_rdtscp ? method_rdtscp : method_lfence; }


static __attribute__((aligned(16))) uint64_t empty_op(void) { return 0; }

/* One masked window of per-call samples; returns how many were taken. */
static inline __attribute__((always_inline)) uint32_t
sample_window(uint64_t (*op)(void), uint64_t *out, uint32_t n, uint64_t deadline, bool rdtscp_end)
{
	uint64_t acc = 0;
	uint32_t i;
	for (i = 0; i < n; i++) {
		uint64_t t0 = stamp_begin();
		acc ^= op();
		uint64_t t1 = stamp_end(rdtscp_end);
		out[i] = t1 - t0;
		if (t1 > deadline) {
			i++;
			break;
		}
	}
	sink = acc;
	return i;
}

/* Out of line and cache-line aligned, so the timed loop's code never
 * straddles a page: under TCG a loop split across two pages cannot chain
 * its translated blocks and ran ~5x slower depending on where the linker
 * happened to put it (harness throughput 101 instead of 21 cycles). */
static __attribute__((noinline, aligned(64))) uint64_t batch_cycles(uint64_t (*op)(void), uint32_t reads)
{
	uint64_t acc = 0;
	uint64_t t0 = stamp_begin();
	for (uint32_t i = 0; i < reads; i++)
		acc ^= op();
	uint64_t t1 = stamp_end(end_with_rdtscp);
	sink = acc;
	return t1 - t0;
}

/* How many back-to-back calls fit one masked window: a slow source (an
 * MMIO exit of tens of microseconds under nested virtualization) gets
 * fewer, so no window keeps interrupts off much past its deadline. */
#define WINDOW_CALLS_MIN 16 /* keeps the stamps' own cost small per call */

static uint32_t calls_per_window(uint64_t (*op)(void), const struct measure_plan *plan, uint32_t max)
{
	/* Best of three: the first run can include one-off costs (a cold
	 * cache, TCG translating the loop). */
	uint64_t c = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		bool was_on = irq_save();
		uint64_t t = batch_cycles(op, 4) / 4;
		irq_restore(was_on);
		c = MIN(c, t);
	}
	uint64_t n = c ? plan->window_deadline_cycles / c : max;
	return (uint32_t)(n < WINDOW_CALLS_MIN ? WINDOW_CALLS_MIN : n > max ? max : n);
}

/* Median over several batches, each timed with interrupts masked. */
static uint64_t throughput_milli(uint64_t (*op)(void), uint32_t reads, const struct measure_plan *plan)
{
	uint64_t per_batch[MEASURE_BATCHES];
	uint64_t deadline = rdtsc() + plan->budget_cycles;
	uint32_t n = 0;
	for (uint32_t b = 0; b < MEASURE_BATCHES; b++) {
		bool was_on = irq_save();
		uint64_t c = batch_cycles(op, reads);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			per_batch[n++] = c;
		if (rdtsc() > deadline && n)
			break;
	}
	if (!n)
		return 0;
	stats_sort_u64(per_batch, n);
	return per_batch[n / 2] * 1000 / reads;
}

static void sample_op(struct op_cost *out, uint64_t (*op)(void), const struct measure_plan *plan, uint32_t *taken)
{
	uint64_t start = rdtsc();
	uint64_t deadline = start + plan->budget_cycles;
	uint32_t n = 0;
	/* Bounded twice: by the sample count (each pass adds a window or counts
	 * a discarded one) and by the TSC deadline. */
	for (uint32_t pass = 0; n < plan->samples && pass < plan->samples; pass++) {
		uint32_t want = MIN(MEASURE_WINDOW_SAMPLES, plan->samples - n);
		uint64_t window_deadline = MIN(deadline, rdtsc() + plan->window_deadline_cycles);
		bool was_on = irq_save();
		uint32_t got = end_with_rdtscp ? sample_window(op, plan->scratch + n, want, window_deadline, true)
					       : sample_window(op, plan->scratch + n, want, window_deadline, false);
		bool clean = !irq_enabled();
		irq_restore(was_on);
		if (clean)
			n += got;
		else
			out->windows_discarded++;
		if (rdtsc() > deadline) {
			out->deadline_hit = n < plan->samples;
			break;
		}
	}
	*taken = n;
}

void measure_op(struct op_cost *out, uint64_t (*op)(void), const struct measure_plan *plan)
{
	uint32_t n = 0;
	memset(out, 0, sizeof *out);
	log2_hist_init(&out->hist);
	/* Warm caches, TLB and the branch predictor before the first window. */
	for (int i = 0; i < 16; i++)
		sink = op();
	sample_op(out, op, plan, &n);
	out->below_harness = stats_subtract_harness(plan->scratch, n, harness_p50);
	stats_dist_compute(&out->cycles, plan->scratch, n);
	log2_hist_add_all(&out->hist, plan->scratch, n);
	/* The empty batch runs the same number of calls, so the stamps' fixed
	 * cost is spread alike and the difference is the op alone. */
	uint32_t reads = calls_per_window(op, plan, MEASURE_BATCH_READS);
	uint64_t t = throughput_milli(op, reads, plan);
	uint64_t h = throughput_milli(empty_op, reads, plan);
	out->throughput_milli = t;
	out->throughput_net_milli = t > h ? t - h : 0;
}

static uint16_t unassigned_port;
/* Port 0xED: Linux's alternative io_delay port, chosen there because no PC
 * device decodes it, so a read is harmless everywhere and, in a VM, an exit
 * that the device model answers with nobody behind it. */
#define UNASSIGNED_PORT 0xed

static uint64_t op_cpuid(void)
{
	uint32_t r[4];
	cpuid_raw(0, 0, r);
	return r[0];
}

static uint64_t op_port_read(void) { return inb(unassigned_port); }

void measure_baselines(struct baselines *b, const struct measure_plan *plan)
{
	uint32_t n = 0;
	memset(b, 0, sizeof *b);
	for (int i = 0; i < 16; i++)
		sink = empty_op();
	sample_op(&b->harness, empty_op, plan, &n);
	stats_dist_compute(&b->harness.cycles, plan->scratch, n);
	log2_hist_init(&b->harness.hist);
	log2_hist_add_all(&b->harness.hist, plan->scratch, n);
	harness_p50 = b->harness.cycles.p50;
	b->harness.throughput_milli =
		throughput_milli(empty_op, calls_per_window(empty_op, plan, MEASURE_BATCH_READS), plan);

	measure_op(&b->cpuid, op_cpuid, plan);
	unassigned_port = UNASSIGNED_PORT;
	b->unassigned_port = unassigned_port;
	measure_op(&b->port, op_port_read, plan);
}

void measure_behaviour(struct behaviour *out, const struct source_desc *d, const struct measure_plan *plan)
{
	memset(out, 0, sizeof *out);
	uint64_t deadline = rdtsc() + plan->budget_cycles;
	uint64_t *v = plan->scratch;
	uint32_t n = 0;
	/* Raw values back to back, in masked windows; pairs are only compared
	 * inside a window, where nothing else ran between two reads. */
	out->min_step_ticks = UINT64_MAX;
	uint32_t per_window = calls_per_window(d->read, plan, MEASURE_WINDOW_SAMPLES);
	for (uint32_t pass = 0; n < plan->samples && pass < plan->samples; pass++) {
		uint32_t want = MIN(per_window, plan->samples - n);
		bool was_on = irq_save();
		for (uint32_t i = 0; i < want; i++)
			v[n + i] = d->read();
		irq_restore(was_on);
		for (uint32_t i = 1; i < want; i++) {
			uint64_t dist;
			enum counter_step s = counter_step_classify(v[n + i - 1], v[n + i], d->width_bits,
								   d->counts_down, &dist);
			out->reads++;
			switch (s) {
			case COUNTER_STEP_SAME: out->same++; break;
			case COUNTER_STEP_WRAP: out->wraps++; /* fall through */
			case COUNTER_STEP_FORWARD:
				out->forward++;
				if (dist < out->min_step_ticks)
					out->min_step_ticks = dist;
				break;
			case COUNTER_STEP_BACKWARD:
				out->backward++;
				if (dist > out->max_backward_ticks)
					out->max_backward_ticks = dist;
				break;
			}
		}
		n += want;
		if (rdtsc() > deadline)
			break;
	}
	if (out->min_step_ticks == UINT64_MAX)
		out->min_step_ticks = 0;
	out->frozen = out->reads > 0 && out->forward == 0 && out->backward == 0;
}
