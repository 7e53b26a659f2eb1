/* The report's timing sections: cross-CPU, drift, gaps, and the raw dump
 * (kvm-clock's section is its own: src/arch/x86/sources/kvmclock_facts.c). */
#include "xcpu_selftest.h"
#include "report_parts.h"

/* The all-CPU phase: every CPU on one lock (cross_cpu.all_cpus). */
static void all_cpus_json(struct json *j, const struct crosscpu_result *x)
{
	const struct xcpu_all *a = &x->all;
	json_object_begin(j, "all_cpus");
	json_bool(j, "ran", a->ran);
	json_string(j, "reason", a->ran ? NULL : a->reason ? a->reason : x->reason ? x->reason : "not run");
	json_string(j, "left_out", a->left_out[0] ? a->left_out : NULL);
	json_u64(j, "cpus", a->cpus);
	json_u64(j, "window_ms", a->window_ms);
	json_u64(j, "rounds", a->rounds);
	json_u64(j, "handoffs", a->handoffs);
	json_u64(j, "ap_ap_handoffs", a->ap_ap_handoffs);
	json_u64(j, "cpu_pairs_tested", a->cpu_pairs_tested);
	json_u64(j, "ap_pairs_tested", a->ap_pairs_tested);
	json_u64(j, "warps", a->warps);
	json_u64(j, "same_cpu_warps", a->same_cpu_warps);
	json_u64(j, "stalls", a->stalls);
	json_u64(j, "max_warp_cycles", a->max_warp);
	if (a->warps) {
		json_u64(j, "max_warp_cpu", a->max_warp_cpu);
		json_u64(j, "max_warp_from", a->max_warp_from);
	}
	json_u64(j, "max_gap_cycles", a->max_gap_cycles);
	json_u64(j, "max_gap_cpu", a->max_gap_cpu);
	json_fixed(j, "elapsed_ms", (int64_t)a->elapsed_us, 3);
	json_object_end(j);
}

/* One entry per CPU: who it is, how it read the TSC, and for an AP its
 * pair's warps and skew (cross_cpu.per_cpu). */
static void per_cpu_json(struct json *j, const struct crosscpu_result *x)
{
	json_array_begin(j, "per_cpu");
	for (uint32_t i = 0; i < x->cpu_count; i++) {
		const struct xcpu_cpu *c = &x->cpu[i];
		json_object_begin(j, NULL);
		json_u64(j, "index", i);
		json_u64(j, "apic_id", c->apic_id);
		json_bool(j, "bsp", c->bsp);
		json_bool(j, "tested", c->tested);
		json_bool(j, "cpuid_consistent", c->cpuid_consistent);
		if (c->read_why) {
			json_string(j, "tsc_read", tsc_read_name(c->read));
			json_string(j, "tsc_read_why", c->read_why);
		} else {
			json_null(j, "tsc_read");
		}
		if (!c->bsp) {
			json_bool(j, "started", c->started);
			json_bool(j, "answered", c->arrived);
			json_u64(j, "warps", c->warps);
			json_u64(j, "same_cpu_warps", c->same_cpu_warps);
			json_u64(j, "stalls", c->stalls);
			json_u64(j, "max_warp_cycles", c->max_warp);
			json_u64(j, "iterations", c->iterations);
			json_u64(j, "bsp_iterations", c->bsp_iterations);
			if (x->kvmclock_tested)
				json_u64(j, "kvmclock_warps", c->kvmclock_warps);
			if (c->skew.valid) {
				json_i64(j, "skew_cycles", c->skew.offset);
				json_u64(j, "skew_bound_cycles", c->skew.bound);
				json_u64(j, "rtt_cycles", c->skew.rtt);
			}
		}
		json_object_end(j);
	}
	json_array_end(j);
}

/* The deliberate TSC offset on one AP that proves the test can see a
 * warp (cross_cpu.selftest). */
static void selftest_json(struct json *j, const struct xcpu_selftest *st)
{
	json_object_begin(j, "selftest");
	json_bool(j, "requested", st->requested);
	json_bool(j, "ran", st->ran);
	if (st->ran) {
		json_u64(j, "cpu", st->cpu);
		json_string(j, "method", st->via_tsc_write ? "IA32_TSC write" : "IA32_TSC_ADJUST");
		json_bool(j, "honoured", st->honoured);
		json_string(j, "honoured_basis", st->honoured_basis ? st->honoured_basis : "write_jump");
		json_bool(j, "tsc_adjust_honoured", st->tsc_adjust_honoured);
		json_u64(j, "offset_cycles", st->offset_cycles);
		json_u64(j, "warps", st->warps);
		json_i64(j, "measured_skew_cycles", st->measured_skew);
		json_bool(j, "restored", st->restored);
		json_string(j, "decision", xcpu_moved_name((enum xcpu_moved)st->moved));
		if (st->adjust_tried)
			json_string(j, "tsc_adjust_decision", xcpu_moved_name((enum xcpu_moved)st->adjust_moved));
		else
			json_null(j, "tsc_adjust_decision");
		if (st->moved != XCPU_MOVED_UNDETERMINED || st->jump_max) {
			json_i64(j, "jump_min_cycles", st->jump_min);
			json_i64(j, "jump_max_cycles", st->jump_max);
		} else {
			json_null(j, "jump_min_cycles");
			json_null(j, "jump_max_cycles");
		}
	}
	json_object_end(j);
}

