/* The human summary: what a person reads on the serial log or screen
 * before the JSON.  The screen gets the verdict, the table, the warnings
 * and the errors; the serial log also the evidence behind them. */
#include "report_parts.h"
#include "probe.h"
#include "gaps.h"
#include "rate.h"
#include "strbuf.h"

static void line_start(struct strbuf *sb, char *buf, size_t cap)
{
	sb_init(sb, buf, cap);
}

/* The source table's columns after the name: one row here gives a
 * column its title and width, for the header and every row alike.  They
 * start after the longest source name (Hyper-V's are 27 characters), so
 * every row lines up whatever sources exist. */
enum column { COL_P50, COL_P99, COL_TICKS, COL_EST, COL_PATH, COL_BACKWARD, COL_COUNT };
static const struct {
	const char *title;
	size_t width;
} column_spec[COL_COUNT] = {
	[COL_P50] = { "p50 ns", 9 },	     [COL_P99] = { "p99 ns", 9 },
	[COL_TICKS] = { "p50 ticks", 11 },   [COL_EST] = { "est. ns +-SE", 14 },
	[COL_PATH] = { "read path", 14 },     [COL_BACKWARD] = { "backward", 0 },
};

struct columns {
	size_t at[COL_COUNT];
};

static struct columns columns_for(const struct run_results *r)
{
	size_t longest = str_len("source");
	for (unsigned i = 0; i < r->source_count; i++)
		longest = MAX(longest, str_len(r->sources[i].src->name));
	struct columns col;
	size_t at = 2 + longest + 2;
	for (int c = 0; c < COL_COUNT; c++) {
		col.at[c] = at;
		at += column_spec[c].width;
	}
	return col;
}

/* ns x1000 to tenths, rounded (a truncated 1.000 tick at 1 GHz read "0.9"). */
static int64_t ns_tenths(uint64_t ns_milli)
{
	return (int64_t)((ns_milli + 50) / 100);
}

/* An estimate in ns with its standard error, to the SE's precision:
 * "15.3+-0.4" (two significant digits of the SE, at most 3 decimals). */
static void sb_estimate_ns(struct strbuf *sb, const struct op_cost *c, uint64_t tsc_hz)
{
	/* A negative difference is shown as measured, sign and SE, never as
	 * a 0 that was never measured. */
	int64_t est = c->estimate_clamped ? c->estimate_signed_milli : c->estimate_milli;
	uint64_t mag = est < 0 ? (uint64_t)0 - (uint64_t)est : (uint64_t)est;
	uint64_t ns = rate_milli_cycles_to_ns_milli(mag, tsc_hz);
	uint64_t se = rate_milli_cycles_to_ns_milli(c->estimate_se_milli, tsc_hz);
	unsigned dec = stats_se_decimals(se);
	if (!se && dec == 3)
		dec = 1; /* exact (or no SE): the column's usual tenth */
	if (est < 0)
		sb_char(sb, '-');
	sb_fixed(sb, stats_round_milli((int64_t)ns, dec), dec);
	if (se) {
		sb_str(sb, "+-");
		sb_fixed(sb, stats_round_milli((int64_t)se, dec), dec);
	}
}

/* A baseline's p50, or under two TSC steps (a quantized percentile, null
 * in the JSON) "<step, est. X+-SE" in ticks. */
static void sb_baseline_p50(struct strbuf *sb, const struct op_cost *c)
{
	if (!c->below_resolution) {
		sb_u64(sb, c->cycles.p50);
		return;
	}
	unsigned dec = stats_se_decimals(c->estimate_se_milli);
	sb_str(sb, "<step, est. ");
	sb_fixed(sb, stats_round_milli(c->estimate_clamped ? c->estimate_signed_milli : c->estimate_milli, dec), dec);
	if (c->estimate_se_milli) {
		sb_str(sb, "+-");
		sb_fixed(sb, stats_round_milli((int64_t)c->estimate_se_milli, dec), dec);
	}
}

