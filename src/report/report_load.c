/* The report under load: each source's contention curve (inside its
 * sources[] entry) and the stage's own section (who ran together). */
#include "contention_subject.h"
#include "report_parts.h"
#include "contention.h"

static const struct contention_source *source_curve(const struct contention_result *c, enum source_id id)
{
	for (uint32_t i = 0; c && i < c->source_count; i++)
		if (c->src[i].measured && c->src[i].id == id)
			return &c->src[i];
	return NULL;
}

static void level_json(struct json *j, const struct contention_level *l, const struct contention_presence *pr,
		       const struct run_results *r, uint64_t hz)
{
	json_object_begin(j, NULL);
	json_u64(j, "cpus", l->cpus);
	json_u64(j, "measured_cpus", l->measured);
	measured_json(j, "estimate_cycles", "se_cycles", "estimate_ns", "se_ns", l->estimate_milli, l->se_milli,
		    l->se_known, hz);
	json_u64(j, "p50_cycles", l->p50);
	json_u64(j, "p99_cycles", l->p99);
	json_u64(j, "p99_ns", rate_cycles_to_ns(l->p99, hz));
	json_fixed(j, "cpu_min_cycles", l->cpu_min_milli, 3);
	json_fixed(j, "cpu_max_cycles", l->cpu_max_milli, 3);
	json_fixed(j, "all_reading_pct", (int64_t)(l->all_reading_ppm + 50) / 100, 2);
	json_bool(j, "outnumbered", contention_level_outnumbered(l, pr));
	uint64_t first = UINT64_MAX;
	for (uint32_t i = 0; i < l->cpus && i < CONTENTION_MAX_CPUS; i++)
		if (l->cpu[i].measured)
			first = MIN(first, l->cpu[i].start);
	json_array_begin(j, "per_cpu");
	for (uint32_t i = 0; i < l->cpus && i < CONTENTION_MAX_CPUS; i++) {
		const struct contention_cpu *c = &l->cpu[i];
		json_object_begin(j, NULL);
		json_u64(j, "cpu", c->cpu);
		json_u64(j, "apic_id", c->cpu < r->cpu_count ? r->cpus[c->cpu].apic_id : 0);
		json_bool(j, "measured", c->measured);
		unsigned dec = stats_se_decimals(c->se_milli);
		json_fixed(j, "estimate_cycles", stats_round_milli(c->estimate_milli, dec), dec);
		if (c->se_known)
			json_fixed(j, "se_cycles", stats_round_milli((int64_t)c->se_milli, dec), dec);
		else
			json_null(j, "se_cycles");
		json_u64(j, "p50_cycles", c->p50);
		json_u64(j, "p99_cycles", c->p99);
		json_u64(j, "samples", c->samples);
		/* Its reading window on the TSC, from the level's first start. */
		bool w = c->measured && c->end >= c->start && c->start >= first;
		json_u64(j, "start_us", w ? rate_cycles_to_ns(c->start - first, hz) / 1000 : 0);
		json_u64(j, "window_us", w ? rate_cycles_to_ns(c->end - c->start, hz) / 1000 : 0);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void contention_source_json(struct json *j, const struct source_result *s, const struct run_results *r)
{
	const struct contention_result *c = r->contention;
	const struct contention_source *cs = source_curve(c, (enum source_id)(s - r->sources));
	uint64_t hz = tsc_hz_for_ns(r);
	json_array_begin(j, "contention");
	for (uint32_t i = 0; cs && i < cs->level_count; i++)
		level_json(j, &cs->level[i], i < c->level_count ? &c->presence[i] : NULL, r, hz);
	json_array_end(j);
	if (cs && cs->ratio_known) {
		json_fixed(j, "contention_ratio", (int64_t)cs->ratio_milli, 3);
		json_null(j, "contention_ratio_reason");
	} else {
		json_null(j, "contention_ratio");
		json_string(j, "contention_ratio_reason",
			    !cs ? "no contention curve for this source" :
			    cs->ratio_reason ? cs->ratio_reason : "not computed: the stage ended before its curves were finished");
	}
}

void contention_json(struct json *j, const struct run_results *r)
{
	const struct contention_result *c = r->contention;
	json_object_begin(j, "contention");
	json_bool(j, "ran", c && c->ran);
	if (!c || !c->ran) {
		json_string(j, "reason", c ? c->reason : "not measured: the TSC did not measure ok, or no memory");
		json_object_end(j);
		return;
	}
	json_string(j, "method",
		    "the interleaved harness of read_cost on every CPU of a level at once (each CPU its own "
		    "engine context and scratch, released together from one barrier per round); a level's "
		    "estimate is the mean of its CPUs' estimates, se the SE of that mean, p50/p99 pooled over "
		    "every CPU's samples; presence: a back-to-back TSC scan on the same CPUs at once, each "
		    "CPU's share of the window it ran, summed");
	json_string(j, "stopped_reason", c->stopped_reason[0] ? c->stopped_reason : NULL);
	json_u64(j, "not_tested_count", c->not_tested_count);
	json_string(j, "not_tested", c->not_tested[0] ? c->not_tested : NULL);
	const char *measures_reason;
	json_string(j, "measures", contention_subject(r->facts.hv.present, r->facts.hv.name, &measures_reason));
	json_string(j, "measures_reason", measures_reason);
	json_u64(j, "cpus", c->cpus);
	json_u64(j, "cpus_enabled", c->cpus_enabled);
	json_u64(j, "samples_per_cpu", c->samples);
	json_u64(j, "budget_ms", c->budget_ms);
	json_u64(j, "stage_budget_ms", c->stage_budget_ms);
	json_u64(j, "gather_ms_max", c->gather_ms_max);
	json_u64(j, "elapsed_ms", c->elapsed_ms);
	json_array_begin(j, "levels");
	for (uint32_t i = 0; i < c->level_count; i++)
		json_u64(j, NULL, c->levels[i]);
	json_array_end(j);
	json_array_begin(j, "presence");
	for (uint32_t i = 0; i < c->level_count; i++) {
		const struct contention_presence *p = &c->presence[i];
		if (!p->measured)
			continue;
		json_object_begin(j, NULL);
		json_u64(j, "cpus", p->cpus);
		json_u64(j, "window_ms", p->window_ms);
		json_fixed(j, "ran_together", p->ran_together_milli, 3);
		json_bool(j, "outnumbered", p->outnumbered);
		json_array_begin(j, "share_pct");
		for (uint32_t k = 0; k < p->cpus && k < CONTENTION_MAX_CPUS; k++)
			json_fixed(j, NULL, (int64_t)(p->share_ppm[k] + 50) / 100, 2);
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	uint32_t first_out = contention_outnumbered_from(c);
	json_bool(j, "outnumbered", first_out != 0);
	if (first_out)
		json_u64(j, "outnumbered_from_cpus", first_out);
	else
		json_null(j, "outnumbered_from_cpus");
	json_object_end(j);
}

/* "  hpet: 186 ns alone, 250 ns by 2 CPUs, 420 ns by 4 at once (2.3x)" */
static void curve_line(struct strbuf *sb, const char *name, const struct contention_source *cs, uint64_t hz)
{
	sb_str(sb, "  ");
	sb_str(sb, name);
	sb_str(sb, " contended:");
	for (uint32_t i = 0; i < cs->level_count; i++) {
		const struct contention_level *l = &cs->level[i];
		uint64_t ns = rate_milli_cycles_to_ns_milli(l->estimate_milli > 0 ? (uint64_t)l->estimate_milli : 0, hz);
		sb_str(sb, i ? ", " : " ");
		sb_fixed(sb, (int64_t)((ns + 50) / 100), 1);
		sb_str(sb, " ns ");
		if (l->cpus == 1) {
			sb_str(sb, "alone");
		} else {
			sb_str(sb, "by ");
			sb_u64(sb, l->cpus);
		}
	}
	sb_str(sb, " CPUs at once (");
	if (!cs->ratio_known) {
		sb_str(sb, "no ratio)");
		return;
	}
	sb_fixed(sb, (int64_t)(cs->ratio_milli / 100), 1);
	sb_str(sb, "x)");
}

void report_load_summary(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	const struct contention_result *c = r->contention;
	char buf[240];
	struct strbuf sb;
	uint64_t hz = results_tsc_hz(r);
	if (!c || !c->ran)
		return;
	sb_init(&sb, buf, sizeof buf);
	sb_str(&sb, "Under load: every source read by ");
	for (uint32_t i = 0; i < c->level_count; i++) {
		if (i)
			sb_char(&sb, '/');
		sb_u64(&sb, c->levels[i]);
	}
	sb_str(&sb, c->level_count == 1 && c->levels[0] == 1 ? " CPU" : " CPUs at once");
	uint32_t from = contention_outnumbered_from(c);
	const struct contention_presence *top = c->level_count ? &c->presence[c->level_count - 1] : NULL;
	if (top && top->measured && top->cpus > 1) {
		sb_str(&sb, "; ran together: ");
		sb_fixed(&sb, top->ran_together_milli / 10, 2);
		sb_str(&sb, " of ");
		sb_u64(&sb, top->cpus);
	}
	if (from) {
		sb_str(&sb, "; OUTNUMBERED from ");
		sb_u64(&sb, from);
		sb_str(&sb, " CPUs (fewer ran together than read: the curve also holds host scheduling)");
	}
	if (c->stopped_reason[0]) {
		sb_str(&sb, "; ");
		sb_str(&sb, c->stopped_reason);
	}
	summary_emit_wrapped(buf, 2, true, emit);
	for (uint32_t i = 0; i < c->source_count; i++) {
		const struct contention_source *cs = &c->src[i];
		const char *name = results_source_name(r, cs->id);
		if (!cs->measured || !verdict_source_contended(&r->verdict.inputs, name))
			continue;
		sb_init(&sb, buf, sizeof buf);
		curve_line(&sb, name, cs, hz);
		summary_emit_wrapped(buf, 4, true, emit);
	}
}
