/* One run of the probe, stage by stage (src/run/).  src/main.c lists the
 * stages in their order; each is a function of the run and the engine's
 * context (run.c), and one that cannot do its work says why in the report
 * while the others still run.  Leaving is leave.c's. */
#ifndef CP_RUN_H
#define CP_RUN_H
#include "measure.h"
#include "results.h"
#include "watch.h"

/* The report's buffer; a watch record's. */
#define RUN_REPORT_CAP (4u << 20)
#define RUN_RECORD_CAP (64u << 10)

struct run {
	struct run_results results;
	struct verdict_input verdict_input;
	struct watch_result watch;
	/* KVM steal time over the gap window: the area the host writes. */
	struct kvm_steal_session steal;
	bool measuring;  /* the sample buffers exist: the measuring stages run */
	bool timed;      /* ...and the tsc source measured ok: the stages timed by it run */
	bool complete;   /* the last report went out whole */
	/* The last report that went out whole, kept so a late console gets
	 * the very same bytes (leave.c); len 0: none yet. */
	char *report;
	size_t report_len;
	char record[RUN_RECORD_CAP];
};

/* The fault guard, COM1 and the settings: what even discovery needs. */
struct run *run_start(struct platform *plat);

/* One entry of src/main.c's stage list. */
struct run_stage {
	const char *name; /* the progress line's and probe.stages[]'s name */
	void (*fn)(struct run *run, struct measure_ctx *ctx);
};

/* Runs one stage: its progress line first (so a stage that never ends is
 * the last one named on the console), its start and end on the TSC. */
void run_stage(struct run *run, struct measure_ctx *ctx, const struct run_stage *stage);

void stage_check_fault_guard(struct run *run, struct measure_ctx *ctx);
void stage_discover(struct run *run, struct measure_ctx *ctx);
void stage_announce(struct run *run, struct measure_ctx *ctx);
void stage_engine(struct run *run, struct measure_ctx *ctx);
void stage_baselines(struct run *run, struct measure_ctx *ctx);
void stage_sources(struct run *run, struct measure_ctx *ctx);
void stage_read_paths(struct run *run, struct measure_ctx *ctx);
void stage_tsc_check(struct run *run, struct measure_ctx *ctx);
void stage_frequency(struct run *run, struct measure_ctx *ctx);
void stage_clock_pairing(struct run *run, struct measure_ctx *ctx);
void stage_cross_cpu(struct run *run, struct measure_ctx *ctx);
void stage_gaps(struct run *run, struct measure_ctx *ctx);
void stage_contention(struct run *run, struct measure_ctx *ctx);
void stage_timers(struct run *run, struct measure_ctx *ctx);
void stage_decide(struct run *run, struct measure_ctx *ctx);
void stage_report(struct run *run, struct measure_ctx *ctx);
void stage_watch(struct run *run, struct measure_ctx *ctx);
void stage_release_sources(struct run *run, struct measure_ctx *ctx);

/* leave.c: the wait for late consoles, the harness's exit value, power
 * off; never returns. */
void run_leave(struct run *run) __attribute__((noreturn));
/* An unexpected fault: told on the serial line, then power off. */
void run_fail(struct run *run, int vector, uint64_t rip, uint64_t error_code) __attribute__((noreturn));
#endif
