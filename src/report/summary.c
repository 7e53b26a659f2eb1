/* The human summary: what a person reads on the serial log or screen
 * before the JSON.  The screen gets the verdict, the table, the warnings
 * and the errors; the serial log also the evidence behind them. */
#include "report.h"
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
	[COL_P50] = { "p50 ns", 12 },	      [COL_P99] = { "p99 ns", 12 },
	[COL_TICKS] = { "p50 ticks", 12 },    [COL_EST] = { "est. ns", 12 },
	[COL_PATH] = { "read path", 14 },     [COL_BACKWARD] = { "backward   (ticks: TSC ticks, not core clocks)", 0 },
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

static void source_row(const struct source_result *s, const struct columns *col, uint64_t tsc_hz,
		       void (*emit)(const char *, bool))
{
	char buf[240];
	struct strbuf sb;
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "  ");
	sb_str(&sb, s->src->name);
	sb_pad_to(&sb, col->at[COL_P50]);
	if (s->status != SOURCE_OK) {
		sb_str(&sb, s->status == SOURCE_ABSENT ? "absent: " : "ERROR: ");
		sb_shown(&sb, s->desc.reason);
		emit(buf, true);
		return;
	}
	const struct op_cost *c = &s->cost;
	uint64_t est_ns_tenths = tsc_hz ? mul_div_u64((uint64_t)c->estimate_milli, 10000000ull, tsc_hz) : 0;
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
		sb_fixed(&sb, (int64_t)(rate_cycles_to_ns_milli(c->cycles.p50, tsc_hz) / 100), 1);
		sb_pad_to(&sb, col->at[COL_P99]);
		sb_fixed(&sb, (int64_t)(rate_cycles_to_ns_milli(c->cycles.p99, tsc_hz) / 100), 1);
		sb_pad_to(&sb, col->at[COL_TICKS]);
		sb_u64(&sb, c->cycles.p50);
	}
	sb_pad_to(&sb, col->at[COL_EST]);
	sb_fixed(&sb, (int64_t)est_ns_tenths, 1);
	sb_pad_to(&sb, col->at[COL_PATH]);
	sb_str(&sb, read_path_name(s->read_path));
	sb_pad_to(&sb, col->at[COL_BACKWARD]);
	sb_u64(&sb, s->behaviour.backward);
	if (c->below_resolution && c->step_ticks) {
		sb_str(&sb, "  (below the ");
		sb_u64(&sb, c->step_ticks);
		sb_str(&sb, "-tick step; est. ");
		sb_fixed(&sb, (int64_t)est_ns_tenths, 1);
		sb_str(&sb, " ns)");
	}
	emit(buf, true);
}

/* Why the predicted clocksource wins, in words: the rule, then the
 * verdict's reasoning (serial only: it is long). */
static void why_block(const struct verdict *v, void (*emit)(const char *, bool))
{
	char buf[VERDICT_REASON_LEN + 64];
	struct strbuf sb;
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Why ");
	sb_str(&sb, v->linux_clocksource);
	sb_str(&sb, ": Linux keeps the registered clocksource with the highest rating that it trusts; here ");
	sb_str(&sb, v->why_text[0] ? v->why_text : v->why);
	emit(buf, true);
	for (uint32_t i = 0; i < v->reasoning_count && i < VERDICT_MAX_REASONS; i++) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "  - ");
		sb_str(&sb, v->reasoning[i]);
		emit(buf, false);
	}
}

/* Every warning, not only the headline's: code and message on the
 * screen, the evidence on the serial log. */
static void warnings_block(const struct verdict *v, void (*emit)(const char *, bool))
{
	char buf[VERDICT_MSG_LEN + VERDICT_EVIDENCE_LEN + 64];
	struct strbuf sb;
	if (!v->warning_count) {
		emit("Warnings: none", true);
		return;
	}
	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Warnings (");
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
		emit(buf, true);
		if (w->evidence[0]) {
			line_start(&sb, buf, sizeof buf);
			sb_str(&sb, "    evidence: ");
			sb_shown(&sb, w->evidence);
			emit(buf, false);
		}
	}
}

