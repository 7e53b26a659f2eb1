/* The machine-readable report: schema 1 (docs/report-schema.json; the
 * contract and its framing: docs/architecture.md, "The report contract").
 * Names here are a contract with tools outside this repository: extend,
 * never rename.
 * Built from the run's results alone; deliver.c hands it to the sink. */
#include "report_parts.h"

/* Where the run's time went, stage by stage (src/main.c's list): a stage
 * still running as this report is built (the report stage itself, the
 * watch before its final report) has no figure yet. */
static void stages_json(struct json *j, const struct run_results *r)
{
	uint64_t hz = results_tsc_hz(r);
	json_array_begin(j, "stages");
	for (uint32_t i = 0; i < r->stage_count && i < RUN_MAX_STAGES; i++) {
		const struct stage_time *t = &r->stages[i];
		bool done = t->end_tsc >= t->start_tsc && t->end_tsc;
		json_object_begin(j, NULL);
		json_string(j, "name", t->name);
		json_bool(j, "complete", done);
		if (done)
			json_fixed(j, "elapsed_ms", (int64_t)(rate_cycles_to_ns(t->end_tsc - t->start_tsc, hz) / 1000), 3);
		else
			json_null(j, "elapsed_ms");
		json_object_end(j);
	}
	json_array_end(j);
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
	json_string(j, "run_id", r->identity.run_id[0] ? r->identity.run_id : NULL);
	json_string(j, "run_id_source", r->identity.run_id_source);
	json_string(j, "started_utc", r->identity.started_utc[0] ? r->identity.started_utc : NULL);
	json_string(j, "started_utc_source", r->identity.started_utc_source);
	json_string(j, "label", r->facts.settings.label[0] ? r->facts.settings.label : NULL);
	json_bool(j, "label_truncated", r->facts.settings.label_truncated);
	json_u64(j, "resend_seconds", r->facts.settings.resend_seconds);
	json_string(j, "mode", settings_mode_name(r->facts.settings.mode));
	json_u64(j, "samples_setting", r->facts.settings.samples);
	json_u64(j, "faults_caught", r->faults_caught);
	if (r->facts.spin_cycles)
		json_u64(j, "spin_cycles", r->facts.spin_cycles);
	else
		json_null(j, "spin_cycles");
	json_string(j, "spin_cycles_basis", r->facts.spin_cycles_basis);
	json_object_begin(j, "fault_guard");
	json_string(j, "noncanonical_read", fault_name(r->selfcheck.noncanonical_vector));
	json_u64(j, "bogus_msr", r->selfcheck.bogus_msr);
	json_string(j, "bogus_msr_read", fault_name(r->selfcheck.bogus_msr_vector));
	if (!r->selfcheck.bogus_msr_vector)
		json_u64(j, "bogus_msr_value", r->selfcheck.bogus_msr_value);
	json_u64(j, "ve_vc_firmware_gates", r->selfcheck.ve_vc_firmware_has);
	json_u64(j, "ve_vc_gates_kept", r->selfcheck.ve_vc_kept);
	json_object_end(j);
	stages_json(j, r);
	json_object_end(j);
	platform_json(j, r);
	baselines_json(j, r);
	json_array_begin(j, "sources");
	for (unsigned i = 0; i < r->source_count; i++)
		source_json(j, &r->sources[i], r);
	json_array_end(j);
	/* The sources' own sections (kvm-clock's "kvmclock"), measured or not. */
	for (unsigned i = 0; i < r->registry_count; i++)
		if (r->registry[i]->report_section)
			r->registry[i]->report_section(j, results_facts(r, (enum source_id)i), results_tsc_hz(r));
	kvm_clock_pairing_json(j, r);
	cross_cpu_json(j, &r->xcpu);
	drift_json(j, &r->freq, r);
	gaps_json(j, &r->gaps, &r->gaps_cpus, &r->steal);
	contention_json(j, r);
	timers_json(j, r);
	verdict_to_json(j, &r->verdict);
	json_array_begin(j, "errors");
	for (uint32_t i = 0; i < r->error_count; i++) {
		json_object_begin(j, NULL);
		json_string(j, "code", r->errors[i].code);
		json_string(j, "message", r->errors[i].message);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "errors_dropped", r->errors_dropped);
	if (r->raw.captured)
		raw_json(j, r);
	if (r->watch)
		watch_json_section(j, r->watch);
	json_object_end(j);
	return json_ok(j);
}

/* Room kept for what follows the raw tables: their closing brackets and
 * the raw_truncated count. */
#define RAW_TAIL_RESERVE 256

static size_t try_build(const struct run_results *r, char *buf, size_t cap)
{
	struct json j;
	json_init(&j, buf, cap);
	return report_build_json(&j, r) ? j.len : 0;
}

size_t report_build_whole(struct run_results *r, char *buf, size_t cap)
{
	size_t len = try_build(r, buf, cap);
	if (len || !r->raw.captured)
		return len;
	/* The size of everything but the table data (error text included):
	 * build with a budget of one byte, then hand the rest to the data. */
	char line[160];
	struct strbuf sb;
	results_error(r, "RAW_TRUNCATED", "");
	struct run_error *e = r->error_count ? &r->errors[r->error_count - 1] : NULL;
	r->raw.data_budget = 1;
	size_t bare = try_build(r, buf, cap);
	if (bare && bare + RAW_TAIL_RESERVE < cap) {
		r->raw.data_budget = cap - bare - RAW_TAIL_RESERVE;
		if (e && str_equal(e->code, "RAW_TRUNCATED")) {
			sb_init(&sb, line, sizeof line);
			sb_u64(&sb, report_raw_tables_omitted(r));
			sb_str(&sb, " ACPI table dumps left out: the report buffer holds ");
			sb_u64(&sb, cap);
			sb_str(&sb, " bytes");
			str_copy(e->message, sizeof e->message, line);
		}
		len = try_build(r, buf, cap);
		if (len)
			return len;
	}
	r->raw.captured = false;
	if (e && str_equal(e->code, "RAW_TRUNCATED")) {
		e->code = "RAW_DROPPED";
		str_copy(e->message, sizeof e->message, "the raw part did not fit the report buffer at all: left out");
	}
	return try_build(r, buf, cap);
}
