/* The run's stages, each a function of the run and the engine's context,
 * in the order src/main.c calls them.  A stage that cannot work (no
 * sample buffer, a TSC that did not measure ok) leaves the run's results
 * as they are and, the first time, says why in errors[]. */
#include "run.h"
#include "arch_api.h"
#include "console.h"
#include "contention.h"
#include "crosscpu.h"
#include "discover.h"
#include "fault.h"
#include "freq.h"
#include "gapscan.h"
#include "kvm_pv_measure.h"
#include "probe.h"
#include "rate.h"
#include "report.h"
#include "strbuf.h"
#include "timers.h"

static struct run the_run;

static void progress(const char *what)
{
	char line[96];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, "clockprobe: ");
	sb_str(&sb, what);
	con_log(line);
}

/* The fault guard's handler has no argument to carry the run. */
static void fatal_fault(int vector, uint64_t rip, uint64_t error_code)
{
	run_fail(&the_run, vector, rip, error_code);
}

void run_stage(struct run *run, struct measure_ctx *ctx, const struct run_stage *stage)
{
	struct run_results *r = &run->results;
	struct stage_time *t = r->stage_count < RUN_MAX_STAGES ? &r->stages[r->stage_count++] : NULL;
	progress(stage->name);
	if (t) {
		t->name = stage->name;
		t->start_tsc = tb_now();
	}
	stage->fn(run, ctx);
	if (t)
		t->end_tsc = tb_now();
}

struct run *run_start(struct platform *plat)
{
	struct run_results *r = &the_run.results;
	struct probe_facts *f = &r->facts;
	/* From the probe's first instruction, the APs' start included. */
	r->start_tsc = plat->entry_tsc ? plat->entry_tsc : tb_now();
	r->registry = clock_sources;
	r->registry_count = clock_source_count;
	r->phase = "boot_services";
	f->plat = plat;
	con_set_platform(plat);
	fault_set_fatal_handler(fatal_fault);
	fault_guard_install();
	facts_measure_spin_cycles(f); /* before any bounded wait: every spin cap is sized by it */
	/* COM1 at once, so a fault during discovery is still told; the UART
	 * the firmware's tables name (SPCR) or the settings ask for is chosen
	 * after discovery. */
	con_open_uart(CONSOLE_UART_DEFAULT, CONSOLE_UART_DEFAULT_NAME);
	settings_defaults(&f->settings);
	f->settings.parse_kernel = verdict_kernel_parse;
	f->settings.parse_windows = verdict_windows_parse;
	f->settings.check_kernels = verdict_kernel_set_valid;
	if (plat->read_settings)
		plat->read_settings(&f->settings);
	return &the_run;
}

void stage_check_fault_guard(struct run *run, struct measure_ctx *ctx)
{
	fault_selfcheck(&run->results.selfcheck);
}

void stage_discover(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	discover_platform(r);
	discover_identity(r);
	discover_console(r);
	if (r->facts.settings.dump)
		discover_capture_raw(r);
}

/* On the console chosen by discovery; the settings' problems go into
 * errors[] after discovery's own. */
void stage_announce(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	const struct settings *s = &r->facts.settings;
	con_say("clockprobe " PROBE_VERSION ": measuring the clocks of this machine");
	for (uint32_t i = 0; i < s->problem_count; i++)
		results_error(r, "SETTINGS", s->problems[i]);
	if (s->problems_dropped) {
		char line[80];
		struct strbuf sb;
		sb_init(&sb, line, sizeof line);
		sb_u64(&sb, s->problems_dropped);
		sb_str(&sb, " more settings problems not listed");
		results_error(r, "SETTINGS", line);
	}
}

/* The engine's context: the stamp pair this CPU orders (serialize.c), the
 * sampling plan and its scratch, the harness tally. */
