/* One entry of sources[]: a clock source's description, read cost,
 * throughput, resolution, behaviour and histogram, its contention curve
 * (report_load.c) and the source's own extra fields. */
#include "report_parts.h"

void source_json(struct json *j, const struct source_result *s, const struct run_results *r)
{
	static const char *const status_names[] = { "ok", "absent", "error" };
	uint64_t hz = tsc_hz_for_ns(r);
	json_object_begin(j, NULL);
	json_string(j, "name", s->src->name);
	json_string(j, "status", status_names[s->status]);
	if (s->status != SOURCE_OK) {
		json_string(j, "reason", s->desc.reason);
		/* The contract's measurement names, null: nothing was measured. */
		static const char *const unmeasured[] = {
			"freq_hz", "width_bits", "read_path", "read_cost", "throughput_cycles",
			"resolution_ns", "backward_steps", "histogram",
		};
		for (size_t i = 0; i < ARRAY_SIZE(unmeasured); i++)
			json_null(j, unmeasured[i]);
		json_object_end(j);
		return;
	}
	/* A TSC-based source runs at the TSC rate this run measured, not at the
	 * rough rate its loops were bounded with. */
	uint64_t src_hz = s->desc.is_tsc ? hz : s->desc.freq_hz;
	json_u64(j, "freq_hz", src_hz);
	json_string(j, "freq_origin", s->desc.is_tsc && r->freq.chosen_name ? r->freq.chosen_name : s->desc.freq_origin);
	json_u64(j, "width_bits", s->desc.width_bits);
	json_string(j, "read_path", read_path_name(s->read_path));
	json_string(j, "read_path_basis", s->read_path_basis);
	if (s->desc.instructions)
		json_string(j, "instructions", s->desc.instructions);
	read_cost_json(j, "TSC ticks", &s->cost, r->method, hz);
	/* resolution: the smallest step the counter makes, in ns.  Two
	 * back-to-back reads of a slow counter (PM timer, HPET) differ by one
	 * tick; two of the TSC differ by a whole read's cost, so for a TSC
	 * source the step found by the engine is the resolution when it could
	 * be seen, and the back-to-back interval is reported beside it. */
	uint64_t b2b = s->behaviour.min_step_ticks;
	uint64_t step = s->desc.is_tsc && s->cost.step_ticks ? s->cost.step_ticks : b2b;
	if (step && src_hz)
		json_fixed(j, "resolution_ns", (int64_t)mul_div_u64(step, 1000000000000ull, src_hz), 3);
	else
		json_null(j, "resolution_ns");
	if (b2b && src_hz)
		json_fixed(j, "back_to_back_ns", (int64_t)mul_div_u64(b2b, 1000000000000ull, src_hz), 3);
	else
		json_null(j, "back_to_back_ns");
	json_u64(j, "backward_steps", s->behaviour.backward);
	json_object_begin(j, "behaviour");
	json_u64(j, "pairs", s->behaviour.reads);
	json_u64(j, "forward", s->behaviour.forward);
	json_u64(j, "same", s->behaviour.same);
	json_u64(j, "wraps", s->behaviour.wraps);
	json_u64(j, "backward", s->behaviour.backward);
	json_u64(j, "max_backward_ticks", s->behaviour.max_backward_ticks);
	json_u64(j, "min_step_ticks", s->behaviour.min_step_ticks);
	json_object_end(j);
	/* Back-to-back reads that returned the same value. */
	json_u64(j, "stalls", s->behaviour.same);
	histogram_json(j, &s->cost.hist);
	contention_source_json(j, s, r);
	if (s->src->report_extra)
		s->src->report_extra(j, &s->facts);
	json_object_end(j);
}