static void source_row(const struct source_result *s, const struct source_result *prev,
		       const struct columns *col, uint64_t tsc_hz, void (*emit)(const char *, bool))
{
	char buf[240];
	struct strbuf sb;
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "  ");
	sb_str(&sb, s->src->name);
	sb_pad_to(&sb, col->at[COL_P50]);
	if (s->status != SOURCE_OK) {
		sb_str(&sb, s->status == SOURCE_ABSENT ? "absent: " : "ERROR: ");
		/* The Hyper-V pair share their reason: said once. */
		bool same = prev && prev->status == s->status && str_equal(prev->desc.reason, s->desc.reason);
		if (same)
			sb_str(&sb, "as above");
		else
			sb_shown(&sb, s->desc.reason);
		summary_emit_wrapped(buf, col->at[COL_P50], true, emit);
		return;
	}
	const struct op_cost *c = &s->cost;
	if (c->below_resolution) {
		/* A percentile under two steps is quantization: print the
		 * bound and the unbiased estimate instead of a 0. */
		uint64_t two_steps = 2 * c->step_ticks;
		sb_str(&sb, "<");
		if (two_steps)
			sb_u64(&sb, (rate_cycles_to_ns_milli(two_steps, tsc_hz) + 999) / 1000);
		else
			sb_str(&sb, "?");
		sb_pad_to(&sb, col->at[COL_P99]);
		sb_str(&sb, "-");
		sb_pad_to(&sb, col->at[COL_TICKS]);
		sb_str(&sb, "<step");
	} else {
		sb_fixed(&sb, ns_tenths(rate_cycles_to_ns_milli(c->cycles.p50, tsc_hz)), 1);
		sb_pad_to(&sb, col->at[COL_P99]);
		sb_fixed(&sb, ns_tenths(rate_cycles_to_ns_milli(c->cycles.p99, tsc_hz)), 1);
		sb_pad_to(&sb, col->at[COL_TICKS]);
		sb_u64(&sb, c->cycles.p50);
	}
	sb_pad_to(&sb, col->at[COL_EST]);
	sb_estimate_ns(&sb, c, tsc_hz);
	sb_str(&sb, " ");
	sb_pad_to(&sb, col->at[COL_PATH]);
	/* "native" in the JSON (the contract's value) reads as "runs on
	 * hardware" to a firmware engineer; it means no exit: the read costs
	 * about what RDTSC does.  The table says that; the footnote too. */
	sb_str(&sb, s->read_path == READ_PATH_NATIVE ? "no exit" : read_path_name(s->read_path));
	sb_pad_to(&sb, col->at[COL_BACKWARD]);
	sb_u64(&sb, s->behaviour.backward);
	emit(buf, true);
}

/* What the table's bounds mean, once under it: the TSC's step and the
 * unit of the ticks column. */
static void table_footnote(const struct run_results *r, void (*emit)(const char *, bool))
{
	char buf[400];
	struct strbuf sb;
	uint64_t step = 0;
	bool any = false;

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "  (ticks: TSC ticks, not core clocks");
	for (unsigned i = 0; i < r->source_count; i++) {
		const struct source_result *s = &r->sources[i];
		if (s->status != SOURCE_OK || !s->cost.below_resolution)
			continue;
		sb_str(&sb, any ? ", " : "; below the TSC step: ");
		sb_str(&sb, s->src->name);
		step = s->cost.step_ticks;
		any = true;
	}
	if (any) {
		sb_str(&sb, " (");
		if (step)
			sb_u64(&sb, step);
		else
			sb_str(&sb, "?");
		sb_str(&sb, "-tick step): p50 shows the bound, est. ns the unbiased estimate");
	}
	sb_str(&sb, "; read path: no exit = costs about what RDTSC costs (the JSON's native), hardware = no "
		    "hypervisor and costs that fit hardware, unknown = the costs do not decide");
	sb_char(&sb, ')');
	summary_emit_wrapped(buf, 3, true, emit);
}

