/* The watch record and the report's watch section, from the results alone. */
#include "report_parts.h"
#include "strbuf.h"

static void offsets(struct json *j, const struct watch_result *w)
{
	json_array_begin(j, "offsets");
	for (unsigned i = 0; i < w->det.ref_count; i++) {
		const struct watch_ref_state *s = &w->det.ref[i];
		if (!s->seen)
			continue;
		json_object_begin(j, NULL);
		json_string(j, "against", s->name);
		json_string(j, "status", s->stopped ? "stopped" : "ok");
		json_i64(j, "cumulative_ns", s->cumulative_offset_ns);
		json_i64(j, "interval_ns", s->interval_offset_ns);
		if (s->drift_valid) {
			json_fixed(j, "drift_ppm", s->drift_mppm, 3);
			json_fixed(j, "uncertainty_ppm", (int64_t)s->drift_uncertainty_mppm, 3);
		} else {
			json_null(j, "drift_ppm");
			json_null(j, "uncertainty_ppm");
		}
		json_object_end(j);
	}
	json_array_end(j);
}

static void events(struct json *j, const struct watch_result *w)
{
	json_array_begin(j, "events");
	for (uint32_t i = 0; i < w->det.event_count; i++) {
		const struct watch_event *e = &w->det.events[i];
		json_object_begin(j, NULL);
		json_string(j, "type", watch_event_name(e->type));
		json_fixed(j, "at_s", (int64_t)e->at_ms, 3);
		if (e->has_duration)
			json_fixed(j, "duration_s", (int64_t)e->duration_us, 6);
		else
			json_null(j, "duration_s");
		json_string(j, "evidence", e->evidence);
		if (e->type == WATCH_EVENT_PAUSE)
			json_bool(j, "tsc_ran_on", e->tsc_ran_on);
		json_object_end(j);
	}
	json_array_end(j);
	json_u64(j, "events_total", w->det.events_total);
}

