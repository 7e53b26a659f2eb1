/* Measured costs in the report: the distribution and estimate fields every
 * op shares, and the baselines section (one entry of sources[] is in
 * report_sources.c).  A leaf: it calls no other file of the report. */
#include "report_parts.h"

uint64_t tsc_hz_for_ns(const struct run_results *r) { return results_tsc_hz(r); }

/* quantized: every name present, null, because under two steps of the
 * TSC a percentile is quantization, not a cost (read_cost.estimate_*). */
void dist_json(struct json *j, const char *key, const struct dist *d, uint64_t hz, bool as_ns, bool quantized)
{
	json_object_begin(j, key);
	const uint64_t v[] = { d->min, d->p50, d->p90, d->p99, d->p999, d->max, d->mean };
	const char *names[] = { "min", "p50", "p90", "p99", "p999", "max", "mean" };
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		if (quantized)
			json_null(j, names[i]);
		else if (as_ns)
			json_fixed(j, names[i], (int64_t)rate_cycles_to_ns_milli(v[i], hz), 3);
		else
			json_u64(j, names[i], v[i]);
	}
	json_object_end(j);
}

void histogram_json(struct json *j, const struct log2_hist *h)
{
	json_object_begin(j, "histogram");
	json_string(j, "unit", "cycles");
	json_array_begin(j, "log2_bins");
	int top = log2_hist_highest(h);
	for (int i = 0; i <= top; i++)
		json_u64(j, NULL, h->bins[i]);
	json_array_end(j);
	json_object_end(j);
}

void harness_pairing_json(struct json *j, const struct op_cost *c)
{
	json_object_begin(j, "harness");
	json_u64(j, "min", c->harness.min);
	json_u64(j, "p50", c->harness.p50);
	json_u64(j, "p90", c->harness.p90);
	json_u64(j, "max", c->harness.max);
	json_u64(j, "windows", c->windows);
	json_u64(j, "window_p50_min", c->harness_window_p50_min);
	json_u64(j, "window_p50_max", c->harness_window_p50_max);
	json_object_end(j);
}

/* A figure x1000 with its standard error x1000, both to the SE's
 * precision (two significant digits of it): key and key's _se twin, in
 * TSC ticks as `cycles_key`, in ns as `ns_key` (NULL: no ns; a NULL SE
 * key: no SE).  An SE the measurement could not give (se_known false) is
 * null, not a claimed 0. */
void measured_json(struct json *j, const char *cycles_key, const char *cycles_se_key, const char *ns_key,
		   const char *ns_se_key, int64_t milli, uint64_t se_milli, bool se_known, uint64_t hz)
{
	unsigned dec = stats_se_decimals(se_milli);
	json_fixed(j, cycles_key, stats_round_milli(milli, dec), dec);
	if (cycles_se_key && se_known)
		json_fixed(j, cycles_se_key, stats_round_milli((int64_t)se_milli, dec), dec);
	else if (cycles_se_key)
		json_null(j, cycles_se_key);
	if (!ns_key)
		return;
	/* The ns figure keeps the sign of the ticks it comes from. */
	uint64_t mag = milli < 0 ? (uint64_t)0 - (uint64_t)milli : (uint64_t)milli;
	int64_t ns = (int64_t)rate_milli_cycles_to_ns_milli(mag, hz);
	uint64_t ns_se = rate_milli_cycles_to_ns_milli(se_milli, hz);
	unsigned ns_dec = stats_se_decimals(ns_se);
	json_fixed(j, ns_key, stats_round_milli(milli < 0 ? -ns : ns, ns_dec), ns_dec);
	if (ns_se_key && se_known)
		json_fixed(j, ns_se_key, stats_round_milli((int64_t)ns_se, ns_dec), ns_dec);
	else if (ns_se_key)
		json_null(j, ns_se_key);
}

