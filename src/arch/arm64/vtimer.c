/* The EL1 virtual timer: what arming it costs, and how late the CPU sees
 * it fire (docs/architecture.md, "src/arch/arm64").
 *
 * Found first.  CNTV_CTL_EL0 and CNTV_CVAL_EL0 are read before anything is
 * written.  A timer found enabled is the firmware's (AAVMF's TimerDxe
 * drives its tick from the boot CPU's virtual timer): it is left alone,
 * and the first other CPU cpus.c starts through PSCI measures its own
 * (each CPU has its own timer, and the firmware runs nothing there); with
 * no other CPU it is not measured, and the report says why.  A timer
 * measured is written back as found (CVAL, then CTL with its ISB) and
 * read back: restored.
 *
 * Arm cost.  MSR CNTV_CVAL_EL0 (a compare value far in the future); MSR
 * CNTV_CTL_EL0 (ENABLE | IMASK); ISB, as one call, measured as the counter
 * reads are (measure.c: batch pairs against an empty call, trimmed mean
 * and its SE).  Beside it the poll's own read, MRS CNTV_CTL_EL0.
 *
 * Firing.  Each shot: CVAL = now + DELAY, armed with IMASK set and IRQs
 * masked in DAIF, so the timer's output never reaches the GIC and no
 * handler (AAVMF's or any) runs; then CTL is polled until ISTATUS reads
 * set, each poll followed by an ordered stamp.  The figure is that stamp
 * minus CVAL, in counter ticks: the timer's firing as the CPU sees it,
 * with the poll's period as its resolution (poll_ticks_p50).  It is not
 * the interrupt delivery latency through the GIC to a handler: gic.c
 * takes the interrupt with a handler of the probe's own (vtimer.irq).  A shot
 * whose CVAL had already passed once armed does not count (late_arm); one
 * where ISTATUS never shows within SHOT_BOUND_US counts as a timeout. */
#include "a64.h"
#include "a64_probe.h"
#include "cost_stats.h"
#include "stats.h"

#define SHOTS 256u
#define DELAY_US 100u			/* CVAL this far past the arm (TCG arms take 20 us at times) */
#define SHOT_BOUND_US 10000u		/* one shot's wait, at most */
#define POLL_CAP 10000000u		/* iterations, if CNTFRQ lies */
#define FIRE_BUDGET_MS 300u		/* of A64_VTIMER_BUDGET_MS */
#define FAR_FUTURE ((uint64_t)1 << 62)

static __attribute__((noinline)) uint64_t op_arm(void)
{
	a64_cntv_cval_set(FAR_FUTURE);
	a64_cntv_ctl_set(A64_CNTV_ENABLE | A64_CNTV_IMASK);
	return 0;
}

static __attribute__((noinline)) uint64_t op_ctl_read(void)
{
	return a64_cntv_ctl();
}

static uint64_t lat[SHOTS], gap[SHOTS];

