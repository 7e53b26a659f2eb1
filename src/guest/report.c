/* The guest report (docs/report-schema.json, $defs.guest_report) and its
 * summary: functions of struct guest_results alone.  Pure: the JSON
 * writer, strbuf and CRC-32 are the probe's own (src/lib). */
#include "guest.h"
#include "crc32.h"

void guest_skip(struct guest_results *r, const char *what, const char *reason)
{
	if (r->n_skips >= GUEST_MAX_SKIPS)
		return;
	struct guest_skip *s = &r->skips[r->n_skips++];
	s->what = what;
	str_copy(s->reason, sizeof s->reason, reason);
}

void guest_error(struct guest_results *r, const char *code, const char *message)
{
	if (r->n_errors >= GUEST_MAX_ERRORS) {
		r->errors_dropped++;
		return;
	}
	struct guest_error *e = &r->errors[r->n_errors++];
	e->code = code;
	str_copy(e->message, sizeof e->message, message);
}

static void str_or_null(struct json *j, const char *key, const char *s)
{
	if (s && s[0])
		json_string(j, key, s);
	else
		json_null(j, key);
}

static void dist_out(struct json *j, const char *key, const struct dist *d)
{
	json_object_begin(j, key);
	json_u64(j, "min", d->min);
	json_u64(j, "p50", d->p50);
	json_u64(j, "p90", d->p90);
	json_u64(j, "p99", d->p99);
	json_u64(j, "p999", d->p999);
	json_u64(j, "max", d->max);
	json_u64(j, "mean", d->mean);
	json_object_end(j);
}

static void identity_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, "guest");
	json_string(j, "version", GUEST_VERSION);
	str_or_null(j, "run_id", r->run_id);
	str_or_null(j, "run_id_source", r->run_id_source);
	str_or_null(j, "started_utc", r->started_utc);
	str_or_null(j, "label", r->label);
	str_or_null(j, "label_source", r->label_source);
	json_u64(j, "elapsed_ms", r->elapsed_ms);
	json_u64(j, "euid", r->euid);
	json_bool(j, "root", r->euid == 0);
	json_object_begin(j, "options");
	json_bool(j, "switch", r->opt_switch);
	json_u64(j, "samples", r->opt_samples);
	json_u64(j, "budget_ms", r->opt_budget_ms);
	json_u64(j, "settle_s", r->opt_settle_s);
	json_u64(j, "timeout_s", r->opt_timeout_s);
	str_or_null(j, "sysfs_dir", r->sysfs_dir);
	json_object_end(j);
	if (r->pinned_cpu >= 0)
		json_i64(j, "pinned_cpu", r->pinned_cpu);
	else
		json_null(j, "pinned_cpu");
	str_or_null(j, "pin_reason", r->pin_reason);
	json_object_end(j);
}

static void kernel_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, "kernel");
	str_or_null(j, "release", r->release);
	str_or_null(j, "version", r->kversion);
	str_or_null(j, "machine", r->machine);
	str_or_null(j, "cmdline", r->cmdline);
	str_or_null(j, "cpus_online", r->cpus_online);
	str_or_null(j, "cpus_possible", r->cpus_possible);
	json_u64(j, "uptime_ms", r->uptime_ms);
	json_object_end(j);
}

static void cpu_json(struct json *j, const struct guest_results *r)
{
	const struct cpu_info *c = &r->cpu;
	json_object_begin(j, "cpu");
	if (r->cpuid_ok) {
		json_string(j, "vendor", c->vendor);
		str_or_null(j, "brand", c->brand);
		json_u64(j, "family", c->family);
		json_u64(j, "model", c->model);
		json_u64(j, "stepping", c->stepping);
		json_bool(j, "invariant_tsc", c->invariant_tsc);
		json_null(j, "cpuid_reason");
	} else {
		json_null(j, "vendor");
		json_null(j, "brand");
		json_null(j, "family");
		json_null(j, "model");
		json_null(j, "stepping");
		json_null(j, "invariant_tsc");
		str_or_null(j, "cpuid_reason", r->cpuid_reason);
	}
	json_u64(j, "logical_cpus", r->online_cpus);
	if (r->cpuinfo_ok && r->cpuinfo.flags_found) {
		json_object_begin(j, "flags");
		for (int f = 0; f < CPUF_COUNT; f++)
			json_bool(j, cpu_flag_names[f], r->cpuinfo.flag[f]);
		json_object_end(j);
		json_array_begin(j, "flags_differ");
		for (int f = 0; f < CPUF_COUNT; f++)
			if (r->cpuinfo.flags_differ & (1u << f))
				json_string(j, NULL, cpu_flag_names[f]);
		json_array_end(j);
		json_u64(j, "cpuinfo_processors", r->cpuinfo.processors);
		json_null(j, "flags_reason");
	} else {
		json_null(j, "flags");
		json_null(j, "flags_differ");
		json_null(j, "cpuinfo_processors");
		json_string(j, "flags_reason", r->cpuinfo_ok ? "/proc/cpuinfo has no flags line" : r->cpuinfo_reason);
	}
	json_object_end(j);
}

