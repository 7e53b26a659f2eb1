/* The arm64 run's human summary and its JSON report (docs/report-schema.json:
 * probe, arm64, verdict.arm64, errors), written from the run's results
 * alone.  Figures with a standard error are printed to the digits the SE
 * supports (stats_se_decimals, as the x86 report does). */
#include "a64.h"
#include "a64_probe.h"
#include "arch_api.h"
/* The x86 report's read_cost writers (pure), so both arches write the
 * engine's figures alike: a private header of src/report/. */
#include "../../report/report_parts.h"
#include "json.h"
#include "stats.h"
#include "strbuf.h"
#include "verdict.h"

#ifndef A64_PROBE_VERSION
#error "A64_PROBE_VERSION comes from include/probe.h through mk/arch-aarch64.mk"
#endif

static const char *con_kind(enum a64_console_kind k)
{
	return k == A64_CON_PL011 ? "pl011" : k == A64_CON_CONOUT ? "uefi_conout" : "none";
}

/* ps with its SE -> ns at the SE's digits. */
static void json_ns_se(struct json *j, const char *key, const char *se_key, uint64_t ps, uint64_t se_ps)
{
	unsigned d = stats_se_decimals(se_ps);
	json_fixed(j, key, stats_round_milli((int64_t)ps, d), d);
	json_fixed(j, se_key, stats_round_milli((int64_t)se_ps, d), d);
}

static void json_cost_fields(struct json *j, const struct a64_cost *c)
{
	json_string(j, "name", c->name);
	json_string(j, "instruction", c->instruction);
	json_bool(j, "measured", c->measured);
	json_string(j, "absent", c->measured ? NULL : c->absent);
	if (c->measured) {
		if (c->se_known) {
			json_ns_se(j, "read_ns", "read_se_ns", c->read_ps, c->se_ps);
		} else {
			/* No SE: the figure to the picosecond it was computed to. */
			json_fixed(j, "read_ns", (int64_t)c->read_ps, 3);
			json_null(j, "read_se_ns");
		}
		json_fixed(j, "harness_ns", (int64_t)c->harness_ps, 3);
	} else {
		json_null(j, "read_ns");
		json_null(j, "read_se_ns");
		json_null(j, "harness_ns");
	}
	json_u64(j, "pairs", c->pairs);
	json_u64(j, "batch_calls", c->batch_calls);
	json_u64(j, "batch_ticks_p50", c->batch_ticks_p50);
	json_bool(j, "deadline_hit", c->deadline_hit);
}

static void json_cost(struct json *j, const struct a64_cost *c)
{
	json_object_begin(j, NULL);
	json_cost_fields(j, c);
	json_object_end(j);
}

/* A read: its old names (json_cost), then the engine's figures under the
 * names x86's sources[] gives them (report_sources.c), in counter ticks;
 * null where the read was not measured. */
static void json_read(struct json *j, const struct a64_cost *c, const struct a64_run *r)
{
	static const char *const engine_names[] = {
		"read_cost", "throughput_cycles", "throughput_se_cycles", "throughput_net_cycles",
		"throughput_net_se_cycles", "throughput_net_ns", "throughput_net_se_ns", "throughput_batch_pairs",
		"throughput_batch_pairs_trimmed",
	};
	json_object_begin(j, NULL);
	json_cost_fields(j, c);
	if (!c->measured || !c->engine) {
		for (size_t i = 0; i < ARRAY_SIZE(engine_names); i++)
			json_null(j, engine_names[i]);
		json_object_end(j);
		return;
	}
	uint64_t hz = r->cntfrq;
	read_cost_json(j, "CNTVCT ticks", &c->op, r->method, hz);
	json_object_end(j);
}