static void json_u64_or_null(struct json *j, const char *key, bool has, uint64_t v)
{
	if (has)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

static void replay_run(struct json *j, const struct watch_result *w, unsigned i)
{
	const struct wd_replay *r = &w->replay[i];
	const struct verdict_wd_era *e = &r->era;
	char kernels[24];
	wd_era_range(kernels, sizeof kernels, e);
	json_object_begin(j, NULL);
	json_string(j, "kernels", kernels);
	json_string(j, "from", e->from);
	json_string(j, "to", e->to);
	json_string(j, "watchdog", r->watchdog);
	json_string(j, "state", wd_state_name(r->state));
	json_string(j, "reason", r->reason);
	json_string(j, "check", e->check == VERDICT_WD_FREQ ? "freq" : "margin");
	json_u64_or_null(j, "margin_ns", e->check == VERDICT_WD_MARGIN, e->margin_ns);
	json_u64_or_null(j, "freq_shift", e->check == VERDICT_WD_FREQ, e->freq_shift);
	json_u64(j, "skew_ppm", e->skew_ppm);
	json_u64_or_null(j, "readback_bound_ns", e->readback_check, e->readback_bound_ns);
	json_u64_or_null(j, "long_interval_ns", e->skip_long_interval, e->long_interval_ns);
	json_string(j, "clocksource", e->clocksource);
	json_string(j, "fallback", e->fallback);
	json_u64_or_null(j, "fallback_read_ns", w->fallback_read_ns[i] != 0, w->fallback_read_ns[i]);
	json_u64(j, "checks", r->checks);
	json_u64(j, "skipped_long_interval", r->skipped_long);
	json_u64(j, "skipped_readback", r->skipped_readback);
	json_u64(j, "retried_readout", r->retried_readout);
	json_i64(j, "max_skew_ns", r->max_abs_skew_ns);
	if (r->state == WD_UNSTABLE) {
		json_fixed(j, "unstable_at_s", (int64_t)r->unstable_at_ms, 3);
		json_i64(j, "unstable_skew_ns", r->unstable_skew_ns);
	} else {
		json_null(j, "unstable_at_s");
		json_null(j, "unstable_skew_ns");
	}
	json_object_end(j);
}

static void replay(struct json *j, const struct watch_result *w)
{
	json_object_begin(j, "watchdog_replay");
	json_string(j, "watchdog", w->watchdog);
	json_string(j, "main_kernel", w->main_kernel);
	json_u64(j, "ticks", w->watchdog_ticks);
	json_array_begin(j, "runs");
	for (unsigned i = 0; i < w->replay_count; i++)
		replay_run(j, w, i);
	json_array_end(j);
	char sentence[400];
	watch_watchdog_sentence(sentence, sizeof sentence, w);
	json_string(j, "summary", sentence);
	json_object_end(j);
}

static void recheck(struct json *j, const struct watch_detector *d)
{
	const struct watch_recheck *c = &d->recheck;
	json_object_begin(j, "recheck");
	json_object_begin(j, "cross_cpu");
	json_string(j, "status", c->xcpu_ran ? "ok" : "absent");
	json_string(j, "reason", c->xcpu_ran ? NULL : c->xcpu_reason);
	json_u64(j, "iterations_per_cpu", c->xcpu_iterations);
	json_u64(j, "cpus_tested", c->xcpu_tested);
	json_u64(j, "warps", c->warps);
	json_u64(j, "max_warp_ns", c->max_warp_ns);
	json_u64(j, "skew_bound_ns", c->skew_bound_ns);
	json_u64(j, "duration_us", c->xcpu_us);
	json_string(j, "stopped", c->xcpu_stopped_reason);
	json_u64(j, "rechecks", d->xcpu_rechecks);
	json_u64(j, "warps_total", d->warps_total);
	json_object_end(j);
	json_object_begin(j, "gaps");
	json_bool(j, "measured", c->gaps_measured);
	json_u64(j, "window_ms", c->gap_window_ms);
	json_u64(j, "count", c->gap_count);
	json_u64(j, "max_ns", c->gap_max_ns);
	json_u64(j, "total_ns", c->gap_total_ns);
	json_u64(j, "scans", d->gap_scans);
	json_u64(j, "count_total", d->gaps_total);
	json_u64(j, "max_ns_all", d->gap_max_ns);
	json_object_end(j);
	json_object_end(j);
}

static void state(struct json *j, const struct watch_result *w)
{
	json_fixed(j, "elapsed_tsc_s", (int64_t)w->elapsed_tsc_ms, 3);
	if (w->rtc_valid)
		json_fixed(j, "elapsed_rtc_s", (int64_t)w->elapsed_rtc_ms, 3);
	else
		json_null(j, "elapsed_rtc_s");
	if (w->tsc_hz) {
		json_u64(j, "tsc_hz", w->tsc_hz);
		json_string(j, "tsc_hz_against", w->tsc_hz_against);
	} else {
		json_null(j, "tsc_hz");
	}
	offsets(j, w);
	const struct watch_interval *iv = &w->last;
	if (iv->kvmclock_present) {
		json_object_begin(j, "kvmclock");
		json_bool(j, "stable", iv->kvmclock_stable);
		json_u64(j, "version", iv->kvmclock_version);
		json_u64(j, "flags", iv->kvmclock_flags);
		json_object_end(j);
	} else {
		json_null(j, "kvmclock");
	}
	if (iv->vmclock_present) {
		json_object_begin(j, "vmclock");
		json_u64(j, "disruption_marker", iv->vmclock_disruption_marker);
		json_u64(j, "vm_generation_counter", iv->vmclock_generation);
		json_u64(j, "clock_status", iv->vmclock_clock_status);
		json_object_end(j);
	} else {
		json_null(j, "vmclock");
	}
	json_object_begin(j, "identity");
	json_string(j, "signature", iv->identity.signature);
	json_u64(j, "advertised_tsc_hz", iv->identity.advertised_tsc_hz);
	json_u64(j, "pvclock_tsc_hz", iv->identity.pvclock_tsc_hz);
	json_object_end(j);
	recheck(j, &w->det);
	events(j, w);
	replay(j, w);
}

void watch_json_record(struct json *j, const struct watch_result *w)
{
	json_object_begin(j, NULL);
	json_u64(j, "seq", w->seq);
	json_string(j, "run_id", w->run_id);
	json_u64(j, "interval_s", w->interval_s);
	state(j, w);
	json_object_end(j);
}

void watch_json_section(struct json *j, const struct watch_result *w)
{
	json_object_begin(j, "watch");
	json_string(j, "status", w->status);
	if (w->reason)
		json_string(j, "reason", w->reason);
	json_u64(j, "seconds", w->watch_s);
	json_u64(j, "interval_s", w->interval_s);
	json_string(j, "run_id", w->run_id);
	json_u64(j, "records", w->seq);
	if (!w->rtc_valid)
		json_string(j, "rtc_reason", w->rtc_reason);
	json_fixed(j, "paused_s", (int64_t)w->det.paused_us, 6);
	json_object_begin(j, "event_counts");
	for (unsigned t = 0; t < WATCH_EVENT_TYPE_COUNT; t++)
		json_u64(j, watch_event_name((enum watch_event_type)t), w->det.per_type[t]);
	json_object_end(j);
	if (w->seq)
		state(j, w);
	json_object_end(j);
}

static void sb_duration(struct strbuf *sb, uint64_t ms)
{
	uint64_t s = ms / 1000;
	if (s >= 3600) {
		sb_u64(sb, s / 3600);
		sb_str(sb, "h");
		sb_u64(sb, s / 60 % 60);
		sb_str(sb, "m");
	} else if (s >= 60) {
		sb_u64(sb, s / 60);
		sb_str(sb, "m");
		sb_u64(sb, s % 60);
		sb_str(sb, "s");
	} else {
		sb_fixed(sb, (int64_t)ms, 3);
		sb_str(sb, " s");
	}
}

/* A signed skew in the summary's one rounded format (summary_sb_ns):
 * "48.0 us", never "47999 ns" beside "47 us". */
static void sb_skew(struct strbuf *sb, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		sb_char(sb, '-');
	sb_ns(sb, a * 1000);
}

static bool era_holds(const struct verdict_wd_era *e, unsigned kv)
{
	unsigned to = 0;
	return e->from && e->kver <= kv && (!e->to || (verdict_kernel_parse(e->to, str_len(e->to), &to) && kv <= to));
}

static void sb_outcome(struct strbuf *sb, const struct watch_result *w, unsigned i)
{
	const struct wd_replay *r = &w->replay[i];
	const struct verdict_wd_era *e = &r->era;
	if (r->state == WD_UNSTABLE) {
		sb_str(sb, " would have marked tsc unstable at ");
		sb_duration(sb, r->unstable_at_ms);
		sb_str(sb, " (");
		if (r->unstable_skew_ns) {
			sb_str(sb, "skew ");
			sb_skew(sb, r->unstable_skew_ns);
		} else {
			sb_str(sb, r->reason);
		}
		sb_str(sb, " against ");
		sb_str(sb, r->watchdog);
		if (e->clocksource && e->fallback && !str_equal(e->clocksource, e->fallback)) {
			sb_str(sb, "): clock reads fall to ");
			sb_str(sb, e->fallback);
			if (w->fallback_read_ns[i]) {
				sb_str(sb, ", ~");
				sb_ns(sb, w->fallback_read_ns[i] * 1000);
				sb_str(sb, " each");
			}
		} else {
			sb_str(sb, "): clock reads stay on ");
			sb_str(sb, e->clocksource ? e->clocksource : "?");
		}
	} else if (r->state == WD_WATCHING) {
		sb_str(sb, " would have kept tsc (");
		sb_u64(sb, r->checks);
		sb_str(sb, " checks against ");
		sb_str(sb, r->watchdog);
		sb_str(sb, ", max skew ");
		sb_skew(sb, r->max_abs_skew_ns);
		if (r->skipped_long) {
			sb_str(sb, ", ");
			sb_u64(sb, r->skipped_long);
			sb_str(sb, " long intervals skipped");
		}
		sb_str(sb, ")");
	} else {
		sb_str(sb, r->state == WD_EXEMPT ? " does not watch the tsc (" : " replays nothing (");
		sb_str(sb, r->reason);
		sb_str(sb, ")");
	}
}

/* Leads with the verdict's main kernel, then the newest era that
 * concluded otherwise, named by its range. */
void watch_watchdog_sentence(char *buf, size_t cap, const struct watch_result *w)
{
	struct strbuf sb;
	sb_init(&sb, buf, cap);
	unsigned main_kv = 0;
	bool have_main = w->main_kernel && verdict_kernel_parse(w->main_kernel, str_len(w->main_kernel), &main_kv);
	int lead = -1, other = -1;
	for (unsigned i = 0; i < w->replay_count; i++)
		if (have_main ? era_holds(&w->replay[i].era, main_kv) : !w->replay[i].era.to)
			lead = (int)i;
	if (lead < 0) {
		sb_str(&sb, "No watchdog replay: the verdict names no kernel era");
		return;
	}
	for (unsigned i = w->replay_count; i-- > 0;)
		if ((int)i != lead && w->replay[i].state != w->replay[lead].state) {
			other = (int)i;
			break;
		}
	sb_str(&sb, "Linux ");
	if (have_main) {
		sb_str(&sb, w->main_kernel);
	} else {
		char kernels[24];
		wd_era_range(kernels, sizeof kernels, &w->replay[lead].era);
		sb_str(&sb, kernels);
	}
	sb_outcome(&sb, w, (unsigned)lead);
	if (other >= 0) {
		char kernels[24];
		wd_era_range(kernels, sizeof kernels, &w->replay[other].era);
		sb_str(&sb, "; Linux ");
		sb_str(&sb, kernels);
		sb_outcome(&sb, w, (unsigned)other);
	}
}