static void hv_json(struct json *j, const struct guest_results *r)
{
	const struct hv_info *h = &r->hv;
	json_object_begin(j, "hypervisor");
	if (!r->cpuid_ok) {
		json_null(j, "present");
		json_null(j, "signature");
		json_null(j, "name");
		json_null(j, "max_leaf");
		json_array_begin(j, "signatures");
		json_array_end(j);
	} else {
		json_bool(j, "present", h->present);
		str_or_null(j, "signature", h->present ? h->signature : NULL);
		str_or_null(j, "name", h->name);
		if (h->range_count)
			json_u64(j, "max_leaf", h->max_leaf);
		else
			json_null(j, "max_leaf");
		json_array_begin(j, "signatures");
		for (size_t i = 0; i < h->range_count; i++) {
			json_object_begin(j, NULL);
			json_u64(j, "leaf", h->ranges[i].base);
			json_string(j, "signature", h->ranges[i].signature);
			json_string(j, "name", h->ranges[i].name);
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
}

static void smbios_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, "smbios");
	json_string(j, "source", "/sys/class/dmi/id");
	str_or_null(j, "manufacturer", r->manufacturer);
	str_or_null(j, "product", r->product);
	str_or_null(j, "uuid", r->uuid);
	if (!r->uuid[0])
		json_string(j, "uuid_reason", r->uuid_reason);
	str_or_null(j, "serial", r->serial);
	if (!r->serial[0])
		json_string(j, "serial_reason", r->serial_reason);
	json_object_end(j);
}

static void tsc_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, "tsc");
	if (r->tsc_khz)
		json_u64(j, "khz", r->tsc_khz);
	else
		json_null(j, "khz");
	str_or_null(j, "khz_source", r->tsc_khz_source);
	str_or_null(j, "khz_line", r->tsc_khz_line);
	json_bool(j, "rdtsc", r->rdtsc_ok);
	str_or_null(j, "rdtsc_reason", r->rdtsc_reason);
	if (r->tsc_measured_khz) {
		json_u64(j, "measured_khz", r->tsc_measured_khz);
		json_u64(j, "measured_window_ms", r->tsc_measured_window_ms);
		json_u64(j, "measured_uncertainty_ppm", r->tsc_measured_uncertainty_ppm);
	} else {
		json_null(j, "measured_khz");
		json_null(j, "measured_window_ms");
		json_null(j, "measured_uncertainty_ppm");
	}
	json_object_begin(j, "step");
	if (r->step.ticks)
		json_u64(j, "ticks", r->step.ticks);
	else
		json_null(j, "ticks");
	str_or_null(j, "method", r->step.method);
	json_u64(j, "clusters", r->step.clusters);
	json_u64(j, "pairs", r->step.pairs);
	json_u64(j, "stalls", r->step.stalls);
	json_u64(j, "min_nonzero_cycles", r->step.min_nonzero);
	json_u64(j, "max_nonzero_cycles", r->step.max_nonzero);
	json_u64(j, "bound_ticks", r->step.bound_ticks);
	json_object_end(j);
	json_object_end(j);
}

/* The stamp pair's instructions (sys.h): the report says what it timed
 * with on each architecture. */
#if defined(__aarch64__)
#define GUEST_BRACKET "ISB;MRS CNTVCT_EL0;ISB"
#else
#define GUEST_BRACKET "LFENCE;RDTSC;LFENCE"
#endif