/* Whether hay holds the first n characters of needle. */
static bool says(const char *hay, const char *needle, size_t n)
{
	size_t h = str_len(hay);
	for (size_t i = 0; i + n <= h; i++)
		if (mem_equal(hay + i, needle, n))
			return true;
	return false;
}

/* The rules that led there, for the main kernel (serial only: long).
 * A line the risk line already said is not said again. */
static void why_block(const struct verdict *v, const char *said, void (*emit)(const char *, bool))
{
	char buf[VERDICT_REASON_LEN + 64];
	struct strbuf sb;
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Why (Linux ");
	sb_str(&sb, v->linux_kernel);
	sb_str(&sb, "; kernel= picks another):");
	emit(buf, false);
	for (uint32_t i = 0; i < v->reasoning_count && i < VERDICT_MAX_REASONS; i++) {
		const char *text = v->reasoning[i];
		if (said && str_len(text) >= 24 && says(said, text, 24))
			continue;
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "  - ");
		sb_shown(&sb, text);
		summary_emit_wrapped(buf, 4, false, emit);
	}
}

/* A fix already printed (the headline's, another warning's) is not
 * repeated: "fix: as above". */
static bool fix_said(const char *fix, const char *const *said, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (said[i] && says(said[i], fix, str_len(fix)))
			return true;
	return false;
}

/* Every warning of the main kernel: one line each, its fix on the next. */
static void warnings_block(const struct verdict *v, const char *headline_fix,
			   void (*emit)(const char *, bool))
{
	char buf[VERDICT_MSG_LEN + 64];
	const char *said[VERDICT_MAX_WARNINGS + 1];
	uint32_t said_n = 0;
	struct strbuf sb;
	if (!v->warning_count) {
		emit("Warnings: none", true);
		return;
	}
	said[said_n++] = headline_fix;
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Warnings for Linux ");
	sb_str(&sb, v->linux_kernel);
	sb_str(&sb, " (");
	sb_u64(&sb, v->warning_count);
	sb_str(&sb, "):");
	emit(buf, true);
	for (uint32_t i = 0; i < v->warning_count && i < VERDICT_MAX_WARNINGS; i++) {
		const struct verdict_warning *w = &v->warnings[i];
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "  ");
		sb_str(&sb, verdict_severity_name(w->severity));
		sb_str(&sb, " ");
		sb_str(&sb, w->code);
		sb_str(&sb, ": ");
		sb_shown(&sb, w->message);
		summary_emit_wrapped(buf, 4, true, emit);
		if (!w->fix_brief)
			continue;
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "    fix: ");
		sb_shown(&sb, fix_said(w->fix_brief, said, said_n) ? "as above" : w->fix_brief);
		/* wrapped, never cut: the fix is what a user copies */
		summary_emit_wrapped(buf, 9, false, emit);
		if (said_n <= VERDICT_MAX_WARNINGS)
			said[said_n++] = w->fix_brief;
	}
}

/* Where the time went (probe.stages[]): the stages that took 1 % of the
 * run or more, in run order; the rest summed. */
static void summary_stage_times(const struct run_results *r, uint64_t hz,
				void (*emit)(const char *line, bool screen))
{
	char buf[640];
	struct strbuf sb;
	uint64_t total = 0, rest = 0;
	for (uint32_t i = 0; i < r->stage_count && i < RUN_MAX_STAGES; i++)
		if (r->stages[i].end_tsc > r->stages[i].start_tsc)
			total += r->stages[i].end_tsc - r->stages[i].start_tsc;
	if (!total || !hz)
		return;
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Time by stage (ms):");
	for (uint32_t i = 0; i < r->stage_count && i < RUN_MAX_STAGES; i++) {
		const struct stage_time *t = &r->stages[i];
		if (t->end_tsc <= t->start_tsc)
			continue;
		uint64_t d = t->end_tsc - t->start_tsc;
		if (d * 100 < total) {
			rest += d;
			continue;
		}
		sb_char(&sb, ' ');
		sb_str(&sb, t->name);
		sb_char(&sb, ' ');
		sb_u64(&sb, (rate_cycles_to_ns(d, hz) + 500000) / 1000000);
		sb_char(&sb, ',');
	}
	sb_str(&sb, " others ");
	sb_u64(&sb, (rate_cycles_to_ns(rest, hz) + 500000) / 1000000);
	summary_emit_wrapped(buf, 2, false, emit);
}

