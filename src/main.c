/* Orchestration only: discover, measure, decide, report, leave. */
#include "ioports.h"
#include "probe.h"
#include "arch.h"
#include "console.h"
#include "fault.h"
#include "rate.h"
#include "readpath.h"
#include "report.h"
#include "results.h"
#include "strbuf.h"
#include "discover.h"
#include "watch.h"

#define DEFAULT_WAIT_KEY_SECONDS 30

static struct run_results run;


/* isa-debug-exit answers 0x00 at its port; without it the bus floats to
 * 0xff.  Only asked inside a VM: on bare metal the port may be decoded by
 * something else, so the probe neither reads nor writes it there. */
static bool harness_attached(const struct probe_facts *f)
{
	return f->hv.present && inb(DEBUG_EXIT_PORT) == 0x00;
}

/* wait=N (0..3600 s) holds the machine that long before power-off, with
 * the report re-sent on a key and every resend= seconds; wait=0 powers off
 * (or, under a harness, exits) the moment the report is out.  Without
 * wait=, a machine with a firmware screen waits DEFAULT_WAIT_KEY_SECONDS
 * unless a harness is attached; the direct-boot build, whose users read a
 * serial log, does not wait. */
static void __attribute__((noreturn)) leave(int code)
{
	struct platform *plat = run.facts.plat;
	bool harness = harness_attached(&run.facts);
	int32_t wait_s = run.facts.settings.wait_key_seconds;
	if (wait_s < 0)
		wait_s = harness || !plat->wait_key ? 0 : DEFAULT_WAIT_KEY_SECONDS;
	if (wait_s > 0) {
		size_t len;
		const char *report = report_built(&len);
		uint64_t hz = results_tsc_hz(&run);
		con_linger((uint32_t)wait_s, run.facts.settings.resend_seconds, hz ? hz : FACTS_ASSUMED_TSC_HZ,
			   report, len);
	}
	/* Hand the firmware its own IDT back before it runs the last calls. */
	fault_guard_remove();
	if (harness)
		outb(DEBUG_EXIT_PORT, (uint8_t)code);
	plat->power_off();
}

static void fatal_fault(int vector, uint64_t rip, uint64_t error_code)
{
	char line[128];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, "clockprobe: FATAL unexpected ");
	sb_str(&sb, fault_name(vector));
	sb_str(&sb, " (vector ");
	sb_u64(&sb, (uint64_t)vector);
	sb_str(&sb, ") at rip 0x");
	sb_hex(&sb, rip, 1);
	sb_str(&sb, " error 0x");
	sb_hex(&sb, error_code, 1);
	con_log(line);
	if (harness_attached(&run.facts))
		outb(DEBUG_EXIT_PORT, DEBUG_EXIT_PROBE_FAILED);
	/* No harness: leave the message up for a while, then power off rather
	 * than hold a VM (or a cloud instance) forever.  Bounded by the TSC at
	 * the rough rate; firmware state after an unexpected fault is suspect,
	 * so no key wait. */
	uint64_t hz = run.facts.tsc_hz_rough ? run.facts.tsc_hz_rough : FACTS_ASSUMED_TSC_HZ; /* not known yet */
	uint64_t until = rdtsc() + hz * DEFAULT_WAIT_KEY_SECONDS;
	while (rdtsc() < until)
		cpu_relax();
	fault_guard_remove();
	run.facts.plat->power_off();
}

static void progress(const char *what)
{
	char line[96];
	struct strbuf sb;
	sb_init(&sb, line, sizeof line);
	sb_str(&sb, "clockprobe: ");
	sb_str(&sb, what);
	con_log(line);
}

/* (p90 - p50) / p50 of a yardstick's samples, per mille: its own spread
 * widens the boundaries it draws. */
static uint32_t spread_permille(const struct op_cost *c)
{
	if (!c->cycles.p50 || c->cycles.p90 <= c->cycles.p50)
		return 0;
	/* Capped at 10 %: for a cost of a few TSC steps the quantization alone
	 * makes p90 a whole step above p50, which is no spread of the cost. */
	uint64_t s = (c->cycles.p90 - c->cycles.p50) * 1000 / c->cycles.p50;
	return (uint32_t)MIN(s, 100ull);
}