/* Written on arm64 only: an x86 report keeps its exact shape. */
static void arm64_json(struct json *j, const struct guest_results *r)
{
	const struct guest_arm64 *a = &r->arm64;
	char hex[24];

	if (!a->present)
		return;
	json_object_begin(j, "arm64");
	json_string(j, "counter", "cntvct_el0");
	json_u64(j, "cntfrq_hz", a->cntfrq_hz);
	json_array_begin(j, "midr");
	for (uint32_t i = 0; i < a->n_midr && i < GUEST_ARM64_CPUS; i++) {
		struct strbuf sb;
		sb_init(&sb, hex, sizeof hex);
		sb_str(&sb, "0x");
		sb_hex(&sb, a->midr[i], 8);
		json_string(j, NULL, hex);
	}
	json_array_end(j);
	str_or_null(j, "midr_reason", a->midr_reason);
	json_bool(j, "hwcap2_ecv", a->hwcap2_ecv);
	json_u64(j, "counter_reads", a->counter_reads);
	if (a->counter_reads)
		json_fixed(j, "counter_read_ns", (int64_t)a->counter_read_ps, 3);
	else
		json_null(j, "counter_read_ns");
	json_object_end(j);
}

static void clocksource_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, "clocksource");
	str_or_null(j, "current", r->current);
	json_array_begin(j, "available");
	for (uint32_t i = 0; i < r->available.n; i++)
		json_string(j, NULL, r->available.name[i]);
	json_array_end(j);
	json_u64(j, "available_invalid", r->available.invalid);
	str_or_null(j, "reason", r->cs_ok ? NULL : r->cs_reason);
	json_array_begin(j, "changes");
	for (uint32_t i = 0; i < r->n_changes; i++) {
		json_object_begin(j, NULL);
		json_u64(j, "uptime_ms", r->changes[i].uptime_ms);
		json_string(j, "current", r->changes[i].current);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "changes_dropped", r->changes_dropped);
	if (r->restore_method[0]) {
		json_object_begin(j, "restore");
		json_string(j, "method", r->restore_method);
		json_bool(j, "restored", r->restored);
		str_or_null(j, "current_after", r->current_after);
		json_object_end(j);
	} else {
		json_null(j, "restore");
	}
	json_object_end(j);
}

/* "[    1.016869] msg": dmesg's own format, so a line quoted from the
 * report reads as the user's dmesg does. */
static void dmesg_line(struct strbuf *sb, const struct klog_line *l)
{
	if (l->has_ts) {
		char sec[24];
		struct strbuf s2;
		sb_init(&s2, sec, sizeof sec);
		sb_u64(&s2, l->t_us / 1000000);
		sb_char(sb, '[');
		for (size_t k = s2.len; k < 5; k++)
			sb_char(sb, ' ');
		sb_str(sb, sec);
		sb_char(sb, '.');
		uint64_t us = l->t_us % 1000000;
		for (uint64_t div = 100000; div; div /= 10)
			sb_char(sb, (char)('0' + (us / div) % 10));
		sb_str(sb, "] ");
	}
	sb_str(sb, l->text);
}

static void history_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, "history");
	json_string(j, "status", r->history_status ? r->history_status : "skipped");
	str_or_null(j, "reason", r->history_reason);
	str_or_null(j, "source", r->history_source);
	json_u64(j, "records_read", r->records_read);
	if (r->first_seq_known)
		json_u64(j, "first_seq", r->first_seq);
	else
		json_null(j, "first_seq");
	json_array_begin(j, "events");
	for (uint32_t i = 0; i < r->n_lines; i++) {
		const struct klog_line *l = &r->lines[i];
		if (l->ev.kind == KLOG_OTHER)
			continue;
		json_object_begin(j, NULL);
		if (l->has_ts)
			json_u64(j, "t_us", l->t_us);
		else
			json_null(j, "t_us");
		json_string(j, "kind", klog_kind_names[l->ev.kind]);
		str_or_null(j, "clocksource", l->ev.clocksource);
		if (l->ev.khz)
			json_u64(j, "khz", l->ev.khz);
		else
			json_null(j, "khz");
		json_string(j, "line", l->text);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "lines");
	for (uint32_t i = 0; i < r->n_lines; i++) {
		char buf[GUEST_LINE_TEXT + 24];
		struct strbuf sb;
		sb_init(&sb, buf, sizeof buf);
		dmesg_line(&sb, &r->lines[i]);
		json_string(j, NULL, buf);
	}
	json_array_end(j);
	json_u64(j, "lines_dropped", r->lines_dropped);
	json_object_end(j);
}

