/* The other half of guest timekeeping: arming a timer and being woken by
 * it.  Two timers of the local APIC, each its own entry (timers.lapic_oneshot,
 * timers.tsc_deadline): what one arming write costs, and the latency from
 * the moment the timer was due to the first instruction of the probe's
 * interrupt handler, over a few hundred shots.
 *
 * The figures and their arithmetic are pure (src/analysis/timers.c,
 * host-tested); src/arch/x86/measure/timers.c owns the LAPIC, the handler and the
 * shots. */
#ifndef CP_TIMERS_H
#define CP_TIMERS_H
#include "util.h"
#include "stats.h"

#define TIMERS_MAX_SHOTS 2048
/* Shots kept raw in the report (due and handler stamps), the evidence a
 * reader can redo the latency from. */
#define TIMERS_RAW_SHOTS 8

enum timer_status { TIMER_NOT_RUN = 0, TIMER_OK, TIMER_ABSENT, TIMER_ERROR };

/* One timer's shots, as taken: TSC ticks. */
struct timer_shots {
	uint32_t n;                       /* shots that fired */
	uint32_t missed;                  /* armed, never fired in time */
	uint32_t early;                   /* fired before it was due: latency taken as 0 */
	uint64_t most_early;              /* the earliest such, ticks before due */
	uint64_t arm[TIMERS_MAX_SHOTS];   /* the arming write, stamp to stamp */
	uint64_t latency[TIMERS_MAX_SHOTS]; /* due -> first instruction of the handler */
	uint32_t raw_n;
	uint64_t raw_due[TIMERS_RAW_SHOTS], raw_handler[TIMERS_RAW_SHOTS]; /* the first shots, handler 0 = missed */
};

struct timer_result {
	enum timer_status status;
	char reason[REASON_LEN];          /* absent / error: why; ok: "" */
	const char *method;
	uint32_t shots_planned;
	uint32_t budget_ms;               /* the shots' time budget (mode=) */
	uint32_t stopped_budget_ms;       /* non-zero: the budget ended the shots before shots_planned */
	uint64_t delay_min_ticks, delay_max_ticks; /* how far ahead each shot was set */
	uint32_t fired, missed, early;
	uint64_t most_early_ticks;
	struct dist arm_cycles, latency_cycles;
	/* LAPIC one-shot only: the APIC timer's rate against the TSC, TSC
	 * ticks per APIC tick x 2^32 (divide by 1), and the calibration's
	 * window; the latency is counted from the estimated expiry: the arming
	 * write's midpoint plus the programmed count at that rate. */
	uint64_t tsc_per_apic_tick_fp32;
	uint64_t apic_hz;
	uint64_t calibration_ticks;
	/* The calibration's readings: current count and the TSC midpoint of
	 * the read, at its start and end. */
	uint32_t cal_count0, cal_count1;
	uint64_t cal_t0, cal_t1;
	uint32_t raw_n;
	uint64_t raw_due[TIMERS_RAW_SHOTS], raw_handler[TIMERS_RAW_SHOTS];
};

/* What the stage found of the local APIC, and what it put back. */
struct timers_result {
	bool ran;
	const char *reason;       /* the stage as a whole did not run: why (NULL when it did) */
	const char *phase;        /* "boot" (direct boot) | "exit_boot_services" (the UEFI watch) */
	bool apic_present;        /* CPUID.1:EDX[9] */
	bool x2apic;              /* IA32_APIC_BASE bit 10: MSR access */
	uint64_t apic_base;       /* physical, xAPIC mode */
	bool deadline_cpuid;      /* CPUID.1:ECX[24] */
	/* The LAPIC timer as found, and whether it was restored after. */
	uint32_t found_lvt, found_divide, found_initial;
	uint64_t found_deadline;
	bool restored;
	/* What prepare found: the LAPIC may be written (CPUID, enabled, its
	 * page device memory or a hole in the firmware's map, or x2APIC). */
	bool usable;
	bool unusable_absent;     /* ...because there is no (enabled) APIC: absent, not error */
	char unusable_reason[REASON_LEN];
	bool tpr_raised, lint0_masked, svr_enabled_by_probe;
	/* The 8259 pair's masks as found (MADT PCAT_COMPAT only), all masked
	 * while the shots ran and put back after. */
	bool pic_masked;
	uint8_t found_pic1_mask, found_pic2_mask;
	uint32_t vector;          /* the probe's own interrupt vector for the shots */
	uint64_t tsc_hz;          /* the rate the ns figures use */
	uint64_t elapsed_ticks;   /* the measure step, set-up to put-back */
	struct timer_result lapic_oneshot, tsc_deadline;
};

/* TSC ticks per APIC tick x 2^32 from two readings of the down-counting
 * current-count register at TSC times t0 < t1; 0 when the counter did not
 * move down. */
uint64_t timers_apic_ratio(uint32_t count0, uint64_t t0, uint32_t count1, uint64_t t1);
/* The APIC timer's rate in Hz at that ratio and TSC rate. */
uint64_t timers_apic_hz(uint64_t ratio_fp32, uint64_t tsc_hz);
/* APIC ticks to cover `ticks` TSC ticks at the ratio (at least 1, at most
 * 0xffffffff). */
uint32_t timers_apic_count_for(uint64_t ticks, uint64_t ratio_fp32);
/* When a one-shot armed by a write bracketed by [t0, t1] with `count` is
 * due: the midpoint plus count at the ratio. */
uint64_t timers_oneshot_due(uint64_t t0, uint64_t t1, uint32_t count, uint64_t ratio_fp32);
/* How far ahead shot i is set: from min to max in a deterministic,
 * scattered order (no two neighbours alike), so no shot's phase against
 * the host's own timers repeats. */
uint64_t timers_shot_delay(uint32_t i, uint64_t min_ticks, uint64_t max_ticks);

void timers_shots_init(struct timer_shots *s);
/* One shot: its arming cost, and when it was due and when the handler ran
 * (handler 0 = it never fired). */
void timers_shot(struct timer_shots *s, uint64_t arm_ticks, uint64_t due, uint64_t handler);
/* The shots into the result (sorting them in place): ok when any fired. */
void timers_finish(struct timer_result *t, struct timer_shots *s);

/* Both entries the same status and reason (why, then more when not
 * NULL); the stage that could not run at all says so this way. */
void timers_set_both(struct timers_result *out, enum timer_status st, const char *why, const char *more);
void timers_not_measured(struct timers_result *out, const char *why);
/* The report's words for a status. */
const char *timers_status_name(enum timer_status st);

struct run_results;
/* The stage (src/arch/x86/measure/timers.c), in two steps.  Prepare, while the
 * firmware's memory map can still be read: CPUID, IA32_APIC_BASE (through
 * the fault guard), the xAPIC's page against the map.  Measure: both
 * timers, on the BSP, when the probe owns the LAPIC timer (phase "boot"
 * on the direct-boot build; "exit_boot_services" in the UEFI watch); a
 * firmware that still owns it (UEFI boot services) leaves both entries
 * absent with that reason. */
void timers_prepare(struct timers_result *out, struct run_results *r);
void timers_measure(struct timers_result *out, struct run_results *r, const char *phase, bool firmware_owns_timer);
#endif
