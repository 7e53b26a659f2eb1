/* The report's platform section: CPU, firmware, SMBIOS, hypervisor, TSC
 * rates and their cross-check, KVM bits, ACPI, the serial port. */
#include "report_parts.h"

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
		hex_json(j, "max_leaf_hex", h->max_leaf);
	} else {
		json_null(j, "signature");
		json_string(j, "name", h->present ? "unknown" : NULL);
		json_null(j, "max_leaf");
		json_null(j, "max_leaf_hex");
	}
	json_array_begin(j, "signatures");
	for (size_t i = 0; i < h->range_count; i++) {
		json_object_begin(j, NULL);
		json_u64(j, "leaf", h->ranges[i].base);
		hex_json(j, "leaf_hex", h->ranges[i].base);
		json_string(j, "signature", h->ranges[i].signature);
		json_string(j, "name", h->ranges[i].name);
		json_u64(j, "max_leaf", h->ranges[i].max_leaf);
		hex_json(j, "max_leaf_hex", h->ranges[i].max_leaf);
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
		hex_json(j, "base_hex", h->hyperv.base);
		json_bool(j, "interface_hv1", h->hyperv.interface_hv1);
		json_u64(j, "privileges_eax", h->hyperv.privileges_eax);
		hex_json(j, "privileges_eax_hex", h->hyperv.privileges_eax);
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

/* The measured rates a plausibility check threw out, with why. */
static void freq_implausible_json(struct json *j, const struct freq_result *fr)
{
	json_array_begin(j, "freq_implausible");
	for (int k = 0; k < FREQ_KEY_COUNT; k++) {
		if (!(fr->implausible_mask & (1u << k)))
			continue;
		json_object_begin(j, NULL);
		json_string(j, "source", freq_key_name(k));
		json_u64(j, "hz", fr->hz[k]);
		json_string(j, "reason", fr->excluded_reason[k]);
		json_object_end(j);
	}
	json_array_end(j);
}

/* The rate every ns figure is converted at, and why it was chosen. */
static void freq_chosen_json(struct json *j, const struct run_results *r)
{
	const struct freq_result *fr = &r->freq;
	json_object_begin(j, "freq_chosen");
	json_string(j, "source", fr->chosen_name ? fr->chosen_name : r->facts.tsc_hz_rough_source);
	json_u64(j, "hz", tsc_hz_for_ns(r));
	if (fr->chosen_key >= 0) {
		json_fixed(j, "uncertainty_ppm", (int64_t)fr->uncertainty_mppm[fr->chosen_key], 3);
		json_fixed(j, "measured_uncertainty_ppm", (int64_t)fr->measured_uncertainty_mppm[fr->chosen_key], 3);
	}
	json_string(j, "rule", "the measured reference with the lowest total uncertainty (measured plus stated "
			       "tolerance); else an advertised rate; else the rough rate");
	json_object_end(j);
}

/* Each rate's uncertainty with and without its reference's stated
 * tolerance, and the tolerances with their sources. */
static void freq_uncertainty_json(struct json *j, const struct freq_result *fr)
{
	json_object_begin(j, "freq_uncertainty_ppm");
	for (int k = 0; k < FREQ_KEY_COUNT; k++) {
		if (fr->uncertainty_mppm[k])
			json_fixed(j, freq_key_name(k), (int64_t)fr->uncertainty_mppm[k], 3);
		else
			json_null(j, freq_key_name(k));
	}
	json_object_end(j);
	/* Without the tolerance: what this run's windows themselves allow. */
	json_object_begin(j, "freq_measured_uncertainty_ppm");
	for (int k = FREQ_MEASURED_HPET; k <= FREQ_MEASURED_PIT; k++) {
		if (fr->uncertainty_mppm[k])
			json_fixed(j, freq_key_name(k), (int64_t)fr->measured_uncertainty_mppm[k], 3);
		else
			json_null(j, freq_key_name(k));
	}
	json_object_end(j);
	json_object_begin(j, "freq_reference_tolerance_ppm");
	/* Under a hypervisor the references are emulated: the host clock's
	 * error behind them is unknown (null), not a crystal's tolerance. */
	if (fr->shared_host_clock) {
		json_null(j, "measured_vs_hpet");
		json_null(j, "measured_vs_acpi_pm");
		json_null(j, "measured_vs_pit");
		json_string(j, "unknown_reason",
			    "emulated under a hypervisor: each counts the host's clock, whose error (NTP slewing "
			    "included) is unknown to the guest; the uncertainties carry the measured part alone");
	} else {
		json_u64(j, "measured_vs_hpet", FREQ_HPET_TOLERANCE_PPM);
		json_u64(j, "measured_vs_acpi_pm", FREQ_ACPI_PM_TOLERANCE_PPM);
		json_u64(j, "measured_vs_pit", FREQ_PIT_TOLERANCE_PPM);
		json_null(j, "unknown_reason");
	}
	json_string(j, "source", "HPET: IA-PC HPET spec 1.0a sec. 2.2 (+/-0.05 %); PM timer and PIT: no figure in the "
				 "ACPI spec or the 8254's, 100 ppm assumed for their 14.31818 MHz crystal");
	json_object_end(j);
}

/* Each reference's windows: the best, the spread, every window's rate. */
static void freq_windows_json(struct json *j, const struct freq_result *fr)
{
	json_object_begin(j, "freq_windows");
	json_u64(j, "count", fr->windows);
	json_u64(j, "each_ms", fr->window_each_ms);
	for (int i = 0; i < FREQ_REF_COUNT; i++) {
		const struct freq_ref_result *f = &fr->refs[i];
		/* A reference whose every window was dropped for an unseen gap
		 * still shows its windows: the reason is in them. */
		bool dropped = false;
		for (uint32_t w = 0; w < FREQ_WINDOWS && w < fr->windows; w++)
			dropped = dropped || f->w[w].unseen_gap_us;
		if (!f->windows && !dropped) {
			json_null(j, freq_key_name(freq_ref_key((enum freq_ref)i)));
			continue;
		}
		json_object_begin(j, freq_key_name(freq_ref_key((enum freq_ref)i)));
		if (f->windows) {
			json_u64(j, "best", f->best);
			json_fixed(j, "spread_ppm", (int64_t)f->spread_mppm, 3);
		}
		json_array_begin(j, "windows");
		for (uint32_t w = 0; w < FREQ_WINDOWS && w < fr->windows; w++) {
			json_object_begin(j, NULL);
			if (f->w[w].hz) {
				json_u64(j, "hz", rate_round_to_uncertainty(f->w[w].hz, f->w[w].bound_mppm));
				json_fixed(j, "bound_ppm", (int64_t)f->w[w].bound_mppm, 3);
			} else {
				json_null(j, "hz");
				if (f->w[w].unseen_gap_us) {
					json_u64(j, "unseen_gap_us", f->w[w].unseen_gap_us);
					json_u64(j, "wrap_us", f->w[w].wrap_us);
				}
			}
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_object_end(j);
}

/* The references checked against each other, pair by pair. */
static void freq_cross_check_json(struct json *j, const struct freq_result *fr)
{
	json_object_begin(j, "freq_cross_check");
	json_bool(j, "done", fr->cross_checked);
	if (fr->cross_checked) {
		bool hp = fr->hz[FREQ_MEASURED_HPET] && fr->hz[FREQ_MEASURED_ACPI_PM];
		if (hp) {
			json_i64(j, "hpet_vs_acpi_pm_ppm", fr->cross_ppm);
			json_u64(j, "combined_uncertainty_ppm", fr->cross_combined_ppm);
		}
		json_bool(j, "agree", !fr->references_disagree);
		json_array_begin(j, "pairs");
		for (unsigned i = 0; i < fr->pair_count; i++) {
			json_object_begin(j, NULL);
			json_string(j, "a", freq_key_name(fr->pairs[i].a));
			json_string(j, "b", freq_key_name(fr->pairs[i].b));
			json_i64(j, "ppm", fr->pairs[i].ppm);
			json_u64(j, "combined_uncertainty_ppm", fr->pairs[i].combined_ppm);
			json_bool(j, "agree", fr->pairs[i].agree);
			json_object_end(j);
		}
		json_array_end(j);
	}
	/* Under a hypervisor the timers are the device model's, all driven by
	 * the host's one clock: that they agree proves only the emulation. */
	json_bool(j, "independent", fr->cross_checked && !fr->shared_host_clock);
	json_string(j, "note", !fr->cross_checked ? NULL
			       : fr->shared_host_clock
				       ? "under a hypervisor every emulated timer is driven by one host clock: their "
					 "agreement is by construction, not a cross-check (a disagreement still names a "
					 "device-model fault)"
				       : "no hypervisor: the timers have their own counters, so agreement is a cross-check "
					 "(they may still share one crystal)");
	json_string(j, "decided_by", fr->cross_decided_by ? fr->cross_decided_by : "fewer than two references");
	for (int k = FREQ_MEASURED_HPET; k <= FREQ_MEASURED_PIT; k++) {
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
	freq_implausible_json(j, fr);
	freq_chosen_json(j, r);
	freq_uncertainty_json(j, fr);
	freq_windows_json(j, fr);
	json_bool(j, "freq_shared_host_clock", fr->shared_host_clock);
	freq_cross_check_json(j, fr);
	if (fr->disagreement_known) {
		json_u64(j, "freq_disagreement_uncertainty_ppm", fr->disagreement_uncertainty_ppm);
		json_u64(j, "freq_disagreement_tolerance_ppm", fr->disagreement_tolerance_ppm);
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
	hex_json(j, "features_eax_hex", k->features_eax);
	json_object_end(j);
}

static void gas_json(struct json *j, const char *key, const struct acpi_gas *g)
{
	json_object_begin(j, key);
	json_string(j, "space", g->space_id == ACPI_SPACE_IO ? "io" : g->space_id == ACPI_SPACE_MEMORY ? "memory" : "other");
	json_u64(j, "address", g->address);
	hex_json(j, "address_hex", g->address);
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
		hex_json(j, "address_hex", t->address);
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
	json_u64(j, "tables_dropped", a->tables_dropped);
	json_u64(j, "errors_dropped", a->errors_dropped);
	json_object_begin(j, "pm_timer");
	json_bool(j, "present", a->pm_timer.present);
	if (a->pm_timer.present) {
		json_string(j, "space", a->pm_timer.gas.space_id == ACPI_SPACE_IO ? "io" : "memory");
		json_u64(j, "address", a->pm_timer.gas.address);
		hex_json(j, "address_hex", a->pm_timer.gas.address);
		json_u64(j, "width_bits", a->pm_timer.width_bits);
		json_string(j, "from", a->pm_timer.source);
	} else {
		/* Contract names stay present, null, when there is no timer. */
		json_null(j, "space");
		json_null(j, "address");
		json_null(j, "address_hex");
		json_null(j, "width_bits");
		json_string(j, "reason", a->pm_timer.reason ? a->pm_timer.reason : "no ACPI tables");
	}
	json_object_end(j);
	json_object_begin(j, "hpet");
	json_bool(j, "present", a->hpet.present && a->hpet.usable);
	if (a->hpet.present && a->hpet.usable) {
		json_u64(j, "address", a->hpet.base.address);
		hex_json(j, "address_hex", a->hpet.base.address);
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
		json_null(j, "address_hex");
		json_null(j, "period_fs");
		json_null(j, "counter_64bit");
		json_string(j, "reason", a->hpet.reason ? a->hpet.reason : "no ACPI tables");
	}
	json_object_end(j);
	json_object_begin(j, "fadt");
	json_bool(j, "present", a->fadt.present);
	if (a->fadt.present) {
		json_u64(j, "revision", a->fadt.revision);
		json_u64(j, "length", a->fadt.length);
		json_u64(j, "flags", a->fadt.flags);
		hex_json(j, "flags_hex", a->fadt.flags);
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
	acpi_vmclock_json(j, a);
	json_object_end(j);
}

/* Null with a reason rather than a placeholder: "" or an all-zero UUID
 * would make unrelated machines look like one. */
static void smbios_identity_json(struct json *j, const struct smbios_info *s)
{
	const char *uuid_why = !s->present ? "no SMBIOS table"
			       : !s->has_system ? "no SMBIOS type 1 (system) structure"
			       : s->uuid_reason;
	json_string(j, "uuid", uuid_why ? NULL : s->uuid);
	if (uuid_why)
		json_string(j, "uuid_reason", uuid_why);
	const char *serial_why = !s->present ? "no SMBIOS table"
				 : !s->has_system ? "no SMBIOS type 1 (system) structure"
				 : !s->serial[0] ? "the type 1 structure has no serial number string"
				 : NULL;
	json_string(j, "serial", serial_why ? NULL : s->serial);
	if (serial_why)
		json_string(j, "serial_reason", serial_why);
}

void platform_json(struct json *j, const struct run_results *r)
{
	const struct platform *p = r->facts.plat;
	json_object_begin(j, "platform");
	cpu_json(j, r);
	json_object_begin(j, "firmware");
	if (p->firmware_vendor[0]) {
		json_string(j, "vendor", p->firmware_vendor);
		json_bool(j, "vendor_truncated", p->firmware_vendor_truncated);
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
		json_string(j, "reason", p->firmware_reason);
	}
	json_object_end(j);
	json_object_begin(j, "smbios");
	json_bool(j, "present", r->smbios.present);
	json_u64(j, "errors_dropped", r->smbios.errors_dropped);
	json_string(j, "manufacturer", r->smbios.present ? r->smbios.manufacturer : NULL);
	json_string(j, "product", r->smbios.present ? r->smbios.product : NULL);
	json_string(j, "version", r->smbios.present ? r->smbios.version : NULL);
	smbios_identity_json(j, &r->smbios);
	/* Each string above is at most SMBIOS_STRING_MAX bytes: one that was
	 * longer is flagged, so a cut name is never taken for the whole. */
	json_bool(j, "manufacturer_truncated", r->smbios.truncated & SMBIOS_CUT_MANUFACTURER);
	json_bool(j, "product_truncated", r->smbios.truncated & SMBIOS_CUT_PRODUCT);
	json_bool(j, "version_truncated", r->smbios.truncated & SMBIOS_CUT_VERSION);
	json_bool(j, "serial_truncated", r->smbios.truncated & SMBIOS_CUT_SERIAL);
	json_object_end(j);
	hypervisor_json(j, r);
	tsc_json(j, r);
	kvm_json(j, r);
	confidential_json(j, r);
	acpi_json(j, r);
	json_object_begin(j, "serial");
	json_u64(j, "port", r->serial.base);
	hex_json(j, "port_hex", r->serial.base);
	json_string(j, "source", r->serial.source);
	json_bool(j, "divisor_kept", r->serial.divisor_kept);
	json_string(j, "identified_by", r->serial.identified_by);
	json_object_end(j);
	json_object_end(j);
}