void stage_engine(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	const struct probe_facts *f = &r->facts;
	uint32_t samples = f->settings.samples;
	/* Two arrays: the reads and the empty harness interleaved with them;
	 * then one op's batch pairs. */
	uint64_t *scratch = f->plat->alloc_pages
				    ? f->plat->alloc_pages(2 * samples * sizeof(uint64_t) + sizeof(struct batch_log))
				    : NULL;
	if (!scratch) {
		results_error(r, "NO_MEMORY", "cannot allocate the sample buffer");
		return;
	}
	struct measure_plan plan = {
		.samples = samples,
		.budget_cycles = facts_ms_to_cycles(f, f->settings.source_budget_ms),
		.window_deadline_cycles = facts_ms_to_cycles(f, 2),
		.scratch = scratch,
		.harness_scratch = scratch + samples,
		.batches = (struct batch_log *)(scratch + 2 * samples),
	};
	serialization_choose(&r->serialization, &f->cpu);
	r->facts.tsc_read = r->serialization.read;
	measure_ctx_init(ctx, &r->serialization, f->cpu.rdtscp, &plan);
	ctx->totals = &r->baselines.totals;
	r->method = ctx->method;
	run->measuring = true;
}

void stage_baselines(struct run *run, struct measure_ctx *ctx)
{
	if (!run->measuring)
		return;
	measure_baselines(ctx, &run->results.baselines);
}

/* Every source of the registry, in report order. */
void stage_sources(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	if (!run->measuring)
		return;
	for (unsigned i = 0; i < SOURCE_ID_COUNT && i < MAX_SOURCES; i++) {
		struct source_result *s = &r->sources[r->source_count++];
		s->src = clock_sources[i];
		s->status = s->src->prepare(&s->desc, &r->facts);
		if (s->desc.error_code)
			results_error(r, s->desc.error_code, s->desc.reason);
		if (s->status == SOURCE_OK)
			progress(s->src->name);
		measure_source(ctx, s);
	}
}

void stage_read_paths(struct run *run, struct measure_ctx *ctx)
{
	if (run->measuring)
		results_judge_read_paths(&run->results);
}

/* Everything after this times itself with the TSC: a TSC that does not
 * tick (the tsc source's behaviour test) would only produce numbers that
 * mean nothing, so those stages say why instead. */
void stage_tsc_check(struct run *run, struct measure_ctx *ctx)
{
	if (!run->measuring)
		return;
	run->timed = results_source_ok(&run->results, SOURCE_ID_TSC) != NULL;
	if (!run->timed)
		results_error(&run->results, "TSC_UNUSABLE",
			      "the TSC source did not measure ok: frequency, cross-CPU and gap stages skipped");
}

void stage_frequency(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	if (!run->timed)
		return;
	freq_measure(&r->freq, r, ctx, r->facts.settings.freq_window_ms);
}

/* Why the KVM stages timed by the TSC have no figures when it failed. */
#define NOT_TIMED "the TSC source did not measure ok"

/* KVM only (CPUID decides inside): host realtime against the TSC at the
 * rate the frequency stage measured, and the hypercall's cost. */
void stage_clock_pairing(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	if (!run->timed) {
		if (run->measuring)
			r->pairing.reason = NOT_TIMED;
		return;
	}
	if (!kvm_pairing_run(&r->pairing, ctx, &r->facts, r->cpus, MIN(r->cpu_count, PLATFORM_MAX_CPUS),
			     results_tsc_hz(r)))
		results_error(r, "KVM_HYPERCALL_NO_RETURN",
			      "the first clock-pairing hypercall never came back on its AP (kvm_clock_pairing.reason)");
}

void stage_cross_cpu(struct run *run, struct measure_ctx *ctx)
{
	if (!run->timed)
		return;
	crosscpu_run(&run->results.xcpu, &run->results);
}

void stage_gaps(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	const struct probe_facts *f = &r->facts;
	if (!run->timed) {
		if (run->measuring)
			r->steal.reason = NOT_TIMED;
		return;
	}
	/* The host's own account of steal over the very same window (KVM,
	 * registered for it alone). */
	kvm_steal_begin(&run->steal, f);
	gapscan_run(&r->gaps, ctx, results_tsc_hz(r), f->settings.gaps_window_ms, f->cpu.is_intel);
	kvm_steal_end(&run->steal, &r->steal, rate_cycles_to_ns(r->gaps.g.total, results_tsc_hz(r)),
		      (uint64_t)f->settings.gaps_window_ms * 1000000);
	if (f->settings.gaps_all_cpus && r->cpus_enabled > 1)
		gapscan_all_cpus(&r->gaps_cpus, r, ctx);
}

/* Every ok source from 1, 2, 4, ... N CPUs at once, and whether the CPUs
 * asked to run together did; after the gap scan, whose loop sets the
 * presence scan's threshold. */