void report_summary(const struct run_results *r, void (*emit)(const char *line, bool screen))
{
	char buf[240];
	struct strbuf sb;
	const struct probe_facts *f = &r->facts;
	uint64_t hz = results_tsc_hz(r);
	static char verdict_text[1024];

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "clockprobe " PROBE_VERSION " summary (");
	sb_str(&sb, f->plat->boot);
	sb_str(&sb, " boot, ");
	sb_u64(&sb, r->elapsed_ms);
	sb_str(&sb, " ms)");
	emit(buf, true);

	/* The verdict first: it is what most readers came for. */
	verdict_summary_line(&r->verdict, verdict_text, sizeof verdict_text);
	emit(verdict_text, true);
	verdict_windows_summary_line(&r->verdict, verdict_text, sizeof verdict_text);
	emit(verdict_text, true);

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
	emit(buf, true);

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "TSC: invariant=");
	sb_str(&sb, f->cpu.invariant_tsc ? "yes" : "NO");
	sb_str(&sb, " rdtscp=");
	sb_str(&sb, f->cpu.rdtscp ? "yes" : "no");
	sb_str(&sb, " ~");
	sb_u64(&sb, hz / 1000000);
	sb_str(&sb, " MHz (");
	sb_str(&sb, r->freq.chosen_name ? r->freq.chosen_name : f->tsc_hz_rough_source);
	sb_str(&sb, ")");
	if (r->freq.disagreement_known) {
		sb_str(&sb, ", advertised vs measured ");
		sb_i64(&sb, r->freq.disagreement_ppm);
		sb_str(&sb, " ppm");
	}
	emit(buf, true);

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Cross-CPU: ");
	sb_u64(&sb, r->xcpu.tested);
	sb_str(&sb, "/");
	sb_u64(&sb, r->xcpu.cpus);
	sb_str(&sb, " CPUs tested, ");
	sb_u64(&sb, r->xcpu.warps);
	sb_str(&sb, " TSC warps, skew bound ");
	sb_u64(&sb, r->xcpu.max_skew_cycles);
	sb_str(&sb, " ticks. Gaps: ");
	sb_u64(&sb, r->gaps.g.count);
	sb_str(&sb, " over ");
	sb_u64(&sb, rate_cycles_to_ns(r->gaps.g.threshold, hz) / 1000);
	sb_str(&sb, " us in ");
	sb_u64(&sb, r->gaps.window_ms);
	sb_str(&sb, " ms, max ");
	sb_u64(&sb, rate_cycles_to_ns(r->gaps.g.max, hz) / 1000);
	sb_str(&sb, " us, ");
	/* ppm to a percentage with two decimals: 1 % = 10000 ppm. */
	sb_fixed(&sb, (int64_t)(gaps_share_ppm(&r->gaps.g) / 100), 2);
	sb_str(&sb, " % of the time lost");
	emit(buf, true);

	line_start(&sb, buf, sizeof buf);
	sb_str(&sb, "Baselines (TSC ticks p50): harness ");
	sb_u64(&sb, r->baselines.harness.cycles.p50);
	sb_str(&sb, ", cpuid ");
	sb_u64(&sb, r->baselines.cpuid.cycles.p50);
	sb_str(&sb, ", unassigned port ");
	sb_u64(&sb, r->baselines.port.cycles.p50);
	emit(buf, false);

	if (r->harness_anomaly_reason) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "Harness anomaly: ");
		sb_str(&sb, r->harness_anomaly_reason);
		sb_str(&sb, " - read costs here are distorted");
		emit(buf, true);
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
		source_row(&r->sources[i], &col, hz, emit);

	why_block(&r->verdict, emit);
	warnings_block(&r->verdict, emit);
	/* Errors reach the screen too: a person at a console with no serial
	 * log would otherwise never learn that part of the run failed. */
	for (uint32_t i = 0; i < r->error_count; i++) {
		line_start(&sb, buf, sizeof buf);
		sb_str(&sb, "error ");
		sb_str(&sb, r->errors[i].code);
		sb_str(&sb, ": ");
		sb_shown(&sb, r->errors[i].message); /* settings words, table text */
		emit(buf, true);
	}

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
		emit(buf, true);
		if (r->watch->seq) {
			char sentence[400];
			watch_watchdog_sentence(sentence, sizeof sentence, r->watch);
			emit(sentence, true);
		}
	}
}