static void json_smccc(struct json *j, const struct a64_smccc *s)
{
	json_object_begin(j, "smccc");
	/* The conduit the calls went through, and who named it (the FADT, or
	 * the DT's /psci where the FADT is silent). */
	json_string(j, "conduit", acpi_arm_conduit_name(s->conduit));
	json_string(j, "conduit_source", s->conduit_source);
	if (s->psci.known) {
		json_u64(j, "psci_major", s->psci.major);
		json_u64(j, "psci_minor", s->psci.minor);
	} else {
		json_null(j, "psci_major");
		json_null(j, "psci_minor");
	}
	if (s->psci_features) {
		json_i64(j, "psci_features_smccc_version", s->features_smccc_version);
		json_i64(j, "psci_features_cpu_on", s->features_cpu_on);
	} else {
		json_null(j, "psci_features_smccc_version");
		json_null(j, "psci_features_cpu_on");
	}
	json_bool(j, "smccc_version_called", s->smccc_called);
	if (s->smccc.known) {
		json_u64(j, "smccc_major", s->smccc.major);
		json_u64(j, "smccc_minor", s->smccc.minor);
	} else {
		json_null(j, "smccc_major");
		json_null(j, "smccc_minor");
	}
	json_string(j, "vendor_hyp", s->uid_called ? arm64_hyp_uid_name(s->hyp) : NULL);
	if (s->kvm_features_called) {
		json_u64(j, "kvm_features", s->kvm.bitmap);
		json_bool(j, "kvm_ptp", s->kvm.ptp);
	} else {
		json_null(j, "kvm_features");
		json_null(j, "kvm_ptp");
	}
	if (s->pv_time_called)
		json_bool(j, "pv_stolen_time", s->pv_time.stolen_time);
	else
		json_null(j, "pv_stolen_time");
	json_string(j, "stopped", s->stopped);
	json_object_end(j);
}

/* ticks x1000 -> ns x1000 at hz. */
static int64_t ticks_milli_ns(uint64_t ticks_milli, uint64_t hz)
{
	return (int64_t)(a64_ticks_to_ps(ticks_milli, hz));
}

static bool irq_measured(const struct a64_run *r)
{
	return r->gic.proven && r->vtimer.irq.attempted && !r->vtimer.irq.absent && r->vtimer.irq.fired;
}

/* One latency distribution in ticks and in ns (the mean and its SE at
 * the SE's digits, as the firing's are). */
static void json_lat(struct json *j, const char *prefix, const struct gic_lat *l, bool m, uint64_t hz)
{
	static const char *const tk[] = {"_ticks_min", "_ticks_p50", "_ticks_p99", "_ticks_max",
					 "_ticks_mean", "_ticks_se"};
	static const char *const ns[] = {"_ns_min", "_ns_p50", "_ns_p99", "_ns_max", "_ns_mean", "_ns_se"};
	char key[64];
	struct strbuf sb;
	const uint64_t v[4] = {l->min, l->p50, l->p99, l->max};
	unsigned d = stats_se_decimals(l->se_milli);
	for (unsigned i = 0; i < 6; i++) {
		sb_init(&sb, key, sizeof key);
		sb_str(&sb, prefix);
		sb_str(&sb, tk[i]);
		if (!m)
			json_null(j, key);
		else if (i < 4)
			json_u64(j, key, v[i]);
		else
			json_fixed(j, key, stats_round_milli((int64_t)(i == 4 ? l->mean_milli : l->se_milli), d), d);
	}
	uint64_t ps_se = a64_ticks_to_ps(l->se_milli, hz);
	unsigned dn = stats_se_decimals(ps_se);
	for (unsigned i = 0; i < 6; i++) {
		sb_init(&sb, key, sizeof key);
		sb_str(&sb, prefix);
		sb_str(&sb, ns[i]);
		if (!m)
			json_null(j, key);
		else if (i < 4)
			json_fixed(j, key, (int64_t)a64_ticks_to_ps(v[i] * 1000u, hz), 3);
		else
			json_fixed(j, key,
				   stats_round_milli((int64_t)(i == 4 ? a64_ticks_to_ps(l->mean_milli, hz) : ps_se), dn),
				   dn);
	}
}

