/* The machine-readable report: schema v1 of design.md.  Names here are a
 * contract with tools outside this repository: extend, never rename. */
#include "hpet_regs.h"
#include "report.h"
#include "crc32.h"
#include "fault.h"
#include "probe.h"
#include "freq.h"
#include "rate.h"
#include "strbuf.h"

static uint64_t tsc_hz_for_ns(const struct run_results *r) { return results_tsc_hz(r); }

/* quantized: every name present, null, because under two steps of the
 * TSC a percentile is quantization, not a cost (read_cost.estimate_*). */
static void dist_json(struct json *j, const char *key, const struct dist *d, uint64_t hz, bool as_ns, bool quantized)
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

static void histogram_json(struct json *j, const struct log2_hist *h)
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

static void harness_pairing_json(struct json *j, const struct op_cost *c)
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

/* The unbiased figure and what it rests on, for every measured op. */
static void estimate_json(struct json *j, const struct op_cost *c, uint64_t hz)
{
	if (c->step_ticks)
		json_u64(j, "step_ticks", c->step_ticks);
	else
		json_null(j, "step_ticks");
	json_bool(j, "below_resolution", c->below_resolution);
	json_fixed(j, "estimate_cycles", c->estimate_milli, 3);
	json_fixed(j, "estimate_ns", hz ? (int64_t)mul_div_u64((uint64_t)c->estimate_milli, 1000000000ull, hz) : 0, 3);
	json_string(j, "estimate_method", c->estimate_method ? c->estimate_method : "none");
	json_u64(j, "estimate_trimmed", c->estimate_trimmed);
	json_u64(j, "at_harness", c->at_harness);
}

static void baseline_json(struct json *j, const char *key, const struct op_cost *c, uint64_t hz, bool paired)
{
	json_object_begin(j, key);
	json_u64(j, "min", c->cycles.min);
	json_u64(j, "p50", c->cycles.p50);
	json_fixed(j, "throughput", (int64_t)c->throughput_milli, 3);
	json_fixed(j, "throughput_net", (int64_t)c->throughput_net_milli, 3);
	json_u64(j, "samples", c->cycles.n);
	json_u64(j, "windows_discarded", c->windows_discarded);
	json_u64(j, "p90", c->cycles.p90);
	if (paired) {
		estimate_json(j, c, hz);
		harness_pairing_json(j, c);
	}
	json_object_end(j);
}

static void cpu_json(struct json *j, const struct run_results *r)
{
	const struct cpu_info *c = &r->facts.cpu;
	const struct acpi_madt_info *m = &r->facts.acpi.madt;
	json_object_begin(j, "cpu");
	json_string(j, "vendor", c->vendor);
	json_string(j, "brand", c->brand);
	json_u64(j, "family", c->family);
	json_u64(j, "model", c->model);
	json_u64(j, "stepping", c->stepping);
	json_u64(j, "logical_cpus", r->cpus_enabled);
	json_string(j, "logical_cpus_source", r->cpu_count_source);
	if (m->present)
		json_u64(j, "possible_cpus", m->possible_cpus);
	else
		json_null(j, "possible_cpus");
	json_u64(j, "packages", r->packages);
	json_u64(j, "package_shift", c->package_shift);
	json_string(j, "package_shift_source", cpuid_topo_source_name(c->package_shift_source));
	json_object_end(j);
}

