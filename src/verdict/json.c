/* The verdict as report JSON.  Names follow the report contract
 * (docs/architecture.md; schema 1, docs/report-schema.json): extend,
 * never rename. */
#include "verdict_model.h"
#include "json.h"

/* "risk": null, or the race the TSC can lose and its outcome. */
static void risk_to_json(struct json *j, const struct verdict_risk *r)
{
	if (!r->reason) {
		json_null(j, "risk");
		return;
	}
	json_object_begin(j, "risk");
	json_string(j, "reason", r->reason);
	json_string(j, "linux_clocksource", r->linux_clocksource);
	json_bool(j, "vdso", r->vdso);
	json_string(j, "available_clocksource", r->available_clocksource);
	json_string(j, "note", r->note);
	json_object_end(j);
}

/* "boots" and, when false, "boot_failure": why and the first release
 * that boots the guest; null when it boots. */
static void boot_to_json(struct json *j, bool boots, const char *reason, const char *from)
{
	json_bool(j, "boots", boots);
	if (boots) {
		json_null(j, "boot_failure");
		return;
	}
	json_object_begin(j, "boot_failure");
	json_string(j, "reason", reason);
	json_string(j, "first_release", from);
	json_object_end(j);
}

/* The measured part of a predicted_read_ns, its SE (null: unknown), and
 * whether the syscall estimate makes the rest: a reader never shows the
 * sum as measured. */
static void measured_to_json(struct json *j, bool measured, uint64_t ns_milli, uint64_t se_milli, bool syscall)
{
	if (measured)
		json_fixed(j, "measured_read_ns", (int64_t)ns_milli, 3);
	else
		json_null(j, "measured_read_ns");
	if (measured && se_milli)
		json_fixed(j, "measured_read_se_ns", (int64_t)se_milli, 3);
	else
		json_null(j, "measured_read_se_ns");
	json_bool(j, "syscall_estimate_included", measured && syscall);
}

/* What each release of a range was judged as the main kernel is: its
 * releases (and the maintained long-term lines among them), confidence,
 * read cost and warnings, so gates and fleet data can ask any kernel. */
static void range_judgment_to_json(struct json *j, const struct verdict_kernel_range *r)
{
	json_array_begin(j, "releases");
	for (size_t i = r->first; i <= r->last; i++)
		json_string(j, NULL, verdict_release_name(i));
	json_array_end(j);
	json_array_begin(j, "longterm");
	for (size_t i = r->first; i <= r->last; i++)
		if (verdict_release_maintained_longterm(i))
			json_string(j, NULL, verdict_release_name(i));
	json_array_end(j);
	json_string(j, "confidence", verdict_confidence_name((enum verdict_confidence)r->confidence));
	if (r->read_cost_measured)
		json_fixed(j, "predicted_read_ns", (int64_t)r->predicted_read_ns_milli, 3);
	else
		json_null(j, "predicted_read_ns");
	measured_to_json(j, r->read_cost_measured, r->measured_read_ns_milli, r->measured_read_se_ns_milli,
			 r->syscall_added);
	json_array_begin(j, "warnings");
	for (uint32_t w = 0; w < r->warning_count; w++) {
		json_object_begin(j, NULL);
		json_string(j, "code", r->warning_codes[w]);
		json_string(j, "severity", verdict_severity_name((enum verdict_severity)r->warning_severity[w]));
		json_object_end(j);
	}
	json_array_end(j);
}

/* "kernel_set": the kernels the headline is for; "headline": that line. */
static void kernel_set_to_json(struct json *j, const struct verdict *v)
{
	static char line[512];

	json_object_begin(j, "kernel_set");
	json_string(j, "name", verdict_kernel_set_name(&v->kernel_set));
	json_array_begin(j, "releases");
	for (size_t i = 0; i < verdict_release_count(); i++)
		if (verdict_kernel_set_has(&v->kernel_set, i))
			json_string(j, NULL, verdict_release_name(i));
	json_array_end(j);
	json_object_end(j);
	verdict_summary_line(v, line, sizeof line);
	json_string(j, "headline", line);
	/* The result line and its word, for a script that reads the JSON
	 * rather than the serial log. */
	enum verdict_result res = verdict_result_line(v, line, sizeof line);
	json_object_begin(j, "result");
	json_string(j, "status", verdict_result_name(res));
	json_string(j, "line", line);
	json_object_end(j);
}

static void warnings_to_json(struct json *j, const struct verdict *v)
{
	json_array_begin(j, "warnings");
	for (uint32_t i = 0; i < v->warning_count; i++) {
		const struct verdict_warning *w = &v->warnings[i];
		json_object_begin(j, NULL);
		json_string(j, "code", w->code);
		json_string(j, "severity", verdict_severity_name(w->severity));
		json_string(j, "message", w->message);
		json_string(j, "evidence", w->evidence);
		json_string(j, "fix", w->fix);
		json_object_end(j);
	}
	json_array_end(j);
}

void verdict_to_json(struct json *j, const struct verdict *v)
{
	json_object_begin(j, "verdict");
	json_string(j, "linux_clocksource", v->linux_clocksource);
	json_string(j, "linux_kernel", v->linux_kernel);
	json_bool(j, "vdso", v->vdso);
	if (v->read_cost_measured)
		json_fixed(j, "predicted_read_ns", (int64_t)v->predicted_read_ns_milli, 3);
	else
		json_null(j, "predicted_read_ns");
	json_u64(j, "syscall_overhead_ns_estimate", v->syscall_overhead_ns_estimate);
	json_u64(j, "syscall_overhead_ns_low", v->syscall_overhead_ns_low);
	json_u64(j, "syscall_overhead_ns_high", v->syscall_overhead_ns_high);
	measured_to_json(j, v->read_cost_measured, v->measured_read_ns_milli, v->measured_read_se_ns_milli,
			 v->syscall_added);
	json_string(j, "confidence", verdict_confidence_name(v->confidence));
	json_string(j, "current_clocksource", v->current_clocksource);
	json_string(j, "available_clocksource", v->available_clocksource);
	risk_to_json(j, &v->risk);
	boot_to_json(j, v->boots, v->boot_reason, v->boots_from);
	large_guest_to_json(j, &v->large_guest);
	json_array_begin(j, "reasoning");
	for (uint32_t i = 0; i < v->reasoning_count; i++)
		json_string(j, NULL, v->reasoning[i]);
	json_array_end(j);
	json_array_begin(j, "by_kernel");
	for (uint32_t i = 0; i < v->by_kernel_count; i++) {
		const struct verdict_kernel_range *r = &v->by_kernel[i];
		json_object_begin(j, NULL);
		json_string(j, "from", r->from);
		json_string(j, "to", r->to);
		json_string(j, "linux_clocksource", r->linux_clocksource);
		json_bool(j, "vdso", r->vdso);
		json_string(j, "note", r->note);
		json_string(j, "available_clocksource", r->available_clocksource);
		risk_to_json(j, &r->risk);
		boot_to_json(j, r->boots, r->boot_reason, r->boots_from);
		range_judgment_to_json(j, r);
		json_object_end(j);
	}
	json_array_end(j);
	kernel_set_to_json(j, v);
	json_u64(j, "text_cut", v->text_cut);
	warnings_to_json(j, v);
	windows_to_json(j, &v->windows);
	verdict_inputs_to_json(j, &v->inputs);
	json_object_end(j);
}