static void classify_read_paths(struct run_results *r)
{
	const struct baselines *b = &r->baselines;
	const struct source_result *tsc = results_source_ok(r, SOURCE_ID_TSC);
	struct read_path_baselines rb = {
		.harness = b->harness.throughput_milli / 1000,
		.cpuid = b->cpuid.throughput_milli / 1000,
		.port = b->port.throughput_milli / 1000,
		.kernel_port = b->kernel_port.throughput_milli / 1000,
		.cpuid_spread = spread_permille(&b->cpuid),
		.kernel_port_spread = spread_permille(&b->kernel_port),
		.port_spread = spread_permille(&b->port),
		.no_hypervisor = !r->facts.hv.present,
		.cpuid_cheap = cpuid_is_cheap((uint64_t)b->cpuid.estimate_milli / 1000, r->facts.tsc_hz_rough),
	};
	if (tsc) {
		rb.rdtsc = tsc->cost.throughput_milli / 1000;
		rb.rdtsc_spread = spread_permille(&tsc->cost);
	}
	/* Raw harness per call against CPUID net of it: where CPUID exits, a
	 * harness dearer than it can only be RDTSC exiting too. */
	r->harness_anomaly = harness_anomaly(b->harness.cycles.p50, b->cpuid.cycles.p50, r->facts.tsc_hz_rough,
					     !rb.cpuid_cheap);
	rb.rdtsc_traps = r->harness_anomaly != NULL;
	for (unsigned i = 0; i < r->source_count; i++) {
		struct source_result *s = &r->sources[i];
		if (s->status == SOURCE_OK)
			s->read_path = read_path_judge(&rb, s->cost.throughput_milli / 1000, s->desc.reads_tsc,
						       s->read_path_basis, sizeof s->read_path_basis);
	}
}

static void measure_sources(struct run_results *r, const struct measure_plan *plan)
{
	for (unsigned i = 0; i < SOURCE_ID_COUNT && i < MAX_SOURCES; i++) {
		struct source_result *s = &r->sources[r->source_count++];
		s->src = clock_sources[i];
		s->status = s->src->prepare(&s->desc, &r->facts);
		if (s->status == SOURCE_OK) {
			progress(s->src->name);
			if (!s->desc.state_only)
				measure_behaviour(&s->behaviour, &s->desc, plan);
			if (s->behaviour.frozen) {
				s->status = SOURCE_ERROR;
				str_copy(s->desc.reason, sizeof s->desc.reason,
					 "counter never moved during the behaviour test");
			} else {
				measure_op(&s->cost, s->desc.read, plan);
			}
		}
		if (s->status == SOURCE_OK && s->src->measure_extra)
			s->src->measure_extra(plan);
		if (s->src->collect)
			s->src->collect(&s->facts);
	}
	classify_read_paths(r);
}

/* Counts that grew while later stages read the sources. */
static void collect_sources(struct run_results *r)
{
	for (unsigned i = 0; i < r->source_count; i++)
		if (r->sources[i].src->collect)
			r->sources[i].src->collect(&r->sources[i].facts);
}

/* After the last reading (the watch reads the sources too). */
static void release_sources(struct run_results *r)
{
	for (unsigned i = 0; i < r->source_count; i++)
		if (r->sources[i].src->finish)
			r->sources[i].src->finish();
}

/* The boot-time report stands on its own if the VM dies during the watch;
 * the final one repeats it with the watch section. */
static bool watch_then_report(struct run_results *r, struct watch_result *w)
{
	struct platform *plat = r->facts.plat;
	const char *why = plat->leave_firmware ? plat->leave_firmware() : NULL;
	if (plat->leave_firmware && !why)
		r->phase = "exit_boot_services";
	if (why) {
		progress("watch not started");
		w->status = "error";
		w->reason = why;
		results_error(r, "WATCH_NO_EXIT_BOOT_SERVICES", why);
	} else {
		progress("watch");
		w->reason = NULL;
		watch_run(w, r);
	}
	collect_sources(r);
	r->faults_caught = fault_caught_count();
	r->elapsed_ms = rate_cycles_to_ns(rdtsc() - r->start_tsc, results_tsc_hz(r)) / 1000000;
	return report_emit(r);
}

