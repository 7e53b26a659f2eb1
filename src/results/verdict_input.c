/* Translates discovery and measurement results into the verdict's plain
 * facts: the verdict module itself never sees hardware structures. */
#include "results.h"
#include "watch.h"
#include "rate.h"

static enum verdict_tri tri(bool known, bool value)
{
	return !known ? VERDICT_UNKNOWN : value ? VERDICT_YES : VERDICT_NO;
}

static enum verdict_vendor vendor_of(const struct cpu_info *c)
{
	if (c->is_intel) return VERDICT_VENDOR_INTEL;
	if (c->is_amd) return VERDICT_VENDOR_AMD;
	if (c->is_hygon) return VERDICT_VENDOR_HYGON;
	if (c->is_centaur) return VERDICT_VENDOR_CENTAUR;
	if (c->is_zhaoxin) return VERDICT_VENDOR_ZHAOXIN;
	return VERDICT_VENDOR_OTHER;
}

static enum verdict_read_path path_of(enum read_path p)
{
	switch (p) {
	case READ_PATH_NATIVE: return VERDICT_PATH_NATIVE;
	case READ_PATH_EXIT: return VERDICT_PATH_EXIT;
	case READ_PATH_DEVICE_MODEL: return VERDICT_PATH_DEVICE_MODEL;
	/* Bare metal: no exit to speak of, and nothing the rules read. */
	/* Emulated like every instruction: neither native nor an exit; the
	 * verdict reads it from vcpu_emulated instead. */
	case READ_PATH_EMULATED:
	case READ_PATH_HARDWARE:
	case READ_PATH_UNKNOWN: break;
	}
	return VERDICT_PATH_UNKNOWN;
}

/* The verdict's rules name clocksources as Linux does, and so do the
 * sources: the source of that name, when this run set it up. */
static const struct source_result *source_named(const struct run_results *r, const char *name)
{
	for (unsigned i = 0; i < r->source_count; i++)
		if (r->sources[i].src && str_equal(r->sources[i].src->name, name))
			return &r->sources[i];
	return NULL;
}

static uint64_t milli_ns(int64_t milli_cycles, uint64_t hz)
{
	return milli_cycles > 0 ? rate_milli_cycles_to_ns_milli((uint64_t)milli_cycles, hz) : 0;
}

/* The ends of the source's contention curve: one CPU, and every CPU. */
static void contention_fact(const struct run_results *r, struct verdict_source_fact *f, enum source_id id)
{
	const struct contention_result *c = r->contention;
	uint64_t hz = results_tsc_hz(r);
	for (uint32_t i = 0; c && hz && i < c->source_count; i++) {
		const struct contention_source *cs = &c->src[i];
		if (!cs->measured || cs->id != id || cs->level_count < 2)
			continue;
		const struct contention_level *one = &cs->level[0], *all = &cs->level[cs->level_count - 1];
		if (!one->measured || !all->measured)
			return;
		f->alone_ns_milli = milli_ns(one->estimate_milli, hz);
		/* An SE the engine could not measure travels as 0, the verdict's
		 * "unknown" (a partial one would claim a precision nobody had). */
		f->alone_se_ns_milli = one->se_known ? rate_milli_cycles_to_ns_milli(one->se_milli, hz) : 0;
		f->contended_ns_milli = milli_ns(all->estimate_milli, hz);
		f->contended_se_ns_milli = all->se_known ? rate_milli_cycles_to_ns_milli(all->se_milli, hz) : 0;
		for (uint32_t l = 0; l < cs->level_count && f->curve_points < VERDICT_MAX_CURVE; l++)
			if (cs->level[l].measured) {
				f->curve_cpus[f->curve_points] = cs->level[l].cpus;
				f->curve_ns_milli[f->curve_points++] = milli_ns(cs->level[l].estimate_milli, hz);
			}
		/* 0 reads as "not measured": a free read is a thousandth of a ns. */
		if (!f->alone_ns_milli)
			f->alone_ns_milli = 1;
		if (!f->contended_ns_milli)
			f->contended_ns_milli = 1;
	}
}