static void json_irq(struct json *j, const struct a64_run *r)
{
	const struct a64_gic *g = &r->gic;
	const struct a64_irq *q = &r->vtimer.irq;
	bool m = irq_measured(r);
	json_object_begin(j, "irq");
	json_bool(j, "measured", m);
	json_string(j, "absent", m ? NULL : !g->proven ? (g->absent ? g->absent : "the GIC was not looked at")
						       : q->absent ? q->absent : "?");
	json_string(j, "what", "the virtual timer's interrupt taken through the GIC by the probe's own handler on "
			       "a started CPU: CNTV_CVAL_EL0 to the handler's first counter stamp");
	if (g->version)
		json_u64(j, "gic_version", g->version);
	else
		json_null(j, "gic_version");
	if (g->arch_rev)
		json_u64(j, "gic_arch_rev", g->arch_rev);
	else
		json_null(j, "gic_arch_rev");
	json_string(j, "gic_source", g->source);
	hex_or_null_json(j, "gicd_base", g->madt.gicd_count || g->source, g->gicd_base);
	hex_or_null_json(j, "gicc_base", g->planned && g->version == 2, g->gicc_base);
	hex_or_null_json(j, "gicc_iidr", g->planned && g->version == 2, g->gicc_iidr);
	hex_or_null_json(j, "gicr_base", g->planned && g->version == 3, g->gicr_base);
	hex_or_null_json(j, "gicr_typer", g->planned && g->version == 3, g->gicr_typer);
	json_u64(j, "intid", g->intid);
	hex_or_null_json(j, "cpu_mpidr", q->attempted, q->cpu_mpidr);
	json_u64(j, "shots", q->shots);
	json_u64(j, "fired", q->fired);
	json_u64(j, "late_arm", q->late_arm);
	json_u64(j, "timeouts", q->timeouts);
	json_u64(j, "spurious", q->spurious);
	json_u64(j, "unexpected", q->unexpected);
	json_u64(j, "delay_ticks", q->delay_ticks);
	json_bool(j, "deadline_hit", q->deadline_hit);
	json_string(j, "stopped", q->stopped);
	json_lat(j, "latency", &q->lat, m, r->cntfrq);
	json_lat(j, "arm_to_handler", &q->arm_to_handler, m, r->cntfrq);
	hex_or_null_json(j, "exception_esr", q->exception, q->exc_esr);
	hex_or_null_json(j, "exception_elr", q->exception, q->exc_elr);
	if (q->attempted) {
		json_bool(j, "restored", q->restored);
		json_string(j, "not_restored", q->not_restored);
	} else {
		json_null(j, "restored");
		json_null(j, "not_restored");
	}
	json_object_end(j);
}

static void json_vtimer(struct json *j, const struct a64_run *r)
{
	const struct a64_vtimer *v = &r->vtimer;
	bool m = v->attempted && !v->absent;
	json_object_begin(j, "vtimer");
	json_bool(j, "measured", m);
	json_string(j, "absent", v->absent);
	json_string(j, "what", "the timer's firing as the CPU sees it (CNTV_CTL_EL0.ISTATUS polled, IMASK set)");
	/* Once irq has it, what is left unmeasured is the idle wake-up: the
	 * handler here interrupts a spinning CPU, a kernel's waits in WFI. */
	json_string(j, "not_measured", irq_measured(r)
		? "the wake-up from WFI: irq's handler interrupts a spinning CPU, an idle kernel's waits in WFI"
		: "interrupt delivery latency through the GIC: needs an interrupt handler (irq says why it was not taken)");
	hex_json(j, "boot_cpu_ctl_found", v->boot_ctl_found);
	json_bool(j, "boot_cpu_firmware", v->boot_cpu_firmware);
	if (v->attempted)
		hex_json(j, "cpu_mpidr", v->cpu_mpidr);
	else
		json_null(j, "cpu_mpidr");
	hex_json(j, "ctl_found", v->ctl_found);
	hex_json(j, "cval_found", v->cval_found);
	if (v->attempted)
		json_bool(j, "restored", v->restored);
	else
		json_null(j, "restored");
	json_array_begin(j, "costs");
	json_cost(j, &v->arm);
	json_cost(j, &v->ctl_read);
	json_array_end(j);
	json_object_begin(j, "firing");
	json_u64(j, "shots", v->shots);
	json_u64(j, "fired", v->fired);
	json_u64(j, "late_arm", v->late_arm);
	json_u64(j, "timeouts", v->timeouts);
	json_u64(j, "delay_ticks", v->delay_ticks);
	json_bool(j, "deadline_hit", v->deadline_hit);
	if (m) {
		unsigned d = stats_se_decimals(v->lat_se_milli);
		json_u64(j, "latency_ticks_min", v->lat_min);
		json_u64(j, "latency_ticks_p50", v->lat_p50);
		json_u64(j, "latency_ticks_p99", v->lat_p99);
		json_u64(j, "latency_ticks_max", v->lat_max);
		json_fixed(j, "latency_ticks_mean", stats_round_milli((int64_t)v->lat_mean_milli, d), d);
		json_fixed(j, "latency_ticks_se", stats_round_milli((int64_t)v->lat_se_milli, d), d);
		json_fixed(j, "latency_ns_p50", ticks_milli_ns(v->lat_p50 * 1000u, r->cntfrq), 3);
		json_fixed(j, "latency_ns_p99", ticks_milli_ns(v->lat_p99 * 1000u, r->cntfrq), 3);
		json_u64(j, "poll_ticks_p50", v->poll_p50);
	} else {
		json_null(j, "latency_ticks_p50");
		json_null(j, "latency_ticks_p99");
		json_null(j, "latency_ticks_max");
		json_null(j, "latency_ticks_se");
	}
	json_object_end(j);
	json_irq(j, r);
	json_object_end(j);
}

