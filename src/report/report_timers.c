/* The report's timers section: the LAPIC one-shot and TSC-deadline
 * timers, each its status, and when measured its arming cost and wake-up
 * latency over the shots, in TSC ticks and ns. */
#include "report_parts.h"
#include "timers.h"

static void timer_json(struct json *j, const char *key, const struct timer_result *t, uint64_t hz)
{
	json_object_begin(j, key);
	json_string(j, "status", timers_status_name(t->status));
	if (t->status != TIMER_OK)
		json_string(j, "reason", t->reason[0] ? t->reason : "not measured");
	if (t->method)
		json_string(j, "method", t->method);
	if (t->status == TIMER_OK || t->fired || t->missed) {
		json_u64(j, "shots_planned", t->shots_planned);
		json_u64(j, "budget_ms", t->budget_ms);
		json_bool(j, "stopped_by_budget", t->stopped_budget_ms != 0);
		json_u64(j, "fired", t->fired);
		json_u64(j, "missed", t->missed);
		json_u64(j, "early", t->early);
		json_u64(j, "most_early_cycles", t->most_early_ticks);
		json_u64(j, "delay_min_cycles", t->delay_min_ticks);
		json_u64(j, "delay_max_cycles", t->delay_max_ticks);
		dist_json(j, "arm_cycles", &t->arm_cycles, hz, false, false);
		dist_json(j, "arm_ns", &t->arm_cycles, hz, true, false);
		dist_json(j, "latency_cycles", &t->latency_cycles, hz, false, false);
		dist_json(j, "latency_ns", &t->latency_cycles, hz, true, false);
		json_array_begin(j, "first_shots");
		for (uint32_t i = 0; i < t->raw_n; i++) {
			json_object_begin(j, NULL);
			json_u64(j, "due_tsc", t->raw_due[i]);
			if (t->raw_handler[i])
				json_u64(j, "handler_tsc", t->raw_handler[i]);
			else
				json_null(j, "handler_tsc");
			json_object_end(j);
		}
		json_array_end(j);
	}
	if (t->tsc_per_apic_tick_fp32) {
		/* TSC ticks per APIC tick, to 1/1000. */
		json_fixed(j, "tsc_per_apic_tick",
			   (int64_t)(((unsigned __int128)t->tsc_per_apic_tick_fp32 * 1000 + (1ull << 31)) >> 32), 3);
		json_u64(j, "apic_hz", t->apic_hz);
		json_u64(j, "calibration_cycles", t->calibration_ticks);
		json_object_begin(j, "calibration");
		json_u64(j, "count0", t->cal_count0);
		json_u64(j, "tsc0", t->cal_t0);
		json_u64(j, "count1", t->cal_count1);
		json_u64(j, "tsc1", t->cal_t1);
		json_object_end(j);
	}
	json_object_end(j);
}

void timers_json(struct json *j, const struct run_results *r)
{
	const struct timers_result *t = &r->timers;
	uint64_t hz = tsc_hz_for_ns(r);
	json_object_begin(j, "timers");
	json_string(j, "phase", t->phase);
	json_bool(j, "ran", t->ran);
	json_bool(j, "apic_present", t->apic_present);
	json_bool(j, "x2apic", t->x2apic);
	if (t->apic_base)
		hex_json(j, "apic_base", t->apic_base);
	json_bool(j, "tsc_deadline_cpuid", t->deadline_cpuid);
	if (t->ran) {
		json_u64(j, "vector", t->vector);
		hex_json(j, "found_lvt_timer", t->found_lvt);
		hex_json(j, "found_divide", t->found_divide);
		json_u64(j, "found_initial_count", t->found_initial);
		json_u64(j, "elapsed_ms", rate_cycles_to_ns(t->elapsed_ticks, hz) / 1000000);
		json_bool(j, "restored", t->restored);
		json_bool(j, "tpr_raised", t->tpr_raised);
		json_bool(j, "lint0_masked", t->lint0_masked);
		json_bool(j, "svr_enabled_by_probe", t->svr_enabled_by_probe);
		json_bool(j, "pic_masked", t->pic_masked);
		if (t->pic_masked) {
			hex_json(j, "found_pic1_mask", t->found_pic1_mask);
			hex_json(j, "found_pic2_mask", t->found_pic2_mask);
		}
	}
	timer_json(j, "lapic_oneshot", &t->lapic_oneshot, hz);
	timer_json(j, "tsc_deadline", &t->tsc_deadline, hz);
	json_object_end(j);
}

/* ns in the summary's one rounded format (summary_sb_ns). */
static void ns_words(struct strbuf *sb, uint64_t cycles, uint64_t hz)
{
	sb_ns(sb, rate_cycles_to_ns_milli(cycles, hz));
}

/* One line per timer, wrapped to 100 columns (a long reason is wrapped,
 * never cut: it may be what the user acts on). */
void report_timers_summary(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	const struct timers_result *t = &r->timers;
	const struct timer_result *ts[2] = { &t->lapic_oneshot, &t->tsc_deadline };
	const char *names[2] = { "LAPIC one-shot", "TSC-deadline" };
	uint64_t hz = tsc_hz_for_ns(r);
	if (!t->phase && t->lapic_oneshot.status == TIMER_NOT_RUN)
		return;
	for (int i = 0; i < 2; i++) {
		char buf[400];
		struct strbuf sb;
		sb_init(&sb, buf, sizeof buf);
		sb_str(&sb, "Timer ");
		sb_str(&sb, names[i]);
		sb_str(&sb, ": ");
		if (ts[i]->status == TIMER_OK) {
			sb_str(&sb, "latency p50 ");
			ns_words(&sb, ts[i]->latency_cycles.p50, hz);
			sb_str(&sb, ", p99 ");
			ns_words(&sb, ts[i]->latency_cycles.p99, hz);
			sb_str(&sb, "; arm p50 ");
			ns_words(&sb, ts[i]->arm_cycles.p50, hz);
			sb_str(&sb, " (");
			sb_u64(&sb, ts[i]->fired);
			sb_char(&sb, '/');
			sb_u64(&sb, ts[i]->shots_planned);
			sb_str(&sb, " shots");
			if (ts[i]->missed) {
				sb_str(&sb, ", ");
				sb_u64(&sb, ts[i]->missed);
				sb_str(&sb, " missed");
			}
			sb_char(&sb, ')');
		} else {
			sb_str(&sb, timers_status_name(ts[i]->status));
			sb_str(&sb, ": ");
			sb_str(&sb, ts[i]->reason);
		}
		summary_emit_wrapped(buf, 2, true, emit);
	}
}