void cross_cpu_json(struct json *j, const struct crosscpu_result *x)
{
	json_object_begin(j, "cross_cpu");
	json_u64(j, "cpus", x->cpus);
	json_u64(j, "tested", x->tested);
	json_u64(j, "not_started", x->not_started);
	/* max_skew_cycles: deprecated alias of skew_bound_cycles, kept for
	 * readers of schema 1; it was always a bound, never a measured skew. */
	json_u64(j, "max_skew_cycles", x->max_skew_cycles);
	json_u64(j, "skew_bound_cycles", x->max_skew_cycles);
	json_u64(j, "warps", x->warps);
	json_u64(j, "same_cpu_warps", x->same_cpu_warps);
	json_u64(j, "stalls", x->stalls);
	json_u64(j, "max_warp_cycles", x->max_warp);
	json_string(j, "method", x->method);
	json_u64(j, "iterations_per_pair", x->iterations_per_pair);
	/* What ran, not what was configured: the loops end at their deadlines. */
	json_object_begin(j, "iterations");
	json_u64(j, "pair_phase", x->pair_iterations);
	json_u64(j, "pair_phase_min_per_ap", x->pair_iterations_min);
	json_u64(j, "all_cpus", x->all.rounds);
	json_u64(j, "all_cpus_min_per_cpu", x->all.min_cpu_rounds);
	json_object_end(j);
	json_u64(j, "ap_pairs_tested", x->all.ap_pairs_tested);
	json_bool(j, "not_coscheduled", x->not_coscheduled);
	json_string(j, "not_coscheduled_reason", x->not_coscheduled ? x->not_coscheduled_reason : NULL);
	json_fixed(j, "elapsed_ms", (int64_t)x->elapsed_us, 3);
	all_cpus_json(j, x);
	if (x->reason)
		json_string(j, "note", x->reason);
	json_string(j, "stopped", x->stopped_reason[0] ? x->stopped_reason : NULL);
	json_u64(j, "budget_ms", x->budget_ms);
	json_u64(j, "past_budget", x->past_budget);
	json_u64(j, "not_tested_count", x->not_tested_count);
	json_string(j, "not_tested", x->not_tested[0] ? x->not_tested : NULL);
	per_cpu_json(j, x);
	json_object_begin(j, "kvmclock");
	json_bool(j, "tested", x->kvmclock_tested);
	if (x->kvmclock_tested) {
		json_u64(j, "warps", x->kvmclock_warps);
		json_u64(j, "max_warp_ns", x->kvmclock_max_warp_ns);
	}
	json_object_end(j);
	selftest_json(j, &x->selftest);
	json_object_end(j);
}

void drift_json(struct json *j, const struct freq_result *f, const struct run_results *r)
{
	json_array_begin(j, "drift");
	for (unsigned i = 0; i < f->drift_count; i++) {
		json_object_begin(j, NULL);
		json_string(j, "a", results_source_name(r, f->drift[i].a));
		json_string(j, "b", results_source_name(r, f->drift[i].b));
		/* To the precision its uncertainty allows (two digits of it). */
		unsigned dec = stats_se_decimals(f->drift[i].uncertainty_mppm);
		json_fixed(j, "ppm", stats_round_milli(f->drift[i].ppm_milli, dec), dec);
		json_fixed(j, "uncertainty_ppm", stats_round_milli((int64_t)f->drift[i].uncertainty_mppm, dec), dec);
		if (f->drift[i].basis)
			json_string(j, "tsc_rate", f->drift[i].basis);
		json_u64(j, "window_ms", f->drift[i].window_ms);
		json_object_end(j);
	}
	json_array_end(j);
}

static void gaps_fields(struct json *j, const struct gaps_report *g)
{
	uint64_t hz = g->tsc_hz;
	json_u64(j, "threshold_ns", rate_cycles_to_ns(g->g.threshold, hz));
	json_u64(j, "window_ms", g->window_ms);
	json_u64(j, "count", g->g.count);
	json_u64(j, "max_ns", rate_cycles_to_ns(g->g.max, hz));
	json_u64(j, "total_ns", rate_cycles_to_ns(g->g.total, hz));
	json_fixed(j, "share_ppm", (int64_t)gaps_share_ppm(&g->g) * 1000, 3);
}

