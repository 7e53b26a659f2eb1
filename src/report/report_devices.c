/* The newest clock devices' discovery facts in the report: the VMClock
 * device as the ACPI tables declare it (platform.acpi.vmclock), the
 * confidential-VM state (platform.confidential), KVM steal time over the
 * gap window and clock pairing.  The vmclock source's own figures are in
 * its sources[] entry and its section (src/arch/x86/sources/vmclock_facts.c). */
#include "report_parts.h"
#include "coco.h"

void acpi_vmclock_json(struct json *j, const struct acpi_info *a)
{
	const struct acpi_vmclock_info *v = &a->vmclock;
	json_object_begin(j, "vmclock");
	json_bool(j, "present", v->usable);
	json_bool(j, "declared", v->found);
	json_u64(j, "devices", v->devices);
	json_u64(j, "tables_scanned", v->tables_scanned);
	if (v->found) {
		json_string(j, "table", v->table);
		json_string(j, "oem_table_id", v->oem_table_id);
		hex_json(j, "table_address_hex", v->table_address);
		json_string(j, "path", v->path);
		json_bool(j, "hid_match", v->hid_match);
		json_bool(j, "cid_match", v->cid_match);
	}
	if (v->usable) {
		json_string(j, "resource", v->resource);
		json_u64(j, "address", v->address);
		hex_json(j, "address_hex", v->address);
		json_u64(j, "length", v->length);
		json_bool(j, "writable", v->writable);
		json_u64(j, "cacheability", v->cacheability);
	} else {
		json_string(j, "reason", v->reason);
	}
	if (v->unresolved)
		json_u64(j, "matches_not_resolved", v->unresolved);
	json_object_end(j);
}

void confidential_json(struct json *j, const struct run_results *r)
{
	const struct coco_info *c = &r->facts.coco;
	json_object_begin(j, "confidential");
	json_string(j, "kind", c->kind);
	json_bool(j, "memory_encrypted", c->memory_encrypted);
	json_bool(j, "exceptions_virtualized", c->exceptions_virtualized);
	json_bool(j, "tsc_trusted", c->tsc_trusted);

	json_object_begin(j, "sev");
	json_bool(j, "cpuid_leaf", c->amd_leaf);
	if (c->amd_leaf) {
		json_bool(j, "cpuid_sme", c->cpuid_sme);
		json_bool(j, "cpuid_sev", c->cpuid_sev);
		json_bool(j, "cpuid_sev_es", c->cpuid_sev_es);
		json_bool(j, "cpuid_sev_snp", c->cpuid_sev_snp);
		json_u64(j, "c_bit", c->c_bit);
	}
	json_string(j, "status_msr", c->sev_status_state);
	if (c->sev_status_state && str_equal(c->sev_status_state, "read")) {
		hex_json(j, "status_hex", c->sev_status);
		json_array_begin(j, "status_bits");
		for (unsigned b = 0; b < 64; b++)
			if (c->sev_status & (1ull << b)) {
				const char *name = coco_sev_status_bit_name(b);
				if (name) {
					json_string(j, NULL, name);
				} else {
					char reserved[16];
					struct strbuf sb;
					sb_init(&sb, reserved, sizeof reserved);
					sb_str(&sb, "reserved_");
					sb_u64(&sb, b);
					json_string(j, NULL, reserved);
				}
			}
		json_array_end(j);
	} else {
		json_string(j, "reason", c->sev_status_reason);
	}
	json_bool(j, "sev", c->sev);
	json_bool(j, "sev_es", c->sev_es);
	json_bool(j, "snp", c->snp);
	json_bool(j, "secure_tsc", c->secure_tsc);
	if (c->guest_tsc_freq_read) {
		json_u64(j, "guest_tsc_freq_mhz", c->guest_tsc_freq_mhz);
		json_u64(j, "guest_tsc_freq_hz", c->guest_tsc_freq_hz);
	} else if (c->secure_tsc) {
		json_null(j, "guest_tsc_freq_hz");
		json_string(j, "guest_tsc_freq_reason", c->guest_tsc_freq_reason);
	}
	json_object_end(j);

	json_object_begin(j, "tdx");
	json_bool(j, "cpuid_leaf", c->tdx_leaf);
	json_bool(j, "present", c->tdx);
	if (c->tdx_leaf)
		json_string(j, "signature", c->tdx_signature);
	else
		json_string(j, "reason", "CPUID leaf 0x21 is beyond the basic range");
	json_object_end(j);

	/* What such a guest cannot measure as the rest of the report implies;
	 * the firmware's #VC/#VE handlers exist under UEFI only. */
	const char *limits[4];
	unsigned n = coco_limits(c, r->facts.plat->firmware_vendor[0] != '\0', limits, ARRAY_SIZE(limits));
	json_array_begin(j, "limits");
	for (unsigned i = 0; i < n; i++)
		json_string(j, NULL, limits[i]);
	json_array_end(j);
	json_object_end(j);
}

