/* The TSC against every reference at once (HPET, PM timer, PIT, and
 * kvm-clock when present), over FREQ_WINDOWS windows: each reference is
 * stamped at a window's start and end, each stamp bracketed by two of the
 * CPU's ordered TSC reads so its moment is known to within half the
 * bracket, and narrow counters are followed through the window often
 * enough to count their wraps.  What the windows mean is decided by
 * freq_decide() (src/analysis/freq_decide.c, pure). */
#include "freq.h"
#include "measure.h"
#include "arch_api.h"
#include "counter.h"
#include "fault.h"
#include "rate.h"
#include "results.h"

#define STAMP_TRIES 16
#define FOLLOW_EVERY_CYCLES_MS 5 /* far below the PIT's 55 ms and PM's 4.7 s wraps */

static const enum source_id ref_ids[FREQ_REF_COUNT] = { SOURCE_ID_HPET, SOURCE_ID_ACPI_PM, SOURCE_ID_PIT };

struct reference {
	const struct source_result *src;
	struct counter_ext ext;
	uint64_t tsc_start, tsc_end; /* bracket midpoints */
	uint64_t bracket_start, bracket_end;
	uint64_t ticks;              /* extended, start to end */
	uint64_t last_read;          /* TSC at its last read */
	uint64_t gap_limit;          /* 3/4 of its wrap period in TSC cycles; 0 = no wrap to fear */
	uint64_t widest_gap;         /* the longest time between two of its reads */
};

/* Three quarters of the counter's wrap period in TSC cycles: a gap
 * between two reads of a whole period hides a wrap, and the extension
 * then counts one period short; the quarter left is room for the rough
 * TSC rate the cycles come from.  0 for counters that do not wrap within
 * hours. */
static uint64_t gap_limit_cycles(const struct source_desc *d, const struct probe_facts *f)
{
	if (!d->freq_hz || d->width_bits == 0 || d->width_bits >= 40)
		return 0;
	return mul_div_u64(counter_mask(d->width_bits) + 1, facts_ms_to_cycles(f, 1000) / 4 * 3, d->freq_hz);
}

static void note_read(struct reference *ref, uint64_t now)
{
	if (now - ref->last_read > ref->widest_gap)
		ref->widest_gap = now - ref->last_read;
	ref->last_read = now;
}

static uint64_t stamp(struct freq_result *out, const struct measure_ctx *ctx, const struct source_desc *d,
		      uint64_t *tsc_mid, uint64_t *bracket)
{
	out->stamp_tries += STAMP_TRIES;
	return measure_stamp(ctx, d, STAMP_TRIES, tsc_mid, bracket);
}

static void advertised(struct freq_result *out, const struct run_results *r)
{
	const struct probe_facts *f = &r->facts;
	/* 0x15 is only a TSC rate when the crystal is enumerated; Linux reads
	 * it on Intel only but the leaf means the same wherever it exists. */
	if (f->cpu.leaf15.valid)
		out->hz[FREQ_CPUID_15] = f->cpu.leaf15.tsc_hz;
	if (f->cpu.leaf16.valid)
		out->hz[FREQ_CPUID_16] = (uint64_t)f->cpu.leaf16.base_mhz * 1000000;
	if (f->hv.timing.valid)
		out->hz[FREQ_HYPERVISOR_LEAF] = (uint64_t)f->hv.timing.tsc_khz * 1000;
	out->hz[FREQ_PVCLOCK] = results_facts(r, SOURCE_ID_KVMCLOCK)->kvmclock.tsc_hz;
	if (r->vmware.gethz_valid)
		out->hz[FREQ_VMWARE_GETHZ] = r->vmware.tsc_hz;
	/* Hyper-V's frequency register, where its privilege and feature bits
	 * offer it (arch_impl.h). */
	uint64_t hv_hz;
	if (tb_hz_hypervisor_register(f->hv.hyperv.frequency_msrs, &hv_hz))
		out->hz[FREQ_HYPERV_MSR] = hv_hz;
}

static uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz) { return mul_div_u64(ticks, 1000000000ull, hz); }