static void hypervisor_json(struct json *j, const struct run_results *r)
{
	const struct hv_info *h = &r->facts.hv;
	json_object_begin(j, "hypervisor");
	json_bool(j, "present", h->present);
	if (h->range_count) {
		json_string(j, "signature", h->signature);
		json_string(j, "name", h->name);
		json_u64(j, "max_leaf", h->max_leaf);
	} else {
		json_null(j, "signature");
		json_string(j, "name", h->present ? "unknown" : NULL);
		json_null(j, "max_leaf");
	}
	json_array_begin(j, "signatures");
	for (size_t i = 0; i < h->range_count; i++) {
		json_object_begin(j, NULL);
		json_u64(j, "leaf", h->ranges[i].base);
		json_string(j, "signature", h->ranges[i].signature);
		json_string(j, "name", h->ranges[i].name);
		json_u64(j, "max_leaf", h->ranges[i].max_leaf);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_begin(j, "vmware_backdoor");
	json_bool(j, "probed", r->vmware.probed);
	json_bool(j, "present", r->vmware.present);
	if (r->vmware.present) {
		json_u64(j, "version", r->vmware.version);
		json_u64(j, "type", r->vmware.type);
		if (r->vmware.gethz_valid) {
			json_u64(j, "tsc_hz", r->vmware.tsc_hz);
			json_u64(j, "apic_hz", r->vmware.apic_hz);
		} else {
			json_null(j, "tsc_hz");
		}
	}
	json_object_end(j);
	if (h->hyperv.found) {
		json_object_begin(j, "hyperv");
		json_u64(j, "base", h->hyperv.base);
		json_bool(j, "interface_hv1", h->hyperv.interface_hv1);
		json_u64(j, "privileges_eax", h->hyperv.privileges_eax);
		json_bool(j, "ref_counter", h->hyperv.ref_counter);
		json_bool(j, "tsc_page", h->hyperv.tsc_page);
		json_bool(j, "frequency_msrs", h->hyperv.frequency_msrs);
		json_bool(j, "tsc_invariant_control", h->hyperv.tsc_invariant_control);
		json_object_end(j);
	}
	json_object_end(j);
}

static void hz_or_null(struct json *j, const char *key, uint64_t hz)
{
	if (hz)
		json_u64(j, key, hz);
	else
		json_null(j, key);
}

static void tsc_json(struct json *j, const struct run_results *r)
{
	const struct cpu_info *c = &r->facts.cpu;
	json_object_begin(j, "tsc");
	json_bool(j, "present", c->tsc);
	json_bool(j, "invariant", c->invariant_tsc);
	json_bool(j, "rdtscp", c->rdtscp);
	json_bool(j, "deadline", c->tsc_deadline);
	json_bool(j, "tsc_adjust", c->tsc_adjust);
	const struct freq_result *fr = &r->freq;
	json_object_begin(j, "freq_hz");
	for (int k = 0; k < FREQ_KEY_COUNT; k++)
		hz_or_null(j, freq_key_name(k), fr->hz[k]);
	json_object_end(j);
	json_object_begin(j, "freq_chosen");
	json_string(j, "source", fr->chosen_name ? fr->chosen_name : r->facts.tsc_hz_rough_source);
	json_u64(j, "hz", tsc_hz_for_ns(r));
	json_object_end(j);
	json_object_begin(j, "freq_uncertainty_ppm");
	for (int k = 0; k < FREQ_KEY_COUNT; k++) {
		if (fr->uncertainty_mppm[k])
			json_fixed(j, freq_key_name(k), (int64_t)fr->uncertainty_mppm[k], 3);
		else
			json_null(j, freq_key_name(k));
	}
	json_object_end(j);
	json_object_begin(j, "freq_reference_tolerance_ppm");
	json_u64(j, "measured_vs_hpet", FREQ_HPET_TOLERANCE_PPM);
	json_u64(j, "measured_vs_acpi_pm", FREQ_ACPI_PM_TOLERANCE_PPM);
	json_string(j, "source", "HPET: IA-PC HPET spec 1.0a sec. 2.2 (+/-0.05 %); PM timer: no figure in the "
				 "ACPI spec, 100 ppm assumed for its 14.31818 MHz crystal");
	json_object_end(j);
	json_object_begin(j, "freq_cross_check");
	json_bool(j, "done", fr->cross_checked);
	if (fr->cross_checked) {
		json_i64(j, "hpet_vs_acpi_pm_ppm", fr->cross_ppm);
		json_u64(j, "combined_uncertainty_ppm", fr->cross_combined_ppm);
		json_bool(j, "agree", !fr->references_disagree);
	}
	json_string(j, "decided_by", fr->cross_decided_by ? fr->cross_decided_by : "fewer than two references");
	for (int k = FREQ_MEASURED_HPET; k <= FREQ_MEASURED_ACPI_PM; k++) {
		char key[48];
		struct strbuf sb;
		sb_init(&sb, key, sizeof key);
		sb_str(&sb, freq_key_name(k));
		sb_str(&sb, "_excluded");
		if (fr->excluded_reason[k])
			json_string(j, key, fr->excluded_reason[k]);
		else
			json_null(j, key);
	}
	json_object_end(j);
	if (fr->disagreement_known) {
		json_u64(j, "freq_disagreement_uncertainty_ppm", fr->disagreement_uncertainty_ppm);
		json_i64(j, "freq_disagreement_ppm", fr->disagreement_ppm);
		json_string(j, "freq_disagreement_between", fr->disagreement_between);
	} else {
		json_null(j, "freq_disagreement_ppm");
	}
	json_u64(j, "freq_window_ms", fr->window_ms);
	json_string(j, "freq_believed", fr->believed_hz ? freq_key_name(fr->believed_key) : NULL);
	json_string(j, "rough_rate_source", r->facts.tsc_hz_rough_source);
	json_object_end(j);
}

static void kvm_json(struct json *j, const struct run_results *r)
{
	const struct hv_kvm *k = &r->facts.hv.kvm;
	json_object_begin(j, "kvm");
	json_bool(j, "signature", k->found);
	json_bool(j, "clocksource", k->clocksource);
	json_bool(j, "clocksource2", k->clocksource2);
	json_bool(j, "stable_bit", k->stable_bit);
	json_u64(j, "features_eax", k->features_eax);
	json_object_end(j);
}

static void gas_json(struct json *j, const char *key, const struct acpi_gas *g)
{
	json_object_begin(j, key);
	json_string(j, "space", g->space_id == ACPI_SPACE_IO ? "io" : g->space_id == ACPI_SPACE_MEMORY ? "memory" : "other");
	json_u64(j, "address", g->address);
	json_u64(j, "bit_width", g->bit_width);
	json_object_end(j);
}

static void acpi_json(struct json *j, const struct run_results *r)
{
	const struct acpi_info *a = &r->facts.acpi;
	json_object_begin(j, "acpi");
	json_string(j, "rsdp_via", r->facts.plat->acpi_rsdp_via);
	if (a->rsdp.found)
		json_u64(j, "rsdp_revision", a->rsdp.revision);
	else
		json_null(j, "rsdp_revision");
	json_string(j, "root_table", a->rsdp.root_signature[0] ? a->rsdp.root_signature : NULL);
	json_array_begin(j, "tables");
	for (uint32_t i = 0; i < a->table_count && i < ACPI_MAX_TABLES; i++) {
		const struct acpi_table *t = &a->tables[i];
		json_object_begin(j, NULL);
		json_string(j, "signature", t->signature);
		json_u64(j, "address", t->address);
		json_u64(j, "length", t->length);
		json_u64(j, "revision", t->revision);
		json_bool(j, "checksum_ok", t->checksum_ok);
		json_string(j, "oem_id", t->oem_id);
		json_string(j, "via", t->via);
		if (t->status[0])
			json_string(j, "status", t->status);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_begin(j, "pm_timer");
	json_bool(j, "present", a->pm_timer.present);
	if (a->pm_timer.present) {
		json_string(j, "space", a->pm_timer.gas.space_id == ACPI_SPACE_IO ? "io" : "memory");
		json_u64(j, "address", a->pm_timer.gas.address);
		json_u64(j, "width_bits", a->pm_timer.width_bits);
		json_string(j, "from", a->pm_timer.source);
	} else {
		/* Contract names stay present, null, when there is no timer. */
		json_null(j, "space");
		json_null(j, "address");
		json_null(j, "width_bits");
		json_string(j, "reason", a->pm_timer.absent_reason[0] ? a->pm_timer.absent_reason : "no ACPI tables");
	}
	json_object_end(j);
	json_object_begin(j, "hpet");
	json_bool(j, "present", a->hpet.present && a->hpet.usable);
	if (a->hpet.present && a->hpet.usable) {
		json_u64(j, "address", a->hpet.base.address);
		json_u64(j, "event_timer_block_id", a->hpet.event_timer_block_id);
		const struct hpet_facts *hf = &results_facts(r, SOURCE_ID_HPET)->hpet;
		uint64_t cap = hf->capabilities;
		if (hf->read) {
			json_u64(j, "period_fs", cap >> HPET_CAP_PERIOD_SHIFT);
			json_bool(j, "counter_64bit", cap & HPET_COUNT_SIZE_CAP);
		} else {
			json_null(j, "period_fs");
			json_null(j, "counter_64bit");
		}
	} else {
		json_null(j, "address");
		json_null(j, "period_fs");
		json_null(j, "counter_64bit");
		json_string(j, "reason", a->hpet.absent_reason[0] ? a->hpet.absent_reason : "no ACPI tables");
	}
	json_object_end(j);
	json_object_begin(j, "fadt");
	json_bool(j, "present", a->fadt.present);
	if (a->fadt.present) {
		json_u64(j, "revision", a->fadt.revision);
		json_u64(j, "length", a->fadt.length);
		json_u64(j, "flags", a->fadt.flags);
		json_bool(j, "hw_reduced", a->fadt.hw_reduced);
	}
	json_object_end(j);
	json_object_begin(j, "madt");
	json_bool(j, "present", a->madt.present);
	if (a->madt.present) {
		json_u64(j, "enabled", a->madt.enabled);
		json_u64(j, "online_capable", a->madt.online_capable);
		json_u64(j, "disabled", a->madt.disabled);
		json_u64(j, "possible_cpus", a->madt.possible_cpus);
		json_bool(j, "pcat_compat", a->madt.pcat_compat);
		json_u64(j, "ioapics", a->madt.ioapic_count);
	}
	json_object_end(j);
	if (a->spcr.present) {
		json_object_begin(j, "spcr");
		json_u64(j, "interface_type", a->spcr.interface_type);
		gas_json(j, "uart", &a->spcr.uart);
		json_u64(j, "baud_rate", a->spcr.baud_rate);
		json_object_end(j);
	}
	json_object_end(j);
}

static void platform_json(struct json *j, const struct run_results *r)
{
	const struct platform *p = r->facts.plat;
	json_object_begin(j, "platform");
	cpu_json(j, r);
	json_object_begin(j, "firmware");
	if (p->firmware_vendor[0]) {
		json_string(j, "vendor", p->firmware_vendor);
		json_u64(j, "revision", p->firmware_revision);
		char rev[16];
		struct strbuf sb;
		sb_init(&sb, rev, sizeof rev);
		sb_u64(&sb, p->uefi_revision >> 16);
		sb_char(&sb, '.');
		sb_u64(&sb, (p->uefi_revision & 0xffff) / 10);
		if ((p->uefi_revision & 0xffff) % 10) {
			sb_char(&sb, '.');
			sb_u64(&sb, (p->uefi_revision & 0xffff) % 10);
		}
		json_string(j, "uefi_revision", rev);
	} else {
		json_null(j, "vendor");
		json_null(j, "revision");
		json_null(j, "uefi_revision");
		json_string(j, "status", "absent");
		json_string(j, "reason", p->firmware_absent_reason);
	}
	json_object_end(j);
	json_object_begin(j, "smbios");
	json_bool(j, "present", r->smbios.present);
	json_string(j, "manufacturer", r->smbios.present ? r->smbios.manufacturer : NULL);
	json_string(j, "product", r->smbios.present ? r->smbios.product : NULL);
	json_string(j, "version", r->smbios.present ? r->smbios.version : NULL);
	json_object_end(j);
	hypervisor_json(j, r);
	tsc_json(j, r);
	kvm_json(j, r);
	acpi_json(j, r);
	json_object_begin(j, "serial");
	json_u64(j, "port", r->serial.base);
	json_string(j, "source", r->serial.source);
	json_bool(j, "divisor_kept", r->serial.divisor_kept);
	json_object_end(j);
	json_object_end(j);
}

static void source_json(struct json *j, const struct source_result *s, const struct run_results *r)
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
	json_object_begin(j, "read_cost");
	json_string(j, "unit", "TSC ticks");
	dist_json(j, "cycles", &s->cost.cycles, hz, false, s->cost.below_resolution);
	dist_json(j, "ns", &s->cost.cycles, hz, true, s->cost.below_resolution);
	json_u64(j, "samples", s->cost.cycles.n);
	json_string(j, "method", r->method);
	json_u64(j, "windows_discarded", s->cost.windows_discarded);
	json_u64(j, "below_harness", s->cost.below_harness);
	json_bool(j, "deadline_hit", s->cost.deadline_hit);
	estimate_json(j, &s->cost, hz);
	harness_pairing_json(j, &s->cost);
	json_object_end(j);
	json_fixed(j, "throughput_cycles", (int64_t)s->cost.throughput_milli, 3);
	json_fixed(j, "throughput_net_cycles", (int64_t)s->cost.throughput_net_milli, 3);
	/* resolution: the smallest forward step, in the source's own ticks
	 * converted to ns at its frequency. */
	uint64_t step = s->behaviour.min_step_ticks;
	if (step && src_hz)
		json_fixed(j, "resolution_ns", (int64_t)mul_div_u64(step, 1000000000000ull, src_hz), 3);
	else
		json_null(j, "resolution_ns");
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
	if (s->src->report_extra)
		s->src->report_extra(j, &s->facts);
	json_object_end(j);
}

static void kvmclock_json(struct json *j, const struct run_results *r)
{
	const struct kvmclock_facts *k = &results_facts(r, SOURCE_ID_KVMCLOCK)->kvmclock;
	json_object_begin(j, "kvmclock");
	json_bool(j, "registered", k->registered);
	if (!k->registered) {
		/* The contract's names stay present, null, when there is nothing. */
		json_null(j, "msr_write_cycles");
		json_null(j, "msr_read_cycles");
		json_null(j, "pvclock");
	} else {
		json_u64(j, "msr", k->msr);
		json_u64(j, "msr_write_cycles", k->msr_write.cycles.p50);
		json_u64(j, "msr_read_cycles", k->msr_read.cycles.p50);
		json_object_begin(j, "msr_write");
		json_u64(j, "min", k->msr_write.cycles.min);
		json_u64(j, "p50", k->msr_write.cycles.p50);
		json_u64(j, "p99", k->msr_write.cycles.p99);
		json_u64(j, "samples", k->msr_write.cycles.n);
		json_object_end(j);
		json_object_begin(j, "pvclock");
		json_u64(j, "version", k->snapshot.version);
		json_u64(j, "tsc_to_system_mul", k->snapshot.tsc_to_system_mul);
		json_i64(j, "tsc_shift", k->snapshot.tsc_shift);
		json_u64(j, "flags", k->snapshot.flags);
		json_bool(j, "stable", k->stable);
		json_u64(j, "tsc_hz", k->tsc_hz);
		json_object_end(j);
	}
	json_object_end(j);
}

static void cross_cpu_json(struct json *j, const struct crosscpu_result *x)
{
	json_object_begin(j, "cross_cpu");
	json_u64(j, "cpus", x->cpus);
	json_u64(j, "tested", x->tested);
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
	if (x->absent_reason[0])
		json_string(j, "note", x->absent_reason);
	json_array_begin(j, "per_cpu");
	for (uint32_t i = 0; i < x->cpu_count; i++) {
		const struct xcpu_cpu *c = &x->cpu[i];
		json_object_begin(j, NULL);
		json_u64(j, "index", i);
		json_u64(j, "apic_id", c->apic_id);
		json_bool(j, "bsp", c->bsp);
		json_bool(j, "tested", c->tested);
		json_bool(j, "cpuid_consistent", c->cpuid_consistent);
		if (!c->bsp) {
			json_bool(j, "answered", c->arrived);
			json_u64(j, "warps", c->warps);
			json_u64(j, "same_cpu_warps", c->same_cpu_warps);
			json_u64(j, "stalls", c->stalls);
			json_u64(j, "max_warp_cycles", c->max_warp);
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
	json_object_begin(j, "kvmclock");
	json_bool(j, "tested", x->kvmclock_tested);
	if (x->kvmclock_tested) {
		json_u64(j, "warps", x->kvmclock_warps);
		json_u64(j, "max_warp_ns", x->kvmclock_max_warp_ns);
	}
	json_object_end(j);
	json_object_begin(j, "selftest");
	json_bool(j, "requested", x->selftest.requested);
	json_bool(j, "ran", x->selftest.ran);
	if (x->selftest.ran) {
		json_u64(j, "cpu", x->selftest.cpu);
		json_string(j, "method", x->selftest.via_tsc_write ? "IA32_TSC write" : "IA32_TSC_ADJUST");
		json_bool(j, "honoured", x->selftest.honoured);
		json_bool(j, "tsc_adjust_honoured", x->selftest.tsc_adjust_honoured);
		json_u64(j, "offset_cycles", x->selftest.offset_cycles);
		json_u64(j, "warps", x->selftest.warps);
		json_i64(j, "measured_skew_cycles", x->selftest.measured_skew);
		json_bool(j, "restored", x->selftest.restored);
	}
	json_object_end(j);
	json_object_end(j);
}

static void drift_json(struct json *j, const struct freq_result *f, const struct run_results *r)
{
	json_array_begin(j, "drift");
	for (unsigned i = 0; i < f->drift_count; i++) {
		json_object_begin(j, NULL);
		json_string(j, "a", results_source_name(r, f->drift[i].a));
		json_string(j, "b", results_source_name(r, f->drift[i].b));
		json_fixed(j, "ppm", f->drift[i].ppm_milli, 3);
		json_fixed(j, "uncertainty_ppm", (int64_t)f->drift[i].uncertainty_mppm, 3);
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

static void baselines_json(struct json *j, const struct run_results *r)
{
	const struct baselines *b = &r->baselines;
	uint64_t hz = tsc_hz_for_ns(r);
	json_object_begin(j, "baselines");
	json_string(j, "unit", "TSC ticks");
	baseline_json(j, "harness_cycles", &b->harness, hz, false);
	baseline_json(j, "cpuid_cycles", &b->cpuid, hz, true);
	baseline_json(j, "unassigned_port_cycles", &b->port, hz, true);
	baseline_json(j, "kernel_port_cycles", &b->kernel_port, hz, true);
	json_u64(j, "unassigned_port", b->unassigned_port);
	json_u64(j, "kernel_port", b->kernel_port_number);
	json_string(j, "method", r->method);
	json_object_begin(j, "tsc_step");
	if (b->step.ticks)
		json_u64(j, "ticks", b->step.ticks);
	else
		json_null(j, "ticks");
	json_u64(j, "pairs", b->step.pairs);
	json_u64(j, "stalls", b->step.stalls);
	json_u64(j, "min_nonzero", b->step.min_nonzero);
	json_u64(j, "max_nonzero", b->step.max_nonzero);
	json_string(j, "method", b->step.method ? b->step.method : "not measured");
	json_object_end(j);
	json_object_begin(j, "harness_stability");
	json_u64(j, "windows", b->harness_windows);
	json_u64(j, "window_p50_min", b->harness_window_p50_min);
	json_u64(j, "window_p50_max", b->harness_window_p50_max);
	json_object_end(j);
	json_bool(j, "harness_anomaly", r->harness_anomaly != NULL);
	if (r->harness_anomaly)
		json_string(j, "harness_anomaly_reason", r->harness_anomaly);
	else
		json_null(j, "harness_anomaly_reason");
	json_object_begin(j, "serialization");
	json_string(j, "fence", r->serialization.fence == STAMP_FENCE_MFENCE ? "mfence" : "lfence");
	json_bool(j, "lfence_serializing", r->serialization.lfence_serializing);
	json_string(j, "evidence", r->serialization.evidence ? r->serialization.evidence : "not established");
	if (r->serialization.de_cfg_read) {
		if (r->serialization.de_cfg_fault)
			json_string(j, "de_cfg", fault_name(r->serialization.de_cfg_fault));
		else
			json_u64(j, "de_cfg", r->serialization.de_cfg);
	}
	json_object_end(j);
	json_object_end(j);
}

static void gaps_json(struct json *j, const struct gaps_report *g, const struct gaps_per_cpu *all)
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
		if (all->note[0])
			json_string(j, "per_cpu_note", all->note);
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
	json_object_end(j);
}

static void raw_json(struct json *j, const struct run_results *r)
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
		json_base64(j, "data", (const void *)(uintptr_t)a->rsdp.address, a->rsdp.length);
		json_object_end(j);
	}
	for (uint32_t i = 0; i < a->table_count && i < ACPI_MAX_TABLES; i++) {
		const struct acpi_table *t = &a->tables[i];
		if (!t->readable)
			continue;
		json_object_begin(j, NULL);
		json_string(j, "signature", t->signature);
		json_u64(j, "address", t->address);
		json_base64(j, "data", (const void *)(uintptr_t)t->address, t->length);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

bool report_build_json(struct json *j, const struct run_results *r)
{
	json_object_begin(j, NULL);
	json_u64(j, "schema", 1);
	json_object_begin(j, "probe");
	json_string(j, "version", PROBE_VERSION);
	json_string(j, "phase", r->phase);
	json_string(j, "boot", r->facts.plat->boot);
	json_u64(j, "elapsed_ms", r->elapsed_ms);
	json_string(j, "mode", settings_mode_name(r->facts.settings.mode));
	json_u64(j, "samples_setting", r->facts.settings.samples);
	json_u64(j, "faults_caught", r->faults_caught);
	json_object_begin(j, "fault_guard");
	json_string(j, "noncanonical_read", fault_name(r->selfcheck.noncanonical_vector));
	json_u64(j, "bogus_msr", r->selfcheck.bogus_msr);
	json_string(j, "bogus_msr_read", fault_name(r->selfcheck.bogus_msr_vector));
	if (!r->selfcheck.bogus_msr_vector)
		json_u64(j, "bogus_msr_value", r->selfcheck.bogus_msr_value);
	json_object_end(j);
	json_object_end(j);
	platform_json(j, r);
	baselines_json(j, r);
	json_array_begin(j, "sources");
	for (unsigned i = 0; i < r->source_count; i++)
		source_json(j, &r->sources[i], r);
	json_array_end(j);
	kvmclock_json(j, r);
	cross_cpu_json(j, &r->xcpu);
	drift_json(j, &r->freq, r);
	gaps_json(j, &r->gaps, &r->gaps_cpus);
	verdict_to_json(j, &r->verdict);
	json_array_begin(j, "errors");
	for (uint32_t i = 0; i < r->error_count; i++) {
		json_object_begin(j, NULL);
		json_string(j, "code", r->errors[i].code);
		json_string(j, "message", r->errors[i].message);
		json_object_end(j);
	}
	json_array_end(j);
	if (r->raw.captured)
		raw_json(j, r);
	json_object_end(j);
	return json_ok(j);
}