static void source_fact(const struct run_results *r, struct verdict_input *in, enum verdict_source v)
{
	const struct source_result *s = source_named(r, verdict_source_name(v));
	if (!s)
		return;
	struct verdict_source_fact *f = &in->sources[v];
	/* An error is still presence: the device exists but misbehaved. */
	f->present = s->status == SOURCE_ABSENT ? VERDICT_NO : VERDICT_YES;
	if (s->status == SOURCE_OK) {
		/* The unbiased estimate, not the p50: a read cheaper than the
		 * TSC's own step has a p50 of 0 or one step from boot to boot.
		 * The verdict reads 0 as "not measured". */
		uint64_t hz = results_tsc_hz(r);
		/* Converted as the summary's table converts it (rounded), so the
		 * headline's cost and the table's est. column are one figure. */
		f->read_ns_milli = rate_milli_cycles_to_ns_milli((uint64_t)s->cost.estimate_milli, hz);
		if (!f->read_ns_milli)
			f->read_ns_milli = 1;
		f->read_se_ns_milli = rate_milli_cycles_to_ns_milli(s->cost.estimate_se_milli, hz);
		f->read_path = path_of(s->read_path);
		f->read_p99_ns = hz ? mul_div_u64(s->cost.cycles.p99, 1000000000ull, hz) : 0;
		f->read_max_ns = hz ? mul_div_u64(s->cost.cycles.max, 1000000000ull, hz) : 0;
		contention_fact(r, f, (enum source_id)(s - r->sources));
	}
}

static enum verdict_freq_by freq_by(const struct freq_result *f)
{
	if (!f->believed_hz)
		return VERDICT_FREQ_NONE;
	switch (f->believed_key) {
	case FREQ_PVCLOCK: return VERDICT_FREQ_PVCLOCK;
	case FREQ_HYPERV_MSR: return VERDICT_FREQ_HYPERV_MSR;
	case FREQ_VMWARE_GETHZ: return VERDICT_FREQ_VMWARE_GETHZ;
	case FREQ_HYPERVISOR_LEAF: return VERDICT_FREQ_HYPERVISOR_LEAF;
	case FREQ_CPUID_15: return VERDICT_FREQ_CPUID_15;
	default: return VERDICT_FREQ_NONE;
	}
}


/* The facts CPUID alone gives, decoded: shared with the host judge's
 * reading of a recorded CPUID (verdict-judge --cpuid). */
void verdict_input_cpuid(struct verdict_input *in, const struct cpu_info *c, const struct hv_info *h)
{
	in->vendor = vendor_of(c);
	in->family = c->family;
	in->model = c->model;
	in->hypervisor_bit = tri(true, h->present);
	in->hypervisor = h->range_count ? h->name : NULL;
	for (size_t i = 0; i < h->range_count && i < VERDICT_MAX_SIGNATURES; i++)
		in->signatures[in->signature_count++] = h->ranges[i].name;
	in->kvm_clocksource = tri(true, h->kvm.clocksource);
	in->kvm_clocksource2 = tri(true, h->kvm.clocksource2);
	in->kvm_stable_bit = tri(true, h->kvm.stable_bit);
	in->hv_ref_counter = tri(true, h->hyperv.ref_counter);
	in->hv_tsc_page = tri(true, h->hyperv.tsc_page);
	in->hv_freq_msrs = tri(true, h->hyperv.frequency_msrs);
	in->hv_tsc_invariant_control = tri(true, h->hyperv.tsc_invariant_control);
	in->hv_root = tri(h->hyperv.found, h->hyperv.root_partition);
	in->hv_isolated = tri(h->hyperv.found, h->hyperv.isolated);
	in->hv_paravisor = tri(h->hyperv.isolated, h->hyperv.paravisor);
	in->hv_isolation_type = !h->hyperv.found ? -1 : h->hyperv.isolated ? (int32_t)h->hyperv.isolation_type : 0;
	in->tsc = tri(true, c->tsc);
	in->invariant_tsc = tri(true, c->invariant_tsc);
	in->tsc_adjust = tri(true, c->tsc_adjust);
	in->tsc_deadline = tri(true, c->tsc_deadline);
	in->rdtscp = tri(true, c->rdtscp);
	in->xen_present = tri(true, h->xen.found);
	in->xen_tsc_mode = h->xen.found && h->xen.tsc_leaf_valid ? (int32_t)h->xen.tsc_mode : -1;
	/* A TDX guest answers leaf 0x21 ("IntelTDX    "); without that leaf
	 * it is none.  With it, the signature decides (verdict_input_coco). */
	in->tdx = c->max_basic < 0x21 ? VERDICT_NO : VERDICT_UNKNOWN;
}