/* One window: every reference stamped at both ends and followed between. */
static void one_window(struct freq_result *out, struct reference *refs, const struct measure_ctx *ctx,
		       const struct probe_facts *f, uint32_t w)
{
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		if (!refs[i].src)
			continue;
		const struct source_desc *d = &refs[i].src->desc;
		uint64_t raw = stamp(out, ctx, d, &refs[i].tsc_start, &refs[i].bracket_start);
		counter_ext_init(&refs[i].ext, d->width_bits, d->counts_down, raw);
		refs[i].last_read = refs[i].tsc_start;
		refs[i].widest_gap = 0;
		refs[i].gap_limit = gap_limit_cycles(d, f);
	}
	uint64_t start = tb_now();
	uint64_t window = facts_ms_to_cycles(f, out->window_each_ms);
	uint64_t follow = facts_ms_to_cycles(f, FOLLOW_EVERY_CYCLES_MS);
	uint64_t next = start + follow;
	/* Bounded by the deadline and by an iteration cap (a frozen TSC ends
	 * it through the cap), the window's spins at the measured spin cost. */
	uint64_t cap = facts_spin_cap(f, window);
	for (uint64_t spins = 0; spins < cap; spins++) {
		uint64_t now = tb_now();
		if (now - start >= window)
			break;
		if (now >= next) {
			for (int i = 0; i < FREQ_REF_COUNT; i++)
				if (refs[i].src) {
					counter_ext_feed(&refs[i].ext, refs[i].src->desc.read());
					note_read(&refs[i], now);
				}
			next = now + follow;
		}
		cpu_relax();
	}
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		if (!refs[i].src)
			continue;
		const struct source_desc *d = &refs[i].src->desc;
		uint64_t raw = stamp(out, ctx, d, &refs[i].tsc_end, &refs[i].bracket_end);
		refs[i].ticks = counter_ext_feed(&refs[i].ext, raw);
		note_read(&refs[i], refs[i].tsc_end);
		struct freq_window *fw = &out->refs[i].w[w];
		if (refs[i].gap_limit && refs[i].widest_gap > refs[i].gap_limit) {
			/* The window is not used: its tick count may be a whole
			 * wrap short; the report says why. */
			uint64_t per_us = facts_ms_to_cycles(f, 1) / 1000;
			fw->unseen_gap_us = per_us ? refs[i].widest_gap / per_us : 0;
			fw->wrap_us = mul_div_u64(counter_mask(d->width_bits) + 1, 1000000, d->freq_hz);
			continue;
		}
		uint64_t tsc_delta = refs[i].tsc_end - refs[i].tsc_start;
		uint64_t hz = refs[i].ticks ? rate_from_window(tsc_delta, d->freq_hz, refs[i].ticks) : 0;
		if (!hz)
			continue;
		fw->hz = hz;
		uint64_t read_ns = rate_cycles_to_ns((refs[i].bracket_start + refs[i].bracket_end) / 2, hz);
		fw->bound_mppm = rate_window_uncertainty_mppm(d->freq_hz, read_ns, rate_cycles_to_ns(tsc_delta, hz));
		out->refs[i].windows++;
	}
}

void freq_measure(struct freq_result *out, struct run_results *r, const struct measure_ctx *ctx, uint32_t window_ms)
{
	memset(out, 0, sizeof *out);
	advertised(out, r);
	const struct probe_facts *f = &r->facts;
	struct reference refs[FREQ_REF_COUNT];
	bool backward[FREQ_REF_COUNT];
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		memset(&refs[i], 0, sizeof refs[i]);
		refs[i].src = results_source_ok(r, ref_ids[i]);
		backward[i] = refs[i].src && refs[i].src->behaviour.backward;
	}
	const struct source_result *kvmclock = results_source_ok(r, SOURCE_ID_KVMCLOCK);
	out->shared_host_clock = f->hv.present;
	out->window_ms = window_ms;
	/* The stage's time stays what mode= sized it: its window cut in
	 * FREQ_WINDOWS, none shorter than FREQ_WINDOW_MIN_MS. */
	out->windows = window_ms ? MIN((uint32_t)FREQ_WINDOWS, MAX(1u, window_ms / FREQ_WINDOW_MIN_MS)) : 0;
	out->window_each_ms = out->windows ? window_ms / out->windows : 0;

	uint64_t kvm_start = 0, kvm_start_tsc = 0, kvm_end = 0, kvm_end_tsc = 0, bracket;
	if (kvmclock && out->windows)
		kvm_start = stamp(out, ctx, &kvmclock->desc, &kvm_start_tsc, &bracket);
	for (uint32_t w = 0; w < out->windows; w++)
		one_window(out, refs, ctx, f, w);
	if (kvmclock && out->windows)
		kvm_end = stamp(out, ctx, &kvmclock->desc, &kvm_end_tsc, &bracket);
	freq_decide(out, backward, f->tsc_hz_rough, f->tsc_hz_rough_source);

	/* kvm-clock against real time: the TSC at its measured rate, over
	 * every window at once. */
	if (kvmclock && out->chosen_key >= 0 && out->drift_count < FREQ_MAX_DRIFT) {
		uint64_t tsc_ns = ticks_to_ns(kvm_end_tsc - kvm_start_tsc, out->chosen_hz);
		struct freq_drift *d = &out->drift[out->drift_count];
		if (tsc_ns && rate_ppm_diff_milli(kvm_end - kvm_start, tsc_ns, &d->ppm_milli)) {
			d->a = SOURCE_ID_KVMCLOCK;
			d->b = SOURCE_ID_TSC;
			d->basis = out->chosen_name;
			d->uncertainty_mppm = out->measured_uncertainty_mppm[out->chosen_key];
			d->window_ms = window_ms;
			out->drift_count++;
		}
	}
}