/* "clockprobe <version> summary (<boot> boot, run time <ms> ms)": the
 * time from the probe's start to this report (probe.elapsed_ms). */
static void title_line(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	char buf[240];
	struct strbuf sb;
	const struct probe_facts *f = &r->facts;

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "clockprobe " PROBE_VERSION " summary (");
	sb_str(&sb, f->plat->boot);
	sb_str(&sb, " boot, run time ");
	sb_u64(&sb, r->elapsed_ms);
	sb_str(&sb, " ms from start to report)");
	emit(buf, true);
}

/* The verdict, its risk and fix, the kernels judged, Windows: the first
 * thing after the title.  Each text buffer holds cap bytes. */
static void verdict_lines(const struct verdict *v, char *verdict_text, char *risk_text, char *fix_text, size_t cap,
			  bool *risk, bool *fix, void (*emit)(const char *line, bool screen))
{
	char buf[240];
	struct strbuf sb;
	/* The verdict first, over the kernels a fleet runs: what most readers
	 * came for, with how sure it is, what can go wrong and what to fix. */
	verdict_summary_line(v, verdict_text, cap);
	summary_emit_wrapped(verdict_text, 2, true, emit);
	*risk = verdict_summary_risk(v, risk_text, cap);
	if (*risk)
		summary_emit_wrapped(risk_text, 2, true, emit);
	*fix = verdict_summary_fix(v, fix_text, cap);
	if (*fix)
		summary_emit_wrapped(fix_text, 2, true, emit);
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Kernels ");
	sb_str(&sb, verdict_kernel_set_name(&v->kernel_set));
	sb_str(&sb, ":");
	for (size_t i = 0; i < verdict_release_count(); i++)
		if (verdict_kernel_set_has(&v->kernel_set, i)) {
			sb_char(&sb, ' ');
			sb_str(&sb, verdict_release_name(i));
		}
	sb_str(&sb, " (kernels= picks others; verdict.by_kernel has every release)");
	summary_emit_wrapped(buf, 2, false, emit);
	verdict_windows_summary_line(v, verdict_text, cap);
	summary_emit_wrapped(verdict_text, 2, true, emit);
	if (v->text_cut) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "error VERDICT_TEXT_CUT: ");
		sb_u64(&sb, v->text_cut);
		sb_str(&sb, " verdict text(s) did not fit their buffer (verdict.text_cut)");
		emit(buf, true);
	}
}

/* "; skew bound 391 ticks = 151 ns (half the fastest round trip)": the
 * bound in TSC ticks (the unit it was measured in) and in ns, and why it
 * is that wide -- it is a round trip's half, so a vCPU the host did not
 * run makes it as wide as its wait (crosscpu.not_coscheduled_reason says
 * which). */
static void xcpu_skew_words(struct strbuf *sb, const struct crosscpu_result *x, uint64_t hz)
{
	if (!x->ran || x->tested < 2) {
		sb_str(sb, "; no skew bound (fewer than 2 CPUs tested)");
		return;
	}
	sb_str(sb, "; skew bound ");
	sb_u64(sb, x->max_skew_cycles);
	sb_str(sb, " ticks");
	if (hz) {
		sb_str(sb, " = ");
		sb_ns(sb, rate_cycles_to_ns_milli(x->max_skew_cycles, hz));
	}
	sb_str(sb, " (|offset| + half the fastest CPU-to-CPU round trip");
	if (x->not_coscheduled) {
		/* the reason says what was slow: a round trip (then the bound is
		 * that wide) or a wait on the lock */
		sb_str(sb, "; ");
		sb_shown(sb, x->not_coscheduled_reason[0] ? x->not_coscheduled_reason : "the vCPUs did not run together");
		sb_str(sb, ", so the bound and 0 warps prove less");
	}
	sb_char(sb, ')');
}