/* Known only where they were read: TDX from the leaf-0x21 signature when
 * the leaf was asked; Secure TSC from SEV_STATUS bit 11 (with SNP, bit 2)
 * only when that MSR answered -- never read (CPUID offers no SEV, or a
 * recording has no MSRs) or faulted stays unknown. */
void verdict_input_coco(struct verdict_input *in, const struct coco_info *coco)
{
	if (coco->tdx_leaf)
		in->tdx = tri(true, coco->tdx);
	bool status_read = coco->sev_status_state && str_equal(coco->sev_status_state, "read");
	in->secure_tsc = tri(status_read, coco->secure_tsc);
	in->sev_es = tri(status_read, coco->sev_es);
	in->sev_snp = tri(status_read, coco->snp);
}

void results_verdict_input(const struct run_results *r, struct verdict_input *in)
{
	const struct probe_facts *f = &r->facts;
	const struct cpu_info *c = &f->cpu;
	memset(in, 0, sizeof *in);
	verdict_input_cpuid(in, c, &f->hv);
	in->vmware_gethz = tri(r->vmware.probed, r->vmware.gethz_valid);
	in->logical_cpus = r->cpus_enabled;
	in->possible_cpus = f->acpi.madt.present ? f->acpi.madt.possible_cpus : r->cpus_enabled;
	in->packages = r->packages;
	in->legacy_pic = tri(f->acpi.madt.present, f->acpi.madt.pcat_compat);
	in->acpi = tri(true, f->acpi_parsed);
	in->hw_reduced = tri(f->acpi.fadt.present, f->acpi.fadt.hw_reduced);
	for (unsigned v = 0; v < VERDICT_SRC_COUNT; v++)
		source_fact(r, in, (enum verdict_source)v);
	/* What each source learned beyond its cost, in its own words. */
	for (unsigned i = 0; i < r->source_count; i++)
		if (r->sources[i].src && r->sources[i].src->verdict_facts)
			r->sources[i].src->verdict_facts(in, &r->sources[i]);
	in->xcpu_tested = r->xcpu.ran ? r->xcpu.tested : 0;
	in->xcpu_warps = r->xcpu.warps;
	in->xcpu_max_skew_cycles = r->xcpu.max_skew_cycles;
	in->xcpu_not_coscheduled = r->xcpu.not_coscheduled;
	in->xcpu_kvmclock_warps = r->xcpu.kvmclock_warps;
	in->xcpu_kvmclock_max_warp_ns = r->xcpu.kvmclock_max_warp_ns;
	in->freq_by = freq_by(&r->freq);
	in->freq_measured_hz = r->freq.chosen_key >= 0 ? r->freq.hz[r->freq.chosen_key] : 0;
	in->freq_advertised_hz = r->freq.believed_hz;
	in->freq_disagreement_known = r->freq.disagreement_known;
	in->freq_disagreement_ppm = r->freq.disagreement_ppm;
	/* The measurement's own uncertainty: the gate is 500 ppm beyond it;
	 * the reference's stated tolerance is reported beside, not added. */
	in->freq_disagreement_uncertainty_ppm = r->freq.disagreement_uncertainty_ppm;
	in->freq_disagreement_tolerance_ppm = r->freq.disagreement_tolerance_ppm;
	in->freq_references_disagree = r->freq.references_disagree;
	in->freq_references_ppm = r->freq.cross_ppm;
	in->freq_references_uncertainty_ppm = r->freq.cross_combined_ppm;
	/* The first pair that disagrees is the evidence. */
	for (unsigned i = 0; i < r->freq.pair_count; i++) {
		const struct freq_pair *p = &r->freq.pairs[i];
		if (p->agree)
			continue;
		static const char *const pair_names[FREQ_KEY_COUNT][FREQ_KEY_COUNT] = {
			[FREQ_MEASURED_HPET][FREQ_MEASURED_ACPI_PM] = "hpet vs acpi_pm",
			[FREQ_MEASURED_HPET][FREQ_MEASURED_PIT] = "hpet vs pit",
			[FREQ_MEASURED_ACPI_PM][FREQ_MEASURED_PIT] = "acpi_pm vs pit",
		};
		in->freq_references_ppm = p->ppm;
		in->freq_references_uncertainty_ppm = p->combined_ppm;
		in->freq_references_pair = pair_names[p->a][p->b];
		break;
	}
	in->harness_anomaly = r->harness_anomaly_reason != NULL;
	in->harness_anomaly_reason = r->harness_anomaly_reason;
	/* Watch mode's pauses (the final report's verdict is decided again
	 * after the watch): those the TSC ran on through, the longest, and
	 * those it sat out. */
	for (uint32_t i = 0; r->watch && i < r->watch->det.event_count && i < WATCH_MAX_EVENTS; i++) {
		const struct watch_event *e = &r->watch->det.events[i];
		if (e->type != WATCH_EVENT_PAUSE)
			continue;
		if (!e->tsc_ran_on) {
			in->pauses_tsc_stood++;
			continue;
		}
		in->pause_count++;
		in->pause_max_ns = MAX(in->pause_max_ns, e->duration_us * 1000);
	}
	in->vcpu_emulated = r->vcpu_emulated;
	in->insn_ps = r->insn_ps;
	if (r->gaps.measured) {
		in->gaps_measured = true;
		in->gap_count = r->gaps.g.count;
		in->gap_max_ns = rate_cycles_to_ns(r->gaps.g.max, r->gaps.tsc_hz);
		in->gap_total_ns = rate_cycles_to_ns(r->gaps.g.total, r->gaps.tsc_hz);
		in->gap_window_ms = r->gaps.window_ms;
		in->gap_share_ppm = gaps_share_ppm(&r->gaps.g);
	}
	/* Linux takes these frequencies as known (TSC_KNOWN_FREQ: kvmclock.c,
	 * mshyperv.c, vmware.c, native_calibrate_tsc() with a crystal) and
	 * skips the refined calibration. */
	in->tsc_known_freq = tri(true, in->freq_by == VERDICT_FREQ_PVCLOCK ||
				       in->freq_by == VERDICT_FREQ_HYPERV_MSR ||
				       in->freq_by == VERDICT_FREQ_VMWARE_GETHZ ||
				       (in->freq_by == VERDICT_FREQ_CPUID_15 && c->is_intel));
	/* No SRAT parser yet: unknown, and the rules take Linux's 1 node. */
	in->numa_nodes = 0;
	/* The leaf-0x21 signature and SEV_STATUS (MSR 0xC0010131 through
	 * the fault guard) as discovery read them (src/discover/coco.c). */
	verdict_input_coco(in, &f->coco);
	if (r->contention && r->contention->ran && r->contention->cpus >= 2) {
		in->contention_cpus = r->contention->cpus;
		in->contention_outnumbered = tri(true, contention_outnumbered_from(r->contention) != 0);
	}
	in->kernel = r->facts.settings.linux_kernel;
	in->windows = r->facts.settings.windows_release;
	/* kernels= was checked when read; "" is the default set, lts */
	if (r->facts.settings.kernels[0])
		verdict_kernel_set_parse(r->facts.settings.kernels, str_len(r->facts.settings.kernels),
					 &in->kernels);
	for (unsigned i = 0; i < r->freq.drift_count && i < VERDICT_MAX_DRIFT; i++) {
		in->drift[i].a = results_source_name(r, r->freq.drift[i].a);
		in->drift[i].b = results_source_name(r, r->freq.drift[i].b);
		in->drift[i].ppm = r->freq.drift[i].ppm_milli / 1000;
		in->drift[i].window_ms = r->freq.drift[i].window_ms;
		in->drift[i].uncertainty_ppm = (r->freq.drift[i].uncertainty_mppm + 999) / 1000;
		in->drift_count++;
	}
}