static void fire(struct a64_run *r, struct a64_vtimer *v)
{
	uint64_t per_us = r->cntfrq / 1000000u ? r->cntfrq / 1000000u : 1;
	uint64_t bound = per_us * SHOT_BOUND_US;
	uint64_t budget = r->cntfrq / 1000u * FIRE_BUDGET_MS;
	uint64_t start = a64_stamp();
	uint32_t n = 0;
	v->delay_ticks = per_us * DELAY_US;
	for (uint32_t k = 0; k < SHOTS; k++) {
		if (a64_stamp() - start > budget) {
			v->deadline_hit = true;
			break;
		}
		v->shots++;
		uint64_t daif = a64_irq_save();
		/* A few ticks of jitter, so the arm does not keep one phase
		 * against the emulator's (or the host's) timer slots. */
		uint64_t cval = a64_stamp() + v->delay_ticks + (k * 7u) % 13u;
		a64_cntv_cval_set(cval);
		a64_cntv_ctl_set(A64_CNTV_ENABLE | A64_CNTV_IMASK);
		uint64_t miss = a64_stamp(), seen = 0;
		if (miss >= cval) {
			a64_cntv_ctl_set(A64_CNTV_IMASK);
			a64_irq_restore(daif);
			v->late_arm++;
			continue;
		}
		for (uint32_t i = 0; i < POLL_CAP; i++) {
			uint64_t ctl = a64_cntv_ctl();
			uint64_t t = a64_stamp();
			if (ctl & A64_CNTV_ISTATUS) {
				seen = t;
				break;
			}
			miss = t;
			if (t - cval > bound && t > cval)
				break;
		}
		a64_cntv_ctl_set(A64_CNTV_IMASK);
		a64_irq_restore(daif);
		if (!seen) {
			v->timeouts++;
			continue;
		}
		lat[n] = seen > cval ? seen - cval : 0;
		gap[n] = seen - miss;
		n++;
	}
	v->fired = n;
	if (!n) {
		v->absent = "ISTATUS never read set within the bound";
		return;
	}
	stats_sort_u64(lat, n);
	stats_sort_u64(gap, n);
	v->lat_min = lat[0];
	v->lat_p50 = stats_percentile_sorted(lat, n, STATS_P50);
	v->lat_p99 = stats_percentile_sorted(lat, n, STATS_P99);
	v->lat_max = lat[n - 1];
	stats_trimmed_mean_se(lat, n, cost_batch_cut(n), &v->lat_mean_milli, &v->lat_se_milli);
	v->poll_p50 = stats_percentile_sorted(gap, n, STATS_P50);
}

/* On the CPU that calls it: found, measured, restored (or left alone). */
void a64_vtimer_here(struct a64_run *r, struct a64_vtimer *v)
{
	v->cpu_mpidr = a64_mpidr();
	v->ctl_found = a64_cntv_ctl();
	v->cval_found = a64_cntv_cval();
	if (v->ctl_found & A64_CNTV_ENABLE) {
		v->absent = "the firmware was using the virtual timer (CNTV_CTL_EL0.ENABLE set when read): left alone";
		return;
	}
	v->absent = NULL;
	v->attempted = true;
	a64_measure_cost(r, &v->arm, op_arm);
	a64_cntv_ctl_set(A64_CNTV_IMASK);
	a64_measure_cost(r, &v->ctl_read, op_ctl_read);
	fire(r, v);
	a64_cntv_cval_set(v->cval_found);
	a64_cntv_ctl_set(v->ctl_found & (A64_CNTV_ENABLE | A64_CNTV_IMASK));
	uint64_t ctl = a64_cntv_ctl(), cval = a64_cntv_cval();
	v->restored = (ctl & (A64_CNTV_ENABLE | A64_CNTV_IMASK)) ==
			      (v->ctl_found & (A64_CNTV_ENABLE | A64_CNTV_IMASK)) &&
		      cval == v->cval_found;
}

/* The boot CPU's timer first; when the firmware's tick runs on it, the
 * first CPU cpus.c starts measures its own instead (a64_vtimer_wanted). */
void a64_measure_vtimer(struct a64_run *r)
{
	struct a64_vtimer *v = &r->vtimer;
	v->arm = (struct a64_cost){.name = "arm",
				   .instruction = "msr cntv_cval_el0; msr cntv_ctl_el0; isb"};
	v->ctl_read = (struct a64_cost){.name = "ctl_read", .instruction = "mrs cntv_ctl_el0"};
	v->arm.absent = v->ctl_read.absent = "the virtual timer was not measured";
	if (!r->cntfrq) {
		v->absent = "CNTFRQ_EL0 reads 0: no delay or bound can be set";
		v->boot_ctl_found = a64_cntv_ctl();
		return;
	}
	a64_vtimer_here(r, v);
	v->boot_ctl_found = v->ctl_found;
	if (v->attempted)
		return;
	v->boot_cpu_firmware = true;
	v->absent = "the firmware was using the boot CPU's virtual timer (CNTV_CTL_EL0.ENABLE set when "
		    "read): left alone, and no other CPU started to measure on";
}

bool a64_vtimer_wanted(const struct a64_run *r)
{
	return r->vtimer.boot_cpu_firmware && !r->vtimer.attempted;
}