/* The machine in five lines: CPU and hypervisor, TSC, cross-CPU, gaps,
 * the baselines. */
static void machine_lines(const struct run_results *r, uint64_t hz, void (*emit)(const char *line, bool screen))
{
	char buf[640];
	struct strbuf sb;
	const struct probe_facts *f = &r->facts;

	line_start(&sb, buf, sizeof buf);
	/* Machine-given text (CPUID, hypervisor leaves, tables, settings) is
	 * shown, never sent raw: the summary shares the serial log with the
	 * framed report, and a CR/LF in a brand string would forge a line. */
	sb_str(&sb, "CPU: ");
	sb_shown(&sb, f->cpu.vendor);
	sb_str(&sb, " ");
	sb_shown(&sb, f->cpu.brand);
	sb_str(&sb, ", ");
	sb_u64(&sb, r->cpus_enabled);
	sb_str(&sb, " logical CPU(s); hypervisor: ");
	sb_shown(&sb, f->hv.present ? (f->hv.name ? f->hv.name : "unknown") : "none");
	if (f->hv.range_count) {
		sb_str(&sb, " (");
		sb_shown(&sb, f->hv.signature);
		sb_str(&sb, ")");
	}
	summary_emit_wrapped(buf, 2, true, emit);

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "TSC: invariant=");
	sb_str(&sb, f->cpu.invariant_tsc ? "yes" : "NO");
	sb_str(&sb, " rdtscp=");
	sb_str(&sb, f->cpu.rdtscp ? "yes" : "no");
	sb_str(&sb, " ~");
	sb_u64(&sb, (hz + 500000) / 1000000);
	sb_str(&sb, " MHz (");
	sb_str(&sb, r->freq.chosen_name ? r->freq.chosen_name : f->tsc_hz_rough_source);
	sb_str(&sb, ")");
	if (r->freq.disagreement_known) {
		sb_str(&sb, ", advertised vs measured ");
		sb_i64(&sb, r->freq.disagreement_ppm);
		sb_str(&sb, " ppm");
	}
	summary_emit_wrapped(buf, 2, true, emit);

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Cross-CPU: ");
	sb_u64(&sb, r->xcpu.tested);
	sb_str(&sb, "/");
	sb_u64(&sb, r->xcpu.cpus);
	sb_str(&sb, " CPUs tested, ");
	sb_u64(&sb, r->xcpu.warps);
	sb_str(&sb, " TSC warps");
	xcpu_skew_words(&sb, &r->xcpu, hz);
	summary_emit_wrapped(buf, 2, true, emit);
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Gaps: ");
	sb_u64(&sb, r->gaps.g.count);
	sb_str(&sb, " over ");
	sb_ns(&sb, rate_cycles_to_ns_milli(r->gaps.g.threshold, hz));
	sb_str(&sb, " in ");
	sb_u64(&sb, r->gaps.window_ms);
	sb_str(&sb, " ms, max ");
	sb_ns(&sb, rate_cycles_to_ns_milli(r->gaps.g.max, hz));
	sb_str(&sb, ", ");
	/* ppm to a percentage with two decimals, rounded: 1 % = 10000 ppm. */
	sb_fixed(&sb, (int64_t)((gaps_share_ppm(&r->gaps.g) + 50) / 100), 2);
	sb_str(&sb, " % of the time lost");
	summary_emit_wrapped(buf, 2, true, emit);

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Baselines (TSC ticks p50): harness ");
	sb_u64(&sb, r->baselines.harness.cycles.p50);
	sb_str(&sb, ", cpuid ");
	sb_baseline_p50(&sb, &r->baselines.cpuid);
	sb_str(&sb, ", unassigned port ");
	sb_baseline_p50(&sb, &r->baselines.port);
	emit(buf, false);
}