void stage_contention(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	struct platform *p = r->facts.plat;
	if (!run->timed)
		return;
	struct contention_result *c = p->alloc_pages ? p->alloc_pages(sizeof *c) : NULL;
	if (!c) {
		results_error(r, "NO_MEMORY", "cannot allocate the contention stage's results");
		return;
	}
	contention_run(c, r, ctx);
	r->contention = c;
}

/* The LAPIC's timers, on the BSP.  What may be written is found now,
 * while the firmware's memory map can still be read; a firmware that has
 * boot services (UEFI) owns the LAPIC timer, so the shots wait for the
 * watch, after ExitBootServices (stage_watch). */
void stage_timers(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	struct platform *p = r->facts.plat;
	if (!run->timed) {
		timers_not_measured(&r->timers, "not measured: the TSC source did not measure ok (it times the shots)");
		return;
	}
	timers_prepare(&r->timers, r);
	bool firmware_owns_timer = p->leave_firmware != NULL;
	timers_measure(&r->timers, r, "boot", firmware_owns_timer);
}

/* The sources' facts once more (counts grow while later stages read the
 * sources), then the verdict from plain facts. */
void stage_decide(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	sources_collect(r);
	results_verdict_input(r, &run->verdict_input);
	verdict_decide(&r->verdict, &run->verdict_input);
}

/* The report as it stands now, through the console's sink: its buffer is
 * taken once, after the measurements. */
static void send_report(struct run *run)
{
	struct run_results *r = &run->results;
	struct platform *p = r->facts.plat;
	r->faults_caught = fault_caught_count();
	r->elapsed_ms = rate_cycles_to_ns(tb_now() - r->start_tsc, results_tsc_hz(r)) / 1000000;
	if (!run->report && p->alloc_pages)
		run->report = p->alloc_pages(RUN_REPORT_CAP);
	struct sink out = console_sink(p);
	size_t len = report_deliver(r, run->report, RUN_REPORT_CAP, &out);
	if (len)
		run->report_len = len;
	run->complete = len != 0;
}

/* The boot-time report stands on its own if the VM dies during the watch;
 * with a watch ahead it says so (watch.status "pending"). */
void stage_report(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	const struct settings *s = &r->facts.settings;
	struct watch_result *w = &run->watch;
	if (s->watch_seconds > 0) {
		r->watch = w;
		w->watch_s = s->watch_seconds;
		w->interval_s = s->watch_interval_seconds;
		w->run_id = r->identity.run_id;
		w->status = "pending";
		w->reason = "the watch runs after this report; its final report follows";
	}
	r->serial = *con_uart();
	send_report(run);
}

/* Each interval's record, built from the watch's figures, out through the
 * same sink as the report. */
static void send_watch_record(void *arg, const struct watch_result *w)
{
	struct run *run = arg;
	struct sink out = console_sink(run->results.facts.plat);
	watch_record_deliver(w, run->record, sizeof run->record, &out);
}

/* After the boot-time report: the watch, then a final report with its
 * section.  UEFI leaves boot services first. */
void stage_watch(struct run *run, struct measure_ctx *ctx)
{
	struct run_results *r = &run->results;
	struct platform *plat = r->facts.plat;
	struct watch_result *w = &run->watch;
	if (!r->watch)
		return;
	const char *why = plat->leave_firmware ? plat->leave_firmware() : NULL;
	if (plat->leave_firmware && !why)
		r->phase = "exit_boot_services";
	if (why) {
		progress("watch not started");
		w->status = "error";
		w->reason = why;
		results_error(r, "WATCH_NO_EXIT_BOOT_SERVICES", why);
	} else {
		if (run->timed) {
			progress("timers");
			timers_measure(&r->timers, r, "exit_boot_services", false);
		}
		progress("watch: recording");
		w->reason = NULL;
		watch_run(w, r, ctx, send_watch_record, run);
	}
	sources_collect(r);
	/* The final report's verdict knows what the watch saw (its pauses). */
	results_verdict_input(r, &run->verdict_input);
	verdict_decide(&r->verdict, &run->verdict_input);
	send_report(run);
}

/* After the last reading (the watch reads the sources too). */
void stage_release_sources(struct run *run, struct measure_ctx *ctx)
{
	sources_release(&run->results);
}
