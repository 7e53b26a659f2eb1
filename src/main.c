/* The run, stage by stage: discover the machine, measure its clocks,
 * decide what Linux would do, report, watch, leave.  Each stage is a
 * function of the run and the engine's context (src/run/run.c); run_stage
 * names it on the console before it starts and times it for the report's
 * probe.stages[]. */
#include "probe.h"
#include "run.h"

static const struct run_stage stages[] = {
	{ "fault guard", stage_check_fault_guard }, /* the guard catches what it must */
	{ "discover", stage_discover },             /* CPUID, ACPI, SMBIOS, CPUs, run id, UART */
	{ "announce", stage_announce },             /* the first line; settings problems */
	{ "engine", stage_engine },                 /* stamp pair, sample buffers, how fast this vCPU runs */
	{ "baselines", stage_baselines },           /* TSC step, harness, CPUID and port yardsticks */
	{ "sources", stage_sources },               /* every source: behaviour, read cost, facts */
	{ "read paths", stage_read_paths },         /* native / exit / device_model per source */
	{ "tsc check", stage_tsc_check },           /* the stages below time themselves with the TSC */
	{ "frequency and drift", stage_frequency }, /* TSC rate against HPET and PM timer; drift */
	{ "cross-CPU", stage_cross_cpu },           /* warps and skew between CPUs */
	{ "gaps", stage_gaps },                     /* moments the vCPU did not run; KVM steal time */
	{ "contention", stage_contention },         /* every source read from 1, 2, 4 ... N CPUs at once */
	{ "timers", stage_timers },                 /* LAPIC one-shot and TSC-deadline: arming cost, wake-up latency */
	/* Last of the measurements: its first call may never come back (a
	 * host that shows KVM but retries the instruction forever), so it is
	 * tried on an AP that may be lost without costing the stages above. */
	{ "clock pairing", stage_clock_pairing },   /* KVM: host time against the TSC, the hypercall's cost */
	{ "verdict", stage_decide },                /* the verdict */
	{ "report", stage_report },                 /* summary, framed JSON, file copy */
	{ "watch", stage_watch },                   /* watch=: records, then the final report */
	{ "release sources", stage_release_sources }, /* HPET configuration, pvclock page back */
};

void probe_main(struct platform *plat)
{
	struct measure_ctx ctx = { 0 };
	struct run *run = run_start(plat);
	for (unsigned i = 0; i < ARRAY_SIZE(stages); i++)
		run_stage(run, &ctx, &stages[i]);
	run_leave(run);
}