void probe_main(struct platform *plat)
{
	struct run_results *r = &run;
	struct probe_facts *f = &r->facts;

	r->start_tsc = rdtsc();
	r->phase = "boot_services";
	f->plat = plat;
	con.plat = plat;
	fault_set_fatal_handler(fatal_fault);
	fault_guard_install();

	/* COM1 at once, so a fault during discovery is still told; the UART
	 * the firmware's tables name (SPCR) or the settings ask for is chosen
	 * after discovery. */
	uart_init(&con.uart, COM1_PORT, "COM1 (default)");
	settings_defaults(&f->settings);
	if (plat->read_settings)
		plat->read_settings(&f->settings);
	fault_selfcheck(&r->selfcheck);
	discover_platform(r);
	discover_identity(r);
	discover_console(r);
	if (f->settings.dump)
		discover_capture_raw(r);
	con_say("clockprobe " PROBE_VERSION ": measuring the clocks of this machine");
	for (uint32_t i = 0; i < f->settings.problem_count; i++)
		results_error(r, "SETTINGS", f->settings.problems[i]);
	if (f->settings.problems_dropped) {
		char line[80];
		struct strbuf sb;
		sb_init(&sb, line, sizeof line);
		sb_u64(&sb, f->settings.problems_dropped);
		sb_str(&sb, " more settings problems not listed");
		results_error(r, "SETTINGS", line);
	}

	static uint64_t *scratch;
	/* Two arrays: the reads and the empty harness interleaved with them. */
	scratch = plat->alloc_pages ? plat->alloc_pages(2 * f->settings.samples * sizeof(uint64_t)) : NULL;
	if (!scratch) {
		results_error(r, "NO_MEMORY", "cannot allocate the sample buffer");
	} else {
		struct measure_plan plan = {
			.samples = f->settings.samples,
			.budget_cycles = facts_ms_to_cycles(f, f->settings.source_budget_ms),
			.window_deadline_cycles = facts_ms_to_cycles(f, 2),
			.scratch = scratch,
			.harness_scratch = scratch + f->settings.samples,
		};
		serialization_choose(&r->serialization, &f->cpu);
		r->method = measure_init(&r->serialization, f->cpu.rdtscp);
		progress("baselines");
		measure_baselines(&r->baselines, &plan);
		measure_sources(r, &plan);
		/* Everything after this times itself with the TSC: a TSC that does
		 * not tick (the tsc source's behaviour test) would only produce
		 * numbers that mean nothing, so those stages say why instead. */
		if (results_source_ok(r, SOURCE_ID_TSC)) {
			progress("frequency and drift");
			freq_measure(&r->freq, r, f->settings.freq_window_ms);
			kvm_pairing_run(&r->pairing, f, &plan, results_tsc_hz(r));
			progress("cross-CPU");
			crosscpu_run(&r->xcpu, r);
			progress("gaps");
			kvm_steal_begin(f);
			gapscan_run(&r->gaps, results_tsc_hz(r), measure_tsc_step(), f->settings.gaps_window_ms,
				    f->cpu.is_intel);
			kvm_steal_end(&r->steal, rate_cycles_to_ns(r->gaps.g.total, results_tsc_hz(r)),
				      (uint64_t)f->settings.gaps_window_ms * 1000000);
			if (f->settings.gaps_all_cpus && r->cpus_enabled > 1)
				gapscan_all_cpus(&r->gaps_cpus, r, measure_tsc_step());
		} else {
			r->pairing.reason = r->steal.reason = "the TSC source did not measure ok";
		results_error(r, "TSC_UNUSABLE",
				      "the TSC source did not measure ok: frequency, cross-CPU and gap stages skipped");
		}
	}
	collect_sources(r);
	static struct verdict_input vin;
	results_verdict_input(r, &vin);
	verdict_decide(&r->verdict, &vin);

	static struct watch_result watch;
	bool watching = f->settings.watch_seconds > 0;
	if (watching) {
		r->watch = &watch;
		watch.watch_s = f->settings.watch_seconds;
		watch.interval_s = f->settings.watch_interval_seconds;
		watch.run_id = r->identity.run_id;
		watch.status = "pending";
		watch.reason = "the watch runs after this report; its final report follows";
	}
	r->faults_caught = fault_caught_count();
	r->serial = con.uart;
	r->elapsed_ms = rate_cycles_to_ns(rdtsc() - r->start_tsc, results_tsc_hz(r)) / 1000000;
	bool complete = report_emit(r);
	if (watching)
		complete = watch_then_report(r, &watch);
	release_sources(r);
	leave(complete ? DEBUG_EXIT_REPORT_COMPLETE : DEBUG_EXIT_PROBE_FAILED);
}