/* The DTB as read (efi_main.c read_dt) and what src/decode/fdt.c found in
 * it; absent says why none was read (ACPI boots have none). */
static void json_dt(struct json *j, const struct a64_dt *d)
{
	const struct fdt_facts *x = &d->facts;
	json_object_begin(j, "dt");
	json_bool(j, "found", d->found);
	json_string(j, "absent", d->found ? NULL : d->absent);
	if (d->address)
		hex_json(j, "address", d->address);
	else
		json_null(j, "address");
	if (d->totalsize)
		json_u64(j, "totalsize_bytes", d->totalsize);
	else
		json_null(j, "totalsize_bytes");
	if (!d->found) {
		json_object_end(j);
		return;
	}
	json_u64(j, "version", x->version);
	json_u64(j, "nodes", x->nodes);
	json_string(j, "stdout_path", x->stdout_path_present ? x->stdout_path : NULL);
	json_string(j, "console_node", x->console_found ? x->console_node : NULL);
	json_string(j, "console_from", x->console_from);
	json_string(j, "console_reason", x->console_found ? x->console_reg_reason : x->console_reason);
	if (x->console_found && x->console_reg_ok)
		hex_json(j, "console_base", x->console_base);
	else
		json_null(j, "console_base");
	json_bool(j, "psci", x->psci_found);
	json_string(j, "psci_compatible", x->psci_found ? x->psci_compatible : NULL);
	json_string(j, "psci_method", x->psci_method ? fdt_psci_method_name(x->psci_method) : NULL);
	json_string(j, "psci_reason", x->psci_reason);
	json_string(j, "timer_node", x->timer_found ? x->timer_node : NULL);
	json_string(j, "timer_compatible", x->timer_compatible);
	if (x->clock_frequency_present)
		json_u64(j, "timer_clock_frequency_hz", x->clock_frequency);
	else
		json_null(j, "timer_clock_frequency_hz");
	json_array_begin(j, "timer_errata");
	for (uint32_t i = 0; i < x->errata_count && i < FDT_MAX_ERRATA; i++)
		json_string(j, NULL, x->errata_props[i]);
	json_array_end(j);
	json_u64(j, "cpu_nodes", x->cpu_total);
	json_u64(j, "psci_cpus", x->cpu_count);
	json_string(j, "cpus_reason", x->cpus_reason);
	json_object_end(j);
}

