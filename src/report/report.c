/* The machine-readable report: schema v1 of design.md.  Names here are a
 * contract with tools outside this repository: extend, never rename.
 * Built from the run's results alone; src/console/emit.c sends it out. */
#include "watch.h"
#include "report_parts.h"

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
	if (r->watch)
		watch_json_section(j, r->watch);
	json_object_end(j);
	return json_ok(j);
}