/* Inside gaps: how much of the scan's lost time the host says it stole. */
void steal_json(struct json *j, const struct kvm_steal_window *s)
{
	json_object_begin(j, "steal");
	json_bool(j, "measured", s->measured);
	if (!s->measured)
		json_string(j, "reason", s->reason ? s->reason : "not run");
	json_bool(j, "registered", s->attempted);
	if (s->measured) {
		json_u64(j, "version_start", s->version_start);
		json_u64(j, "version_end", s->version_end);
		json_u64(j, "preempted_end", s->preempted_end);
		json_u64(j, "window_share_ppm", s->window_share_ppm);
		json_u64(j, "explained_ppm", s->explained_ppm);
	}
	json_object_end(j);
	/* The name, beside the gap totals. */
	if (s->measured)
		json_u64(j, "steal_ns", s->steal_ns);
	else
		json_null(j, "steal_ns");
}

void kvm_clock_pairing_json(struct json *j, const struct run_results *r)
{
	const struct kvm_pairing_result *p = &r->pairing;
	uint64_t hz = tsc_hz_for_ns(r);
	json_object_begin(j, "kvm_clock_pairing");
	bool ok = p->attempted && !p->reason;
	json_string(j, "status", ok ? "ok" : p->attempted || p->first_lost ? "error" : p->not_issued ? "not_issued" : "absent");
	if (!ok)
		json_string(j, "reason", p->reason ? p->reason : "not run");
	if (p->attempted || p->first_lost)
		json_string(j, "instruction", p->instruction);
	if (p->attempted) {
		json_string(j, "first_fault", fault_name(p->fault));
		if (!p->fault) {
			json_string(j, "first_result", kvm_hc_result_name(p->first_ret));
			hex_json(j, "first_result_hex", p->first_ret);
		}
	}
	/* Where the first call ran and whether it came back. */
	json_object_begin(j, "first_call");
	json_string(j, "on", p->first_on);
	if (p->first_on && p->first_on[0] == 'a') {
		json_u64(j, "cpu", p->first_cpu);
		json_u64(j, "apic_id", p->first_apic_id);
		json_u64(j, "deadline_ms", p->first_deadline_ms);
		json_u64(j, "waited_us", p->first_waited_us);
	}
	json_bool(j, "returned", p->first_on && !p->first_lost);
	json_object_end(j);
	if (!ok) {
		json_null(j, "cost_cycles");
		json_null(j, "offset_ns");
		json_object_end(j);
		return;
	}
	json_object_begin(j, "cost_cycles");
	json_string(j, "unit", "TSC ticks");
	dist_json(j, "cycles", &p->cost.cycles, hz, false, p->cost.below_resolution);
	dist_json(j, "ns", &p->cost.cycles, hz, true, p->cost.below_resolution);
	json_u64(j, "samples", p->cost.cycles.n);
	estimate_json(j, &p->cost, hz);
	json_object_end(j);
	const struct kvm_pairing_summary *s = &p->summary;
	json_u64(j, "pairings", s->samples);
	json_u64(j, "pairings_ok", s->ok);
	if (s->last_error)
		json_string(j, "last_error", kvm_hc_result_name(s->last_error));
	json_u64(j, "tsc_hz", p->tsc_hz);
	json_i64(j, "offset_ns", s->first_offset_ns);
	json_i64(j, "offset_spread_ns", s->offset_max_ns - s->offset_min_ns);
	json_u64(j, "span_ns", s->span_ns);
	if (s->drift_valid)
		json_i64(j, "drift_ppb", s->drift_ppb);
	else
		json_null(j, "drift_ppb");
	json_object_end(j);
}