void gaps_json(struct json *j, const struct gaps_report *g, const struct gaps_per_cpu *all,
	       const struct kvm_steal_window *steal)
{
	json_object_begin(j, "gaps");
	json_bool(j, "measured", g->measured);
	uint64_t hz = g->tsc_hz;
	gaps_fields(j, g);
	json_u64(j, "reads", g->g.reads);
	json_u64(j, "backward", g->g.backward);
	json_bool(j, "interrupts_leaked", g->interrupts_leaked);
	json_u64(j, "loop_cycles", g->loop_cycles);
	json_u64(j, "warmup_dropped_max_ns", rate_cycles_to_ns(g->warmup_max_cycles, hz));
	json_string(j, "threshold_rule", "max(10 us, 8 x max(scan loop round, TSC step))");
	json_object_begin(j, "smi");
	json_bool(j, "read", g->smi_read && !g->smi_fault);
	if (g->smi_read && g->smi_fault)
		json_string(j, "fault", fault_name(g->smi_fault));
	if (g->smi_read && !g->smi_fault) {
		uint64_t smis = g->smi_after - g->smi_before;
		json_u64(j, "count", smis);
		/* Each SMI is one gap at most; the rest came from the host. */
		json_u64(j, "gaps_attributable", MIN(smis, g->g.count));
	} else {
		json_null(j, "count");
	}
	json_object_end(j);
	json_array_begin(j, "first");
	for (uint32_t i = 0; i < g->g.recorded; i++) {
		json_object_begin(j, NULL);
		json_u64(j, "at_ns", rate_cycles_to_ns(g->g.first[i].offset, hz));
		json_u64(j, "size_ns", rate_cycles_to_ns(g->g.first[i].size, hz));
		json_object_end(j);
	}
	json_array_end(j);
	histogram_json(j, &g->g.hist);
	if (all->requested) {
		if (all->reason)
			json_string(j, "per_cpu_note", all->reason);
		json_string(j, "per_cpu_not_tested", all->not_tested[0] ? all->not_tested : NULL);
		json_array_begin(j, "per_cpu");
		for (uint32_t i = 0; i < all->cpus; i++) {
			json_object_begin(j, NULL);
			json_u64(j, "cpu", i);
			json_bool(j, "ran", all->ran[i] && all->cpu[i].measured);
			if (all->ran[i] && all->cpu[i].measured)
				gaps_fields(j, &all->cpu[i]);
			json_object_end(j);
		}
		json_array_end(j);
	}
	steal_json(j, steal);
	json_object_end(j);
}

/* Tables go in, in order, while their base64 fits what is left of the
 * budget; a large one left out does not stop a smaller one after it. */
static bool raw_fits(size_t *budget, bool limited, uint32_t length)
{
	size_t b64 = ((size_t)length + 2) / 3 * 4;
	if (!limited)
		return true;
	if (b64 > *budget)
		return false;
	*budget -= b64;
	return true;
}

void raw_json(struct json *j, const struct run_results *r)
{
	const struct raw_capture *c = &r->raw;
	json_object_begin(j, "raw");
	json_string(j, "cpuid_unrecorded", c->cpuid_unrecorded_zero ? "zero" : "clamp");
	json_array_begin(j, "cpuid");
	for (size_t i = 0; i < c->cpuid_count; i++) {
		char line[CPUID_RECORD_LINE_MAX];
		cpuid_record_format(&c->cpuid[i], line, sizeof line);
		json_string(j, NULL, line);
	}
	json_array_end(j);
	json_array_begin(j, "acpi_tables");
	const struct acpi_info *a = &r->facts.acpi;
	if (a->rsdp.found) {
		json_object_begin(j, NULL);
		json_string(j, "signature", "RSDP");
		json_u64(j, "address", a->rsdp.address);
		hex_json(j, "address_hex", a->rsdp.address);
		json_base64(j, "data", (const void *)(uintptr_t)a->rsdp.address, a->rsdp.length);
		json_object_end(j);
	}
	size_t budget = c->data_budget;
	uint32_t omitted = 0;
	for (uint32_t i = 0; i < a->table_count && i < ACPI_MAX_TABLES; i++) {
		const struct acpi_table *t = &a->tables[i];
		if (!t->readable)
			continue;
		json_object_begin(j, NULL);
		json_string(j, "signature", t->signature);
		json_u64(j, "address", t->address);
		hex_json(j, "address_hex", t->address);
		if (raw_fits(&budget, c->data_budget != 0, t->length)) {
			json_base64(j, "data", (const void *)(uintptr_t)t->address, t->length);
		} else {
			json_null(j, "data");
			omitted++;
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "raw_truncated", omitted);
	json_object_end(j);
}

uint32_t report_raw_tables_omitted(const struct run_results *r)
{
	const struct acpi_info *a = &r->facts.acpi;
	size_t budget = r->raw.data_budget;
	uint32_t omitted = 0;
	for (uint32_t i = 0; i < a->table_count && i < ACPI_MAX_TABLES; i++)
		if (a->tables[i].readable && !raw_fits(&budget, r->raw.data_budget != 0, a->tables[i].length))
			omitted++;
	return omitted;
}