static void json_arm64(struct json *j, const struct a64_run *r)
{
	json_object_begin(j, "arm64");
	json_u64(j, "exception_level", r->el);

	json_object_begin(j, "cpu");
	hex_json(j, "midr", r->midr);
	hex_json(j, "implementer", r->midr_dec.implementer);
	hex_json(j, "part", r->midr_dec.part);
	json_u64(j, "variant", r->midr_dec.variant);
	json_u64(j, "revision", r->midr_dec.revision);
	json_string(j, "name", arm64_midr_name((uint32_t)r->midr));
	hex_json(j, "mpidr", r->mpidr);
	hex_json(j, "id_aa64mmfr0", r->mmfr0);
	hex_json(j, "id_aa64pfr0", r->pfr0);
	json_u64(j, "ecv", r->ecv.level);
	json_object_end(j);

	const struct arm64_cntfrq_check *c = &r->cntfrq_check;
	json_object_begin(j, "cntfrq");
	json_u64(j, "hz", r->cntfrq);
	json_bool(j, "zero", c->zero);
	json_bool(j, "differs_across_cpus", c->differs_across_cpus);
	json_u64(j, "linux_hz", c->linux_hz);
	if (c->measured) {
		json_i64(j, "measured_ppm", c->measured_ppm);
		json_bool(j, "measured_disagrees", c->measured_disagrees);
	} else {
		json_null(j, "measured_ppm");
		json_null(j, "measured_disagrees");
	}
	json_object_end(j);

	const struct a64_rate *t = &r->rate;
	json_object_begin(j, "rate");
	json_string(j, "reference", t->reference);
	json_bool(j, "measured", t->measured);
	json_string(j, "absent", t->measured ? NULL : t->absent);
	if (t->measured) {
		json_u64(j, "hz", t->hz);
		json_u64(j, "uncertainty_ppm", t->uncertainty_ppm);
		json_u64(j, "seconds", t->seconds);
		json_u64(j, "edges", t->edges);
		json_u64(j, "ticks", t->ticks);
		json_u64(j, "uncertainty_ticks", t->uncertainty_ticks);
	} else {
		json_null(j, "hz");
		json_null(j, "uncertainty_ppm");
	}
	json_u64(j, "gettime_calls", t->gettime_calls);
	json_fixed(j, "gettime_ns", (int64_t)t->gettime_ps, 3);
	json_object_end(j);

	json_array_begin(j, "reads");
	json_read(j, &r->cost_cntvct, r);
	json_read(j, &r->cost_cntpct, r);
	json_read(j, &r->cost_cntvctss, r);
	json_read(j, &r->cost_midr, r);
	json_array_end(j);
	json_string(j, "cntvct_trapped", r->cntvct_trap);
	json_string(j, "cntpct_trapped", r->cntpct_trap);
	/* The counter's step as the engine found it before the reads (x86:
	 * baselines.tsc_step). */
	tsc_step_json(j, "counter_step", &r->step);

	json_object_begin(j, "console");
	json_string(j, "kind", con_kind(r->con.kind));
	if (r->con.kind == A64_CON_PL011)
		hex_json(j, "base", r->con.base);
	else
		json_null(j, "base");
	json_string(j, "source", r->con.source);
	json_u64(j, "spcr_interface", r->con.spcr_interface);
	json_string(j, "reason", r->con.reason);
	json_string(j, "gcd_type", r->con.gcd);
	json_bool(j, "walked", r->con.walked);
	if (r->con.walked && r->con.walk.mapped) {
		json_u64(j, "walk_level", r->con.walk.level);
		hex_json(j, "walk_mair_attr", r->con.walk.mair_attr);
	} else {
		json_null(j, "walk_level");
		json_null(j, "walk_mair_attr");
	}
	json_u64(j, "stalls", r->con.stalls);
	json_object_end(j);

	json_object_begin(j, "acpi");
	json_bool(j, "parsed", r->acpi_ok);
	json_bool(j, "psci_compliant", r->smccc.boot.psci);
	json_u64(j, "arm_boot_flags", r->smccc.boot.flags);
	json_bool(j, "gtdt", r->gtdt.present);
	if (r->gtdt.present) {
		json_string_n(j, "gtdt_oem_id", r->gtdt.oem_id, 6);
		json_string_n(j, "gtdt_oem_table_id", r->gtdt.oem_table_id, 8);
		json_u64(j, "gtdt_oem_revision", r->gtdt.oem_revision);
		json_u64(j, "virtual_timer_gsiv", r->gtdt.virtual_el1_gsiv);
		json_u64(j, "virtual_timer_flags", r->gtdt.virtual_el1_flags);
	}
	if (r->have_fadt_raw)
		json_base64(j, "fadt_raw", r->fadt_raw, r->fadt_len);
	if (r->have_gtdt_raw)
		json_base64(j, "gtdt_raw", r->gtdt_raw, r->gtdt_len);
	if (r->have_madt_raw)
		json_base64(j, "madt_raw", r->madt_raw, r->madt_len);
	json_object_end(j);

	json_dt(j, &r->dt);
	json_smccc(j, &r->smccc);
	json_bool(j, "mp_services", r->mp_services);

	json_array_begin(j, "cpus");
	for (uint32_t i = 0; i < r->cpu_count; i++) {
		const struct a64_cpu *p = &r->cpus[i];
		json_object_begin(j, NULL);
		hex_json(j, "mpidr", p->mpidr);
		json_bool(j, "started", p->started);
		if (p->started) {
			hex_json(j, "midr", p->midr);
			json_u64(j, "cntfrq", p->cntfrq);
		} else {
			json_null(j, "midr");
			json_null(j, "cntfrq");
		}
		json_i64(j, "cpu_on_status", i ? p->cpu_on_status : 0);
		json_bool(j, "timed_out", p->timed_out);
		if (i && p->started && p->xc_rounds) {
			json_u64(j, "xc_rounds", p->xc_rounds);
			json_u64(j, "xc_backwards", p->xc_backwards);
			json_u64(j, "xc_max_backwards_ticks", p->xc_max_backwards);
			json_i64(j, "xc_offset_lo_ticks", p->xc_offset_lo);
			json_i64(j, "xc_offset_hi_ticks", p->xc_offset_hi);
		} else {
			json_null(j, "xc_rounds");
			json_null(j, "xc_backwards");
			json_null(j, "xc_max_backwards_ticks");
			json_null(j, "xc_offset_lo_ticks");
			json_null(j, "xc_offset_hi_ticks");
		}
		json_object_end(j);
	}
	json_array_end(j);

	const struct a64_xcpu *x = &r->xcpu;
	json_object_begin(j, "cross_cpu");
	json_bool(j, "measured", x->attempted && !x->absent);
	json_string(j, "absent", x->absent);
	json_u64(j, "listed", x->listed);
	json_string(j, "cpu_list_source", x->cpu_list_source);
	json_u64(j, "cpus", x->cpus);
	json_u64(j, "rounds", x->rounds);
	json_u64(j, "backwards", x->backwards);
	json_u64(j, "max_backwards_ticks", x->max_backwards_ticks);
	json_u64(j, "max_skew_bound_ticks", x->max_skew_bound_ticks);
	json_object_end(j);
	json_vtimer(j, r);
	a64_kvm_pv_json(j, r);
	json_object_end(j);
}