/* The unbiased figure and what it rests on, for every measured op. */
void estimate_json(struct json *j, const struct op_cost *c, uint64_t hz)
{
	if (c->step_ticks)
		json_u64(j, "step_ticks", c->step_ticks);
	else
		json_null(j, "step_ticks");
	json_bool(j, "below_resolution", c->below_resolution);
	measured_json(j, "estimate_cycles", "estimate_se_cycles", "estimate_ns", "estimate_se_ns", c->estimate_milli,
		      c->estimate_se_milli, true, hz);
	/* A negative difference is not printed as 0 without a word. */
	json_bool(j, "estimate_clamped", c->estimate_clamped);
	if (c->estimate_clamped)
		measured_json(j, "estimate_signed_cycles", NULL, "estimate_signed_ns", NULL, c->estimate_signed_milli,
			      c->estimate_se_milli, true, hz);
	else {
		json_null(j, "estimate_signed_cycles");
		json_null(j, "estimate_signed_ns");
	}
	measured_json(j, "estimate_untrimmed_cycles", NULL, NULL, NULL, c->estimate_untrimmed_milli,
		      c->estimate_se_milli, true, hz);
	json_u64(j, "estimate_windows", c->windows);
	measured_json(j, "estimate_stamped_cycles", "estimate_stamped_se_cycles", NULL, NULL, c->stamped_milli,
		      c->stamped_se_milli, true, hz);
	measured_json(j, "estimate_batch_cycles", "estimate_batch_se_cycles", "estimate_batch_ns", "estimate_batch_se_ns",
		      (int64_t)c->estimate_batch_milli, c->estimate_batch_se_milli, true, hz);
	json_u64(j, "estimate_batch_pairs", c->estimate_batch_pairs);
	json_string(j, "estimate_method", c->estimate_method ? c->estimate_method : "none");
	json_u64(j, "estimate_trimmed", c->estimate_trimmed);
	json_u64(j, "at_harness", c->at_harness);
}

/* A standard error x1000 alone, to its own precision (two significant
 * digits), beside a figure written to another's. */
static void se_json(struct json *j, const char *key, uint64_t se_milli)
{
	unsigned dec = stats_se_decimals(se_milli);
	json_fixed(j, key, stats_round_milli((int64_t)se_milli, dec), dec);
}

/* The batch figures, net with its standard error and raw to the same
 * precision (a throughput quantized to step / reads has no more). */
void throughput_json(struct json *j, const char *raw_key, const char *raw_se_key, const char *net_key,
		     const char *net_se_key, const char *net_ns_key, const char *net_se_ns_key,
		     const struct op_cost *c, uint64_t hz)
{
	unsigned dec = stats_se_decimals(c->throughput_net_se_milli);
	json_fixed(j, raw_key, stats_round_milli((int64_t)c->throughput_milli, dec), dec);
	se_json(j, raw_se_key, c->throughput_se_milli);
	measured_json(j, net_key, net_se_key, net_ns_key, net_se_ns_key, (int64_t)c->throughput_net_milli,
		      c->throughput_net_se_milli, true, hz);
}

