/* Watch mode: after the normal report the probe keeps measuring for
 * settings.watch_seconds, one interval at a time, hands a record over per
 * interval and finally a report with a "watch" section goes out.  The
 * figures and decisions are pure (watch_events.h, watchdog_replay.h; the
 * JSON is src/report/watch_json.c's, declared in report.h);
 * src/measure/watch.c gathers them. */
#ifndef CP_WATCH_H
#define CP_WATCH_H
#include "util.h"
#include "watch_events.h"
#include "watchdog_replay.h"
#include "crosscpu.h"
#include "gapscan.h"

/* One replay per era of the verdict's watchdog rules. */
#define WATCH_MAX_REPLAYS VERDICT_MAX_WD_ERAS

struct watch_result {
	const char *status;           /* "ok" | "absent" | "error" */
	const char *reason;           /* absent/error: why */
	uint32_t watch_s, interval_s;
	const char *run_id;
	uint32_t seq;                 /* records emitted so far (the last one's seq) */
	uint64_t elapsed_tsc_ms;      /* by the TSC at the run's rate */
	bool rtc_valid;
	uint64_t elapsed_rtc_ms;      /* by the CMOS RTC's second edges */
	const char *rtc_reason;       /* why there is no wall time */
	uint64_t tsc_hz;              /* last quiet interval's TSC rate, 0 = none */
	const char *tsc_hz_against;
	struct watch_detector det;
	struct watch_interval last;   /* the last interval's raw figures */
	unsigned replay_count;
	struct wd_replay replay[WATCH_MAX_REPLAYS];
	const char *main_kernel;      /* the verdict's main kernel ("6.18"): the sentence leads with it */
	const char *watchdog;         /* the main kernel's watchdog clock (Linux's name), NULL none */
	uint64_t fallback_read_ns[WATCH_MAX_REPLAYS]; /* per replay: its fallback's measured read, 0 = unknown */
	uint32_t watchdog_ticks;
	/* The latest interval's recheck, as the cross-CPU test and the gap
	 * scan return it (too large for the stack; its figures go into
	 * last.recheck). */
	struct crosscpu_result recheck_xcpu;
	struct gaps_report recheck_gaps;
};

struct run_results;
struct measure_ctx;
/* Runs the watch (hardware side) and fills *out; after each interval's
 * figures are in, record(arg, out) gets them (the run builds the record
 * and sends it through its sink). */
void watch_run(struct watch_result *out, struct run_results *r, const struct measure_ctx *ctx,
	       void (*record)(void *arg, const struct watch_result *w), void *arg);
#endif