bool a64_report_json(struct a64_run *r, char *buf, size_t cap, size_t *len)
{
	struct json j;
	json_init(&j, buf, cap);
	json_object_begin(&j, NULL);
	json_u64(&j, "schema", 1);
	json_object_begin(&j, "probe");
	json_string(&j, "version", A64_PROBE_VERSION);
	json_string(&j, "arch", "aarch64");
	json_string(&j, "boot", "uefi");
	json_string(&j, "phase", "boot_services");
	json_u64(&j, "elapsed_ms", r->cntfrq ? (tb_now() - r->t_start) / (r->cntfrq / 1000u) : 0);
	json_string(&j, "started_utc", r->started_utc[0] ? r->started_utc : NULL);
	json_string(&j, "started_utc_source", r->started_utc[0] ? "uefi_gettime" : "GetTime failed");
	json_object_end(&j);
	json_arm64(&j, r);
	json_object_begin(&j, "verdict");
	verdict_arm64_json(&j, &r->verdict);
	json_object_end(&j);
	json_array_begin(&j, "errors");
	for (uint32_t i = 0; i < r->error_count; i++) {
		json_object_begin(&j, NULL);
		json_string(&j, "code", r->errors[i].code);
		json_string(&j, "message", r->errors[i].message);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	*len = j.len;
	return json_ok(&j);
}

/* ----------------------------------------------------------- summary */

static void line(struct strbuf *sb)
{
	sb_str(sb, "\r\n");
	a64_puts(sb->buf);
	sb->len = 0;
	sb->buf[0] = 0;
}

static void sb_ns_se(struct strbuf *sb, uint64_t ps, uint64_t se_ps)
{
	unsigned d = stats_se_decimals(se_ps);
	sb_fixed(sb, stats_round_milli((int64_t)ps, d), d);
	sb_str(sb, " +/- ");
	sb_fixed(sb, stats_round_milli((int64_t)se_ps, d), d);
	sb_str(sb, " ns (SE)");
}

static void cost_line(struct strbuf *sb, const struct a64_cost *c)
{
	sb_str(sb, "  ");
	sb_str(sb, c->instruction);
	sb_pad_to(sb, 24);
	if (c->measured) {
		if (c->se_known) {
			sb_ns_se(sb, c->read_ps, c->se_ps);
		} else {
			sb_fixed(sb, (int64_t)c->read_ps, 3);
			sb_str(sb, " ns (SE unknown)");
		}
		sb_str(sb, ", ");
		sb_u64(sb, c->pairs);
		sb_str(sb, " pairs of ");
		sb_u64(sb, c->batch_calls);
	} else {
		sb_str(sb, "not measured: ");
		sb_str(sb, c->absent);
	}
	line(sb);
}

static void vtimer_line(struct strbuf *sb, const struct a64_run *r)
{
	const struct a64_vtimer *v = &r->vtimer;
	sb_str(sb, "vtimer   ");
	if (!v->attempted || v->absent) {
		sb_str(sb, "not measured: ");
		sb_str(sb, v->absent ? v->absent : "?");
	} else {
		sb_str(sb, "arm ");
		if (v->arm.measured)
			sb_ns_se(sb, v->arm.read_ps, v->arm.se_ps);
		else
			sb_str(sb, "not measured");
		sb_str(sb, "; fires seen (ISTATUS, not GIC delivery) p50 ");
		sb_u64(sb, v->lat_p50);
		sb_str(sb, " / p99 ");
		sb_u64(sb, v->lat_p99);
		sb_str(sb, " ticks after CVAL, ");
		sb_u64(sb, v->fired);
		sb_str(sb, " shots on CPU ");
		sb_hex0x(sb, v->cpu_mpidr);
		sb_str(sb, v->boot_cpu_firmware ? " (boot CPU's is the firmware's)" : "");
		sb_str(sb, v->restored ? "; restored" : "; NOT restored");
	}
	line(sb);
	const struct a64_irq *q = &v->irq;
	sb_str(sb, "vt irq   ");
	if (!irq_measured(r)) {
		sb_str(sb, "not measured: ");
		sb_str(sb, !r->gic.proven ? (r->gic.absent ? r->gic.absent : "?") : q->absent ? q->absent : "?");
	} else {
		sb_str(sb, "GICv");
		sb_u64(sb, r->gic.version);
		sb_str(sb, " (");
		sb_str(sb, r->gic.source);
		sb_str(sb, ") handler p50 ");
		sb_u64(sb, q->lat.p50);
		sb_str(sb, " / p99 ");
		sb_u64(sb, q->lat.p99);
		sb_str(sb, " ticks after CVAL, ");
		sb_u64(sb, q->fired);
		sb_str(sb, " of ");
		sb_u64(sb, q->shots);
		sb_str(sb, " shots on CPU ");
		sb_hex0x(sb, q->cpu_mpidr);
		sb_str(sb, q->restored ? "; restored" : "; NOT restored");
	}
	line(sb);
}

void a64_summary(struct a64_run *r)
{
	char b[256];
	struct strbuf sb;
	sb_init(&sb, b, sizeof b);
	line(&sb);
	sb_str(&sb, "clockprobe ");
	sb_str(&sb, A64_PROBE_VERSION);
	sb_str(&sb, " (arm64, UEFI, EL");
	sb_u64(&sb, r->el);
	sb_str(&sb, ")");
	line(&sb);
	const char *name = arm64_midr_name((uint32_t)r->midr);
	sb_str(&sb, "CPU      MIDR ");
	sb_hex0x(&sb, r->midr);
	sb_str(&sb, " ");
	sb_str(&sb, name ? name : "(part not in the table)");
	sb_str(&sb, ", ECV ");
	sb_u64(&sb, r->ecv.level);
	sb_str(&sb, ", CPUs started ");
	uint32_t up = 0;
	for (uint32_t i = 0; i < r->cpu_count; i++)
		up += r->cpus[i].started;
	sb_u64(&sb, up);
	sb_str(&sb, "/");
	sb_u64(&sb, r->cpu_count);
	line(&sb);
	sb_str(&sb, "console  ");
	sb_str(&sb, con_kind(r->con.kind));
	if (r->con.kind == A64_CON_PL011) {
		sb_str(&sb, " at ");
		sb_hex0x(&sb, r->con.base);
		sb_str(&sb, r->con.source && r->con.source[0] == 'd' ? " (DT " : " (ACPI SPCR)");
		if (r->con.source && r->con.source[0] == 'd') {
			sb_shown(&sb, r->dt.facts.console_node);
			sb_str(&sb, ")");
		}
	} else if (r->con.reason) {
		sb_str(&sb, ": ");
		sb_str(&sb, r->con.reason);
	}
	line(&sb);
	sb_str(&sb, "DT       ");
	if (r->dt.found) {
		sb_str(&sb, "at ");
		sb_hex0x(&sb, r->dt.address);
		sb_str(&sb, ", ");
		sb_u64(&sb, r->dt.facts.nodes);
		sb_str(&sb, " nodes, PSCI ");
		sb_str(&sb, fdt_psci_method_name(r->dt.facts.psci_method));
		sb_str(&sb, ", timer clock-frequency ");
		if (r->dt.facts.clock_frequency_present)
			sb_u64(&sb, r->dt.facts.clock_frequency);
		else
			sb_str(&sb, "none");
	} else {
		sb_str(&sb, "none: ");
		sb_str(&sb, r->dt.absent);
	}
	line(&sb);
	sb_str(&sb, "CNTFRQ   ");
	sb_u64(&sb, r->cntfrq);
	sb_str(&sb, " Hz; measured ");
	if (r->rate.measured) {
		sb_u64(&sb, r->rate.hz);
		sb_str(&sb, " Hz +/- ");
		sb_u64(&sb, r->rate.uncertainty_ppm);
		sb_str(&sb, " ppm over ");
		sb_u64(&sb, r->rate.seconds);
		sb_str(&sb, " s of UEFI GetTime (");
		sb_i64(&sb, r->cntfrq_check.measured_ppm);
		sb_str(&sb, r->cntfrq_check.measured_disagrees ? " ppm: DISAGREES)" : " ppm: agrees)");
	} else {
		sb_str(&sb, "no: ");
		sb_str(&sb, r->rate.absent);
	}
	line(&sb);
	sb_str(&sb, "reads    (per call, net of an empty call)");
	line(&sb);
	cost_line(&sb, &r->cost_cntvct);
	cost_line(&sb, &r->cost_cntpct);
	cost_line(&sb, &r->cost_cntvctss);
	cost_line(&sb, &r->cost_midr);
	sb_str(&sb, "traps    cntvct ");
	sb_str(&sb, r->cntvct_trap);
	sb_str(&sb, ", cntpct ");
	sb_str(&sb, r->cntpct_trap);
	line(&sb);
	sb_str(&sb, "PSCI     ");
	if (r->smccc.psci.known) {
		sb_u64(&sb, r->smccc.psci.major);
		sb_str(&sb, ".");
		sb_u64(&sb, r->smccc.psci.minor);
		sb_str(&sb, " via ");
		sb_str(&sb, acpi_arm_conduit_name(r->smccc.conduit));
		sb_str(&sb, r->smccc.conduit_source && r->smccc.conduit_source[0] == 'd' ? " (DT /psci)" : "");
	} else {
		sb_str(&sb, "none");
	}
	if (r->smccc.stopped) {
		sb_str(&sb, "; ");
		sb_shown(&sb, r->smccc.stopped);
	}
	line(&sb);
	if (r->xcpu.attempted) {
		sb_str(&sb, "x-CPU    ");
		if (r->xcpu.absent) {
			sb_str(&sb, r->xcpu.absent);
		} else {
			sb_u64(&sb, r->xcpu.rounds);
			sb_str(&sb, " rounds on ");
			sb_u64(&sb, r->xcpu.cpus);
			sb_str(&sb, " CPUs, ");
			sb_u64(&sb, r->xcpu.backwards);
			sb_str(&sb, " went backwards (worst ");
			sb_u64(&sb, r->xcpu.max_backwards_ticks);
			sb_str(&sb, " ticks); offsets within +/- ");
			sb_u64(&sb, r->xcpu.max_skew_bound_ticks);
			sb_str(&sb, " ticks");
		}
		line(&sb);
	}
	vtimer_line(&sb, r);
	a64_kvm_pv_line(&sb, r);
	line(&sb);
	a64_stolen_line(&sb, r);
	line(&sb);
	const struct verdict_arm64_outcome *o = &r->verdict.main;
	sb_str(&sb, "verdict  Linux ");
	sb_str(&sb, r->verdict.linux_kernel);
	sb_str(&sb, ": ");
	sb_str(&sb, o->clocksource);
	sb_str(&sb, ", clock_gettime by ");
	sb_str(&sb, o->clock_gettime);
	sb_str(&sb, ", errata: ");
	if (!r->verdict.errata_matched)
		sb_str(&sb, "none");
	for (unsigned b = 0, first = 1; b < ARM64_ERRATA_COUNT; b++)
		if (r->verdict.errata_matched & (1u << b)) {
			sb_str(&sb, first ? "" : ", ");
			sb_str(&sb, verdict_arm64_erratum_code(b));
			first = 0;
		}
	sb_str(&sb, r->verdict.main.el0_counter_trapped ? ", Linux traps EL0 counter reads" : "");
	line(&sb);
}
