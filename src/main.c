/* The run, stage by stage: discover the machine, measure its clocks,
 * decide what Linux would do, report, watch, leave.  Each stage is a
 * function of the run and the engine's context (src/run/run.c). */
#include "probe.h"
#include "run.h"

void probe_main(struct platform *plat)
{
	struct measure_ctx ctx = { 0 };
	struct run *run = run_start(plat);

	stage_check_fault_guard(run, &ctx); /* the guard catches what it must */
	stage_discover(run, &ctx);          /* CPUID, ACPI, SMBIOS, CPUs, run id, UART */
	stage_announce(run, &ctx);          /* the first line; settings problems */
	stage_engine(run, &ctx);            /* stamp pair, sample buffers */
	stage_baselines(run, &ctx);         /* TSC step, harness, CPUID and port yardsticks */
	stage_sources(run, &ctx);           /* every source: behaviour, read cost, facts */
	stage_read_paths(run, &ctx);        /* native / exit / device_model per source */
	stage_tsc_check(run, &ctx);         /* the stages below time themselves with the TSC */
	stage_frequency(run, &ctx);         /* TSC rate against HPET and PM timer; drift */
	stage_clock_pairing(run, &ctx);     /* KVM: host time against the TSC, the hypercall's cost */
	stage_cross_cpu(run, &ctx);         /* warps and skew between CPUs */
	stage_gaps(run, &ctx);              /* moments the vCPU did not run; KVM steal time */
	stage_contention(run, &ctx);        /* every source read from 1, 2, 4 ... N CPUs at once */
	stage_timers(run, &ctx);            /* LAPIC one-shot and TSC-deadline: arming cost, wake-up latency */
	stage_decide(run, &ctx);            /* the verdict */
	stage_report(run, &ctx);            /* summary, framed JSON, file copy */
	stage_watch(run, &ctx);             /* watch=: records, then the final report */
	stage_release_sources(run, &ctx);   /* HPET configuration, pvclock page back */
	run_leave(run);
}