/* The sources' table, with the harness anomaly above it and the
 * footnote below. */
static void source_table(const struct run_results *r, uint64_t hz, void (*emit)(const char *line, bool screen))
{
	char buf[240];
	struct strbuf sb;
	if (r->harness_anomaly_reason) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "Harness anomaly: ");
		sb_str(&sb, r->harness_anomaly_reason);
		sb_str(&sb, " - read costs here are distorted");
		summary_emit_wrapped(buf, 2, true, emit);
	}
	struct columns col = columns_for(r);
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "  source");
	for (int c = 0; c < COL_COUNT; c++) {
		sb_pad_to(&sb, col.at[c]);
		sb_str(&sb, column_spec[c].title);
	}
	emit(buf, true);
	for (unsigned i = 0; i < r->source_count; i++)
		source_row(&r->sources[i], i ? &r->sources[i - 1] : NULL, &col, hz, emit);
	table_footnote(r, emit);
}

static void error_lines(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	char buf[240];
	struct strbuf sb;
	/* Errors reach the screen too: a person at a console with no serial
	 * log would otherwise never learn that part of the run failed. */
	for (uint32_t i = 0; i < r->error_count; i++) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "error ");
		sb_str(&sb, r->errors[i].code);
		sb_str(&sb, ": ");
		sb_shown(&sb, r->errors[i].message); /* settings words, table text */
		summary_emit_wrapped(buf, 4, true, emit);
	}
}

/* Watch mode's status, and the watchdog sentence once records exist. */
static void watch_lines(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	char buf[240];
	struct strbuf sb;
	if (r->watch) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "Watch: ");
		sb_str(&sb, r->watch->status);
		if (r->watch->reason) {
			sb_str(&sb, " - ");
			sb_str(&sb, r->watch->reason);
		} else {
			sb_str(&sb, ", ");
			sb_u64(&sb, r->watch->seq);
			sb_str(&sb, " records, ");
			sb_u64(&sb, r->watch->det.events_total);
			sb_str(&sb, " events");
		}
		summary_emit_wrapped(buf, 2, true, emit);
		if (r->watch->seq) {
			char sentence[400];
			watch_watchdog_sentence(sentence, sizeof sentence, r->watch);
			summary_emit_wrapped(sentence, 2, true, emit);
		}
	}
}

/* The last line, for a person and a script alike: the word
 * clockprobe compare --fail-on would give this report by default
 * (verdict_result_line(), docs/verdict-rules.md "The result line"), and
 * the run's errors counted beside it (the gate judges the verdict only). */
static void result_line(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	char buf[400];
	struct strbuf sb;
	verdict_result_line(&r->verdict, buf, sizeof buf);
	if (r->error_count) {
		sb_init(&sb, buf + str_len(buf), sizeof buf - str_len(buf));
		sb_str(&sb, "; ");
		sb_u64(&sb, r->error_count);
		sb_str(&sb, r->error_count == 1 ? " run error above" : " run errors above");
	}
	summary_emit_wrapped(buf, 2, true, emit);
}

void report_summary(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	uint64_t hz = results_tsc_hz(r);
	static char verdict_text[1024], risk_text[1024], fix_text[1024];
	const struct verdict *v = &r->verdict;
	bool risk, fix;

	title_line(r, emit);
	verdict_lines(v, verdict_text, risk_text, fix_text, sizeof verdict_text, &risk, &fix, emit);
	machine_lines(r, hz, emit);
	summary_stage_times(r, hz, emit);
	source_table(r, hz, emit);
	report_load_summary(r, emit);
	report_timers_summary(r, emit);
	why_block(v, risk ? risk_text : NULL, emit);
	warnings_block(v, fix ? fix_text : NULL, emit);
	error_lines(r, emit);
	watch_lines(r, emit);
	result_line(r, emit);
}