static void cost_json(struct json *j, const char *key, const struct path_cost *c)
{
	json_object_begin(j, key);
	json_bool(j, "measured", c->measured);
	str_or_null(j, "reason", c->measured ? NULL : c->reason);
	json_u64(j, "samples", c->samples);
	if (c->measured && c->samples) {
		dist_out(j, "cycles", &c->cycles);
		if (c->have_ns)
			dist_out(j, "ns", &c->ns);
		else
			json_null(j, "ns");
		json_u64(j, "harness_p50_cycles", c->harness_p50_cycles);
		json_u64(j, "below_harness", c->below_harness);
	} else {
		json_null(j, "cycles");
		json_null(j, "ns");
		json_null(j, "harness_p50_cycles");
		json_null(j, "below_harness");
	}
	json_u64(j, "batch_calls", c->batch_calls);
	if (c->batch_calls)
		json_u64(j, "batch_ns", c->batch_ns);
	else
		json_null(j, "batch_ns");
	json_bool(j, "deadline_hit", c->deadline_hit);
	json_string(j, "method", GUEST_BRACKET " before and after each call; each window of 64 calls minus the median of the 64 empty brackets before it; batch_ns: the clock's own time over back-to-back calls");
	json_object_end(j);
}

static void measurement_json(struct json *j, const struct cs_measurement *m)
{
	json_object_begin(j, NULL);
	json_string(j, "clocksource", m->clocksource);
	json_string(j, "status", m->status ? m->status : "error");
	str_or_null(j, "reason", m->reason);
	json_bool(j, "switched", m->switched);
	json_u64(j, "resolution_ns", m->resolution_ns);
	json_object_begin(j, "vdso");
	const struct vdso_check *v = &m->vdso_check;
	if (v->known)
		json_bool(j, "in_vdso", v->in_vdso);
	else
		json_null(j, "in_vdso");
	json_u64(j, "calls_checked", v->calls);
	json_u64(j, "kernel_entries", v->kernel_entries);
	str_or_null(j, "check_method", v->method);
	str_or_null(j, "check_reason", v->known ? NULL : v->reason);
	cost_json(j, "cost", &m->vdso);
	json_object_end(j);
	json_object_begin(j, "syscall");
	cost_json(j, "cost", &m->syscall);
	json_object_end(j);
	const struct delta_stats *d = &m->deltas;
	json_object_begin(j, "deltas");
	json_bool(j, "measured", d->measured);
	str_or_null(j, "reason", d->measured ? NULL : d->reason);
	json_u64(j, "samples", d->samples);
	if (d->measured && d->samples)
		dist_out(j, "ns", &d->ns);
	else
		json_null(j, "ns");
	json_u64(j, "zero", d->zero);
	json_u64(j, "backward", d->backward);
	json_u64(j, "max_backward_ns", d->max_backward_ns);
	json_u64(j, "min_nonzero_ns", d->min_nonzero_ns);
	json_bool(j, "deadline_hit", d->deadline_hit);
	json_object_end(j);
	json_object_end(j);
}

bool guest_report_json(struct json *j, const struct guest_results *r)
{
	json_object_begin(j, NULL);
	json_u64(j, "schema", 1);
	identity_json(j, r);
	kernel_json(j, r);
	json_object_begin(j, "platform");
	cpu_json(j, r);
	hv_json(j, r);
	smbios_json(j, r);
	json_object_end(j);
	tsc_json(j, r);
	arm64_json(j, r);
	clocksource_json(j, r);
	history_json(j, r);
	json_array_begin(j, "measurements");
	for (uint32_t i = 0; i < r->n_meas; i++)
		measurement_json(j, &r->meas[i]);
	json_array_end(j);
	json_array_begin(j, "skipped");
	for (uint32_t i = 0; i < r->n_skips; i++) {
		json_object_begin(j, NULL);
		json_string(j, "what", r->skips[i].what);
		json_string(j, "reason", r->skips[i].reason);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "errors");
	for (uint32_t i = 0; i < r->n_errors; i++) {
		json_object_begin(j, NULL);
		json_string(j, "code", r->errors[i].code);
		json_string(j, "message", r->errors[i].message);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "errors_dropped", r->errors_dropped);
	json_object_end(j);
	return json_ok(j);
}