static void json_u64_or_null(struct json *j, const char *key, uint64_t v, bool measured)
{
	if (measured)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

void baseline_json(struct json *j, const char *key, const struct op_cost *c, uint64_t hz, bool paired)
{
	json_object_begin(j, key);
	/* A paired baseline under two TSC steps has quantized percentiles, as
	 * a source does: null, with the unbiased estimate standing in. */
	bool quantized = paired && c->below_resolution;
	json_u64_or_null(j, "min", c->cycles.min, !quantized);
	json_u64_or_null(j, "p50", c->cycles.p50, !quantized);
	if (paired)
		throughput_json(j, "throughput", "throughput_se", "throughput_net", "throughput_net_se",
				"throughput_net_ns", "throughput_net_se_ns", c, hz);
	else {
		/* The harness itself: nothing subtracted, no pairs. */
		json_fixed(j, "throughput", (int64_t)c->throughput_milli, 3);
		se_json(j, "throughput_se", c->throughput_se_milli);
		json_fixed(j, "throughput_net", (int64_t)c->throughput_net_milli, 3);
	}
	json_u64(j, "samples", c->cycles.n);
	json_u64(j, "windows_discarded", c->windows_discarded);
	json_u64_or_null(j, "p90", c->cycles.p90, !quantized);
	if (paired) {
		estimate_json(j, c, hz);
		harness_pairing_json(j, c);
	}
	json_object_end(j);
}

void baselines_json(struct json *j, const struct run_results *r)
{
	const struct baselines *b = &r->baselines;
	uint64_t hz = tsc_hz_for_ns(r);
	json_object_begin(j, "baselines");
	json_string(j, "unit", "TSC ticks");
	baseline_json(j, "harness_cycles", &b->harness, hz, false);
	baseline_json(j, "rdtsc_raw", &b->rdtsc_raw, hz, true);
	baseline_json(j, "cpuid_cycles", &b->cpuid, hz, true);
	baseline_json(j, "unassigned_port_cycles", &b->port, hz, true);
	baseline_json(j, "kernel_port_cycles", &b->kernel_port, hz, true);
	json_u64(j, "unassigned_port", b->unassigned_port);
	json_u64(j, "kernel_port", b->kernel_port_number);
	json_string(j, "method", r->method);
	tsc_step_json(j, "tsc_step", &b->step);
	json_object_begin(j, "harness_stability");
	json_u64(j, "windows", b->totals.windows);
	json_u64(j, "window_p50_min", b->totals.window_p50_min);
	json_u64(j, "window_p50_max", b->totals.window_p50_max);
	json_object_end(j);
	/* What one plain instruction costs: tells an exiting RDTSC from a vCPU
	 * that emulates everything. */
	json_object_begin(j, "ref_loop");
	json_u64(j, "iterations", b->ref_loop.iterations);
	json_u64(j, "insns_per_iteration", b->ref_loop.insns_per_iteration);
	json_u64(j, "rounds", b->ref_loop.rounds);
	if (b->ref_loop.rounds) {
		json_u64(j, "ticks_min", b->ref_loop.ticks_min);
		json_u64(j, "ticks_max", b->ref_loop.ticks_max);
	} else {
		json_null(j, "ticks_min");
		json_null(j, "ticks_max");
	}
	if (r->insn_ps)
		json_fixed(j, "insn_ns", (int64_t)r->insn_ps, 3);
	else
		json_null(j, "insn_ns");
	json_bool(j, "vcpu_emulated", r->vcpu_emulated);
	json_string(j, "vcpu_emulated_reason", r->vcpu_emulated ? r->vcpu_text : NULL);
	json_object_end(j);
	json_bool(j, "harness_anomaly", r->harness_anomaly_reason != NULL);
	if (r->harness_anomaly_reason)
		json_string(j, "harness_anomaly_reason", r->harness_anomaly_reason);
	else
		json_null(j, "harness_anomaly_reason");
	json_object_begin(j, "serialization");
	json_string(j, "fence", r->serialization.fence == STAMP_FENCE_MFENCE ? "mfence" : "lfence");
	json_bool(j, "lfence_serializing", r->serialization.lfence_serializing);
	json_string(j, "evidence", r->serialization.evidence ? r->serialization.evidence : "not established");
	/* The one ordered read every single stamp takes (the tsc source, the
	 * warp test, the frequency brackets, the step detector, pvclock and
	 * the TSC page): Linux's rdtsc_ordered() rule. */
	json_string(j, "ordered_read", r->serialization.read_why ? tsc_read_name(r->serialization.read) : NULL);
	json_string(j, "ordered_read_why", r->serialization.read_why);
	if (r->serialization.de_cfg_read) {
		if (r->serialization.de_cfg_fault)
			json_string(j, "de_cfg", fault_name(r->serialization.de_cfg_fault));
		else
			json_u64(j, "de_cfg", r->serialization.de_cfg);
	}
	json_object_end(j);
	json_object_end(j);
}


void hex_json(struct json *j, const char *key, uint64_t value)
{
	char text[20];
	struct strbuf sb;
	sb_init(&sb, text, sizeof text);
	sb_hex0x(&sb, value);
	json_string(j, key, text);
}

void hex_or_null_json(struct json *j, const char *key, bool have, uint64_t value)
{
	if (have)
		hex_json(j, key, value);
	else
		json_null(j, key);
}

void read_cost_json(struct json *j, const char *unit, const struct op_cost *c, const char *method, uint64_t hz)
{
	json_object_begin(j, "read_cost");
	json_string(j, "unit", unit);
	dist_json(j, "cycles", &c->cycles, hz, false, c->below_resolution);
	dist_json(j, "ns", &c->cycles, hz, true, c->below_resolution);
	json_u64(j, "samples", c->cycles.n);
	json_string(j, "method", method);
	json_u64(j, "windows_discarded", c->windows_discarded);
	json_u64(j, "below_harness", c->below_harness);
	json_bool(j, "deadline_hit", c->deadline_hit);
	estimate_json(j, c, hz);
	harness_pairing_json(j, c);
	json_object_end(j);
	throughput_json(j, "throughput_cycles", "throughput_se_cycles", "throughput_net_cycles",
			"throughput_net_se_cycles", "throughput_net_ns", "throughput_net_se_ns", c, hz);
	json_u64(j, "throughput_batch_pairs", c->batch_pairs);
	json_u64(j, "throughput_batch_pairs_trimmed", c->batch_pairs_trimmed);
}

void tsc_step_json(struct json *j, const char *key, const struct tsc_step *s)
{
	json_object_begin(j, key);
	if (s->ticks)
		json_u64(j, "ticks", s->ticks);
	else
		json_null(j, "ticks");
	json_u64(j, "pairs", s->pairs);
	json_u64(j, "stalls", s->stalls);
	json_u64(j, "min_nonzero", s->min_nonzero);
	json_u64(j, "max_nonzero", s->max_nonzero);
	if (s->bound_ticks)
		json_u64(j, "bound_ticks", s->bound_ticks);
	else
		json_null(j, "bound_ticks");
	json_string(j, "method", s->method ? s->method : "not measured");
	json_object_end(j);
}