void guest_frame_end(struct strbuf *sb, const char *json, size_t len)
{
	sb_str(sb, "==== CLOCKPROBE GUEST END crc32=");
	sb_hex(sb, crc32_update(0, json, len), 8);
	sb_str(sb, " bytes=");
	sb_u64(sb, len);
	sb_str(sb, " ====");
}

static void cost_line(struct strbuf *sb, const char *what, const struct path_cost *c)
{
	sb_str(sb, what);
	if (!c->measured) {
		sb_str(sb, "not measured (");
		sb_str(sb, c->reason);
		sb_str(sb, ")");
		return;
	}
	if (c->have_ns) {
		sb_str(sb, "p50 ");
		sb_u64(sb, c->ns.p50);
		sb_str(sb, " ns, p99 ");
		sb_u64(sb, c->ns.p99);
		sb_str(sb, " ns");
	} else {
		sb_str(sb, "p50 ");
		sb_u64(sb, c->cycles.p50);
		sb_str(sb, " ticks");
	}
	if (c->batch_calls) {
		sb_str(sb, ", batch ");
		sb_u64(sb, c->batch_ns);
		sb_str(sb, " ns/call");
	}
}

void guest_summary(struct strbuf *sb, const struct guest_results *r)
{
	sb_str(sb, "clockprobe-guest " GUEST_VERSION ": Linux ");
	sb_str(sb, r->release[0] ? r->release : "?");
	sb_str(sb, ", clocksource ");
	sb_str(sb, r->current[0] ? r->current : "(unknown)");
	sb_str(sb, " (available:");
	for (uint32_t i = 0; i < r->available.n; i++) {
		sb_char(sb, ' ');
		sb_str(sb, r->available.name[i]);
	}
	sb_str(sb, "); hypervisor ");
	sb_str(sb, r->cpuid_ok && r->hv.name ? r->hv.name : "none");
	sb_char(sb, '\n');
	for (uint32_t i = 0; i < r->n_meas; i++) {
		const struct cs_measurement *m = &r->meas[i];
		sb_str(sb, "  ");
		sb_str(sb, m->clocksource);
		sb_str(sb, ": ");
		if (!str_equal(m->status ? m->status : "", "ok")) {
			sb_str(sb, "error: ");
			sb_str(sb, m->reason);
			sb_char(sb, '\n');
			continue;
		}
		sb_str(sb, m->vdso_check.known ? (m->vdso_check.in_vdso ? "vDSO" : "syscall (vDSO falls back)")
					       : "vDSO path unknown");
		cost_line(sb, "; vDSO call ", &m->vdso);
		cost_line(sb, "; syscall ", &m->syscall);
		if (m->deltas.measured) {
			sb_str(sb, "; deltas p50/p99/p999/max ");
			sb_u64(sb, m->deltas.ns.p50);
			sb_char(sb, '/');
			sb_u64(sb, m->deltas.ns.p99);
			sb_char(sb, '/');
			sb_u64(sb, m->deltas.ns.p999);
			sb_char(sb, '/');
			sb_u64(sb, m->deltas.ns.max);
			sb_str(sb, " ns");
		}
		sb_char(sb, '\n');
	}
	for (uint32_t i = 0; i < r->n_skips; i++) {
		sb_str(sb, "  skipped ");
		sb_str(sb, r->skips[i].what);
		sb_str(sb, ": ");
		sb_str(sb, r->skips[i].reason);
		sb_char(sb, '\n');
	}
	for (uint32_t i = 0; i < r->n_errors; i++) {
		sb_str(sb, "  error ");
		sb_str(sb, r->errors[i].code);
		sb_str(sb, ": ");
		sb_str(sb, r->errors[i].message);
		sb_char(sb, '\n');
	}
}
