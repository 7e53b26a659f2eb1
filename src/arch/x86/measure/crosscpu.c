/* BSP and one AP at a time: the platform starts AP i alone, both loop
 * taking a shared lock, reading their clock and comparing against the
 * last value any CPU published (Linux's check_tsc_warp), then do round
 * trips for the skew estimate.  The other APs stay parked in the
 * platform's idle loop; every wait on either side is bounded by a TSC
 * deadline, so a CPU that never answers is reported, not waited for. */
#include "msr.h"
#include "crosscpu.h"
#include "cpu_plan.h"
#include "x86.h"
#include "fault.h"
#include "fault_x86.h"
#include "kvmclock.h"
#include "measure.h"
#include "results.h"
#include "strbuf.h"
#include "rate.h"
#include "ioports.h"
#include "xcpu_selftest.h"

#define WARP_ITERATIONS 20000
/* One wait for the partner CPU at boot. */
#define XCPU_WAIT_MS 200
#define SKEW_EXCHANGES 64
/* ~40 ms at 2.6 GHz: a vCPU preempted across the write for that long is
 * far rarer than one preempted for the 0.4 ms a 10^6 offset was (TCG once
 * called an ignored write honoured so), and the skew exchange settles it. */
#define SELFTEST_OFFSET 100000000ull

enum turn_phase { PHASE_IDLE, PHASE_WARP_TSC, PHASE_WARP_KVMCLOCK, PHASE_SKEW, PHASE_DONE };

struct shared {
	volatile uint32_t lock;
	volatile uint32_t turn;      /* cpu index whose turn it is, 0 = none */
	volatile uint32_t phase;
	volatile uint32_t ap_ready;  /* AP has reached the phase */
	volatile uint32_t ap_done;
	volatile uint32_t stop;      /* BSP gave up: APs leave */
	volatile uint64_t ping_t0;
	volatile uint32_t ping_seq, pong_seq;
	volatile uint64_t pong_t1;
	uint64_t deadline_cycles;    /* per wait */
	uint64_t spin_cap;           /* per wait: deadline_cycles' spins (facts_spin_cap) */
	uint32_t iterations;         /* warp loop rounds per CPU and phase */
	uint32_t bsp_cpuid[8];
	struct warp_state warp;      /* touched under lock only */
	struct xcpu_cpu *cpus;
	uint32_t n;
	bool kvmclock;
	struct pvclock_time_info *areas; /* one per CPU, 32 bytes each */
	uint32_t bsp;                /* the BSP's index in cpus[] */
	bool selftest;
	bool tsc_adjust;
	uint32_t selftest_cpu;
	struct xcpu_selftest *st;
	uint64_t selftest_adjust;    /* IA32_TSC_ADJUST before the selftest */
	/* Set once the BSP's skew measurement of the selftest AP (its
	 * cpus[].skew) is final, before the AP undoes its offset: the AP's own
	 * before/after TSC difference cannot tell a moved TSC from a preempted
	 * vCPU. */
	volatile uint32_t selftest_settled;
	/* The clock the self-test's write cannot move, read on the AP around
	 * the write (0: none, the decision is undetermined). */
	uint16_t pm_port;
	uint32_t pm_width;
	uint64_t tsc_hz;
};

/* Shared with the APs: the lock, turns and stamps every CPU of the test
 * reads and writes (an AP's work function gets no other way to it). */
static struct shared sh;

/* Spins are bounded twice: by the TSC deadline and by a count (sh.spin_cap,
 * a wait's deadline_cycles at the measured spin cost), so a TSC that
 * stopped cannot hold a CPU here forever. */

/* False when the partner held the lock past the deadline: the caller then
 * stops without observing (an unlocked reading could be a false warp) and
 * without dropping a lock it does not hold. */
static bool lock_take(uint64_t deadline)
{
	for (uint64_t spins = 0; __atomic_exchange_n(&sh.lock, 1, __ATOMIC_ACQUIRE); spins++) {
		if (rdtsc() > deadline || spins > sh.spin_cap) /* cap: the wait's own budget in spins */
			return false;
		cpu_relax();
	}
	return true;
}

static void lock_drop(void) { __atomic_store_n(&sh.lock, 0, __ATOMIC_RELEASE); }

static void timing_cpuid(uint32_t out[8])
{
	uint32_t r[4];
	cpuid_raw(1, 0, r);
	out[0] = r[2] & ((1u << 24) | (1u << 31)); /* TSC-deadline, hypervisor */
	out[1] = r[3] & (1u << 4);                 /* TSC */
	cpuid_raw(0x80000000, 0, r);
	uint32_t max_ext = r[0];
	out[2] = 0;
	if (max_ext >= 0x80000007) {
		cpuid_raw(0x80000007, 0, r);
		out[2] = r[3] & (1u << 8); /* invariant TSC */
	}
	out[3] = out[4] = out[5] = 0;
	if (out[0] & (1u << 31)) {
		/* Only under a hypervisor: on bare metal this leaf is the highest
		 * basic leaf's data, which may be per-CPU (leaf 0xB's x2APIC ID). */
		cpuid_raw(0x40000000, 0, r);
		out[3] = r[1];
		out[4] = r[2];
		out[5] = r[3];
	}
	cpuid_raw(0, 0, r);
	out[6] = 0;
	if (r[0] >= 0x15) {
		cpuid_raw(0x15, 0, r);
		out[6] = r[0] ^ r[1] ^ r[2];
	}
	out[7] = 0;
}

/* Each CPU with its own ordered read (it chose it from its own CPUID). */
static uint64_t read_clock(uint32_t cpu, bool kvmclock)
{
	enum tsc_read how = sh.cpus[cpu].read;
	return kvmclock ? kvmclock_read_area_as(&sh.areas[cpu], how) : rdtsc_ordered_as(how);
}

/* Returns the rounds it actually ran: the deadline can end it before
 * sh.iterations. */
static uint32_t warp_loop(uint32_t cpu, bool kvmclock)
{
	uint64_t end = rdtsc() + sh.deadline_cycles;
	uint32_t i;
	for (i = 0; i < sh.iterations; i++) {
		if (!lock_take(end))
			break;
		uint64_t now = read_clock(cpu, kvmclock);
		warp_observe(&sh.warp, cpu, now);
		lock_drop();
		if (rdtsc() > end) {
			i++;
			break;
		}
	}
	return i;
}

/* me = the waiting AP's index, or UINT32_MAX on the BSP: an AP whose pair
 * was given up (the turn moved on) stops waiting at once, so a late AP
 * never answers for the next one. */
static bool wait_for(volatile uint32_t *v, uint32_t want, uint64_t deadline, uint32_t me)
{
	for (uint64_t spins = 0; *v != want; spins++) {
		/* cap: the wait's own budget (sh.deadline_cycles) in spins */
		if (rdtsc() > deadline || spins > sh.spin_cap || sh.stop || (me != UINT32_MAX && sh.turn != me))
			return false;
		cpu_relax();
	}
	return true;
}

/* Offsets this AP's TSC by SELFTEST_OFFSET: through IA32_TSC_ADJUST where
 * CPUID offers it, then, where that was not shown honoured, by writing
 * IA32_TSC itself (read, add, write: off by the few cycles in between).
 *
 * Whether the TSC moved is decided from the ACPI PM timer, a clock the
 * write cannot move, read between two TSC reads just before and just
 * after the write (xcpu_selftest_decide()): a vCPU preempted across the
 * write advances both alike, so the preemption cancels.  The TSC's own
 * jump alone (after - before >= offset) read a preemption of >= 1e8
 * ticks as "honoured"; with no PM timer, or bounds that reach both
 * answers, the answer is "undetermined", never the jump. */
static void bracket(struct xcpu_bracket *b)
{
	b->tsc_lo = rdtsc();
	b->ref = sh.pm_port ? inl(sh.pm_port) : 0;
	b->tsc_hi = rdtsc();
}

static enum xcpu_moved write_moved(struct xcpu_selftest *st, const struct xcpu_bracket *before)
{
	struct xcpu_bracket after;
	bracket(&after);
	/* 1000 ppm: far more than the run's TSC rate is off the PM timer's,
	 * and still 25x inside the quarter offset over a 2 s preemption. */
	struct xcpu_ref_clock ref = { .hz = sh.pm_port ? RATE_ACPI_PM_HZ : 0, .width_bits = sh.pm_width,
				      .tsc_hz = sh.tsc_hz, .tsc_ppm = 1000 };
	return xcpu_selftest_decide(before, &after, &ref, SELFTEST_OFFSET, &st->jump_min, &st->jump_max);
}

static void ap_selftest_apply(uint32_t cpu)
{
	struct xcpu_selftest *st = sh.st;
	uint64_t adj = 0;
	struct xcpu_bracket before;
	st->cpu = cpu;
	st->offset_cycles = SELFTEST_OFFSET;
	st->honoured_basis = sh.pm_port ? "pm_timer_bracket" : "none";
	if (sh.tsc_adjust && rdmsr_safe(MSR_IA32_TSC_ADJUST, &adj) == FAULT_NONE) {
		bracket(&before);
		if (wrmsr_safe(MSR_IA32_TSC_ADJUST, adj + SELFTEST_OFFSET) == FAULT_NONE) {
			sh.selftest_adjust = adj;
			st->ran = true;
			st->moved = write_moved(st, &before);
			st->adjust_moved = st->moved;
			st->adjust_tried = true;
			st->honoured = st->moved == XCPU_MOVED_YES;
			if (st->honoured)
				return;
			wrmsr_safe(MSR_IA32_TSC_ADJUST, adj); /* not shown honoured: take it back */
		}
	}
	bracket(&before);
	if (wrmsr_safe(MSR_IA32_TSC, before.tsc_hi + SELFTEST_OFFSET) == FAULT_NONE) {
		st->ran = true;
		st->via_tsc_write = true;
		st->moved = write_moved(st, &before);
		st->honoured = st->moved == XCPU_MOVED_YES;
	}
}

/* The BSP's skew exchange after the write, kept as a figure and, where
 * the bracket left it undetermined, as the undo's guide only: with no
 * skew measured before the write it cannot decide `honoured`.  Signed:
 * the AP's TSC moved forward shows as a positive skew near the offset. */
static bool ap_selftest_skew_moved(uint32_t me)
{
	const struct warp_skew *k = &sh.cpus[me].skew;
	if (!wait_for(&sh.selftest_settled, 1, rdtsc() + sh.deadline_cycles, me) || !k->valid ||
	    k->bound >= SELFTEST_OFFSET / 4)
		return false;
	int64_t miss = k->offset - (int64_t)SELFTEST_OFFSET;
	return miss > -(int64_t)(SELFTEST_OFFSET / 4) && miss < (int64_t)(SELFTEST_OFFSET / 4);
}

static void ap_selftest_undo(uint32_t me)
{
	struct xcpu_selftest *st = sh.st;
	if (!st->ran)
		return;
	bool skew_moved = ap_selftest_skew_moved(me);
	if (!st->via_tsc_write) {
		st->tsc_adjust_honoured = st->honoured;
		/* The value it had: right whether or not the write took. */
		st->restored = wrmsr_safe(MSR_IA32_TSC_ADJUST, sh.selftest_adjust) == FAULT_NONE;
		return;
	}
	/* An ignored write changed nothing; undoing it could. */
	if (st->moved == XCPU_MOVED_NO || (st->moved == XCPU_MOVED_UNDETERMINED && !skew_moved)) {
		st->restored = st->moved == XCPU_MOVED_NO;
		return;
	}
	st->restored = wrmsr_safe(MSR_IA32_TSC, rdtsc() - SELFTEST_OFFSET) == FAULT_NONE;
}

/* Runs on every AP (SysV convention; the platform wraps it). */
static void ap_main(void *index)
{
	struct descriptor_table_ptr firmware_idt;
	sidt(&firmware_idt);
	fault_guard_load_on_this_cpu();
	uint32_t me = (uint32_t)(uintptr_t)index;
	struct xcpu_cpu *c = &sh.cpus[me];
	struct serialization ser;
	serialization_choose_here(&ser);
	c->read = ser.read;
	c->read_why = ser.read_why;
	uint32_t ids[8];
	timing_cpuid(ids);
	c->cpuid_consistent = mem_equal(ids, sh.bsp_cpuid, sizeof ids);
	c->arrived = true;
	/* The BSP set the turn before starting us; a platform that ran us late
	 * finds another turn (or stop) and leaves. */
	if (sh.turn != me)
		goto out;
	if (sh.kvmclock)
		kvmclock_register_area(&sh.areas[me]);
	if (sh.selftest && me == sh.selftest_cpu)
		ap_selftest_apply(me);
	for (uint32_t phase = PHASE_WARP_TSC; phase <= PHASE_SKEW; phase++) {
		if (phase == PHASE_WARP_KVMCLOCK && !sh.kvmclock)
			continue;
		if (!wait_for(&sh.phase, phase, rdtsc() + sh.deadline_cycles, me))
			break;
		sh.ap_ready = phase;
		if (phase == PHASE_SKEW) {
			for (uint32_t seq = 1; seq <= SKEW_EXCHANGES; seq++) {
				if (!wait_for(&sh.ping_seq, seq, rdtsc() + sh.deadline_cycles, me))
					break;
				sh.pong_t1 = rdtsc_ordered_as(c->read);
				__atomic_store_n(&sh.pong_seq, seq, __ATOMIC_RELEASE);
			}
		} else {
			uint32_t ran = warp_loop(me, phase == PHASE_WARP_KVMCLOCK);
			if (phase == PHASE_WARP_TSC)
				c->iterations = ran;
		}
		sh.ap_done = phase;
	}
	if (sh.selftest && me == sh.selftest_cpu)
		ap_selftest_undo(me);
	if (sh.kvmclock)
		kvmclock_unregister_this_cpu();
out:
	lidt(&firmware_idt);
}

static void bsp_pair(struct crosscpu_result *out, uint32_t ap)
{
	struct xcpu_cpu *c = &sh.cpus[ap];
	warp_init(&sh.warp);
	sh.ap_ready = sh.ap_done = PHASE_IDLE;
	sh.ping_seq = sh.pong_seq = 0;
	sh.phase = PHASE_IDLE;
	sh.turn = ap;
	bool ok = true;
	for (uint32_t phase = PHASE_WARP_TSC; phase <= PHASE_SKEW && ok; phase++) {
		if (phase == PHASE_WARP_KVMCLOCK && !sh.kvmclock)
			continue;
		sh.phase = phase;
		if (!wait_for(&sh.ap_ready, phase, rdtsc() + sh.deadline_cycles, UINT32_MAX)) {
			ok = false;
			break;
		}
		bool was_on = irq_save();
		if (phase == PHASE_SKEW) {
			warp_skew_init(&c->skew);
			for (uint32_t seq = 1; seq <= SKEW_EXCHANGES; seq++) {
				uint64_t t0 = rdtsc_ordered_as(sh.cpus[sh.bsp].read);
				__atomic_store_n(&sh.ping_seq, seq, __ATOMIC_RELEASE);
				if (!wait_for(&sh.pong_seq, seq, rdtsc() + sh.deadline_cycles, UINT32_MAX)) {
					ok = false;
					break;
				}
				uint64_t t2 = rdtsc_ordered_as(sh.cpus[sh.bsp].read);
				warp_skew_add(&c->skew, t0, sh.pong_t1, t2);
			}
			if (sh.selftest && ap == sh.selftest_cpu)
				__atomic_store_n(&sh.selftest_settled, 1, __ATOMIC_RELEASE);
		} else {
			uint32_t ran = warp_loop(sh.bsp, phase == PHASE_WARP_KVMCLOCK);
			if (phase == PHASE_WARP_TSC)
				c->bsp_iterations = ran;
		}
		irq_restore(was_on);
		ok = ok && wait_for(&sh.ap_done, phase, rdtsc() + sh.deadline_cycles, UINT32_MAX);
		if (phase == PHASE_WARP_TSC) {
			c->warps = sh.warp.warps;
			c->same_cpu_warps = sh.warp.same_cpu_warps;
			c->stalls = sh.warp.equal;
			c->max_warp = sh.warp.max_warp;
			warp_init(&sh.warp);
		} else if (phase == PHASE_WARP_KVMCLOCK) {
			c->kvmclock_warps = sh.warp.warps;
			out->kvmclock_warps += sh.warp.warps;
			if (sh.warp.max_warp > out->kvmclock_max_warp_ns)
				out->kvmclock_max_warp_ns = sh.warp.max_warp;
			warp_init(&sh.warp);
		}
	}
	sh.phase = PHASE_DONE;
	c->tested = ok;
}

static void report_ap_faults(struct run_results *r)
{
	const struct ap_fault *list;
	uint32_t n = fault_ap_faults(&list);
	for (uint32_t i = 0; i < n && i < FAULT_MAX_AP_FAULTS; i++) {
		char line[128];
		struct strbuf sb;
		if (!__atomic_load_n(&list[i].vector, __ATOMIC_ACQUIRE))
			continue;
		sb_init(&sb, line, sizeof line);
		sb_str(&sb, "AP with APIC id ");
		sb_u64(&sb, list[i].apic_id);
		sb_str(&sb, " took ");
		sb_str(&sb, fault_name(list[i].vector));
		sb_str(&sb, " at rip 0x");
		sb_hex(&sb, list[i].rip, 1);
		sb_str(&sb, " error 0x");
		sb_hex(&sb, list[i].error_code, 1);
		sb_str(&sb, "; parked");
		results_error(r, "AP_FAULT", line);
	}
	if (n > FAULT_MAX_AP_FAULTS)
		results_error(r, "AP_FAULT", "more APs faulted than are listed");
}

static void stop_phase(struct crosscpu_result *out, uint32_t ap)
{
	struct strbuf sb;
	sb_init(&sb, out->stopped_reason, sizeof out->stopped_reason);
	sb_str(&sb, "CPU ");
	sb_u64(&sb, ap);
	sb_str(&sb, " (APIC id ");
	sb_u64(&sb, out->cpu[ap].apic_id);
	sb_str(&sb, out->cpu[ap].arrived ? ") stopped answering" : ") never answered");
	sb_str(&sb, "; the phase's stall budget is spent, later CPUs untested");
}

/* How much one run may do and wait: the boot-time run, or watch mode's
 * short re-check (no selftest, and no kvm-clock phase: its per-CPU
 * registration would take the BSP's area from the watch's source). */
struct xcpu_plan {
	uint32_t iterations;
	uint32_t wait_ms;
	uint32_t stall_budget_ms;
	bool recheck;
	uint32_t budget_ms; /* the pairs in all; 0: none */
};

static void test_pairs(struct crosscpu_result *out, struct run_results *r, const struct xcpu_plan *plan);
static void name_not_tested(struct crosscpu_result *out);

void crosscpu_run(struct crosscpu_result *out, struct run_results *r)
{
	const struct settings *set = &r->facts.settings;
	const struct xcpu_plan plan = { WARP_ITERATIONS, XCPU_WAIT_MS, XCPU_STALL_BUDGET_MS, false,
					set->xcpu_budget_ms ? set->xcpu_budget_ms : cpu_plan_xcpu_budget_ms(set->mode) };
	uint64_t t0 = rdtsc();
	test_pairs(out, r, &plan);
	name_not_tested(out);
	/* A CPU the stage itself left out is an error of the run (CPUs the
	 * platform never started are SMP_CPUS_NOT_STARTED already). */
	if (out->past_budget)
		results_error(r, "CPUS_NOT_TESTED", out->not_tested);
	/* The stage's time, for the note's per-CPU-count figures. */
	uint64_t per_us = facts_ms_to_cycles(&r->facts, 1) / 1000;
	out->elapsed_us = per_us ? (rdtsc() - t0) / per_us : 0;
}

void crosscpu_recheck(struct crosscpu_result *out, struct run_results *r, uint32_t iterations,
		      uint32_t wait_ms, uint32_t stall_budget_ms, uint32_t budget_ms)
{
	const struct xcpu_plan plan = { iterations, wait_ms, stall_budget_ms, true, budget_ms };
	test_pairs(out, r, &plan);
}

/* The shared block the APs read, set before the first AP starts: the
 * CPUs, deadlines and spin cap, the kvm-clock areas, the selftest's AP. */
static void share_test(struct crosscpu_result *out, struct run_results *r, struct platform *p,
		       const struct xcpu_plan *plan, uint32_t bsp)
{
	memset(&sh, 0, sizeof sh);
	sh.cpus = out->cpu;
	sh.n = out->cpu_count;
	sh.deadline_cycles = facts_ms_to_cycles(&r->facts, plan->wait_ms);
	sh.spin_cap = facts_spin_cap(&r->facts, sh.deadline_cycles);
	sh.iterations = plan->iterations;
	sh.kvmclock = !plan->recheck && results_facts(r, SOURCE_ID_KVMCLOCK)->kvmclock.registered;
	sh.selftest = out->selftest.requested;
	sh.tsc_adjust = r->facts.cpu.tsc_adjust;
	sh.bsp = bsp;
	sh.selftest_cpu = UINT32_MAX;
	for (uint32_t i = 0; i < sh.n && sh.selftest_cpu == UINT32_MAX; i++)
		if (i != bsp && r->cpus[i].enabled)
			sh.selftest_cpu = i;
	sh.st = &out->selftest;
	const struct acpi_pm_timer_info *pm = &r->facts.acpi.pm_timer;
	if (sh.selftest && pm->present && pm->gas.space_id == ACPI_SPACE_IO && pm->gas.address &&
	    pm->gas.address <= IOPORT_LAST_DWORD) {
		sh.pm_port = (uint16_t)pm->gas.address;
		sh.pm_width = pm->width_bits == 32 ? 32 : 24;
		sh.tsc_hz = results_tsc_hz(r);
		if (!sh.tsc_hz)
			sh.pm_port = 0;
	}
	if (sh.kvmclock) {
		sh.areas = p->alloc_pages(sizeof(struct pvclock_time_info) * XCPU_MAX);
		sh.kvmclock = sh.areas != NULL;
		/* Every CPU reads its own area here, the BSP included: the BSP's
		 * registration moves from the source's area to this one (the
		 * source's read is measured already; its finish unregisters). */
		if (sh.kvmclock)
			kvmclock_register_area(&sh.areas[bsp]);
	}
	timing_cpuid(sh.bsp_cpuid);
}


/* The pairs' figures into the result's totals, with the all-CPU phase's
 * warps and the selftest AP's own. */
static void tally_pairs(struct crosscpu_result *out, uint32_t bsp)
{
	for (uint32_t i = 0; i < sh.n; i++) {
		struct xcpu_cpu *c = &out->cpu[i];
		if (i == bsp)
			continue;
		if (c->tested) {
			out->pair_iterations += (uint64_t)c->iterations + c->bsp_iterations;
			if (!out->pair_iterations_min || c->iterations < out->pair_iterations_min)
				out->pair_iterations_min = c->iterations;
		}
		out->warps += c->warps;
		out->same_cpu_warps += c->same_cpu_warps;
		out->stalls += c->stalls;
		if (c->max_warp > out->max_warp)
			out->max_warp = c->max_warp;
		if (c->skew.valid) {
			uint64_t mag = c->skew.offset < 0 ? (uint64_t)-c->skew.offset : (uint64_t)c->skew.offset;
			if (mag + c->skew.bound > out->max_skew_cycles)
				out->max_skew_cycles = mag + c->skew.bound;
		}
		if (sh.selftest && i == sh.selftest_cpu) {
			out->selftest.warps = c->warps;
			out->selftest.measured_skew = c->skew.offset;
		}
	}
	/* The all-CPU phase's warps are warps too (the verdict reads these). */
	out->warps += out->all.warps;
	out->same_cpu_warps += out->all.same_cpu_warps;
	out->max_warp = MAX(out->max_warp, out->all.max_warp);
}

static void test_pairs(struct crosscpu_result *out, struct run_results *r, const struct xcpu_plan *plan)
{
	struct platform *p = r->facts.plat;
	memset(out, 0, sizeof *out);
	out->method = "Linux check_tsc_warp style: shared lock, each CPU reads its ordered TSC read (per_cpu[].tsc_read) under it and "
		      "compares with the last value any CPU published; skew from 64 BSP->AP->BSP round trips "
		      "(offset = t1 - (t0+t2)/2, bound = rtt/2, smallest rtt kept)";
	out->iterations_per_pair = plan->iterations;
	out->cpus = r->cpus_enabled;
	out->cpu_count = MIN(r->cpu_count, (unsigned)XCPU_MAX);
	out->selftest.requested = r->facts.settings.selftest && !plan->recheck;
	for (uint32_t i = 0; i < out->cpu_count; i++) {
		out->cpu[i].apic_id = r->cpus[i].apic_id;
		out->cpu[i].bsp = r->cpus[i].bsp;
		out->cpu[i].started = r->cpus[i].bsp || r->cpus[i].enabled;
		out->not_started += !out->cpu[i].started;
	}
	uint32_t bsp = 0;
	for (uint32_t i = 0; i < out->cpu_count; i++)
		if (r->cpus[i].bsp)
			bsp = i;
	out->tested = 1;
	out->cpu[bsp].tested = out->cpu[bsp].arrived = out->cpu[bsp].cpuid_consistent = true;
	out->cpu[bsp].read = r->serialization.read;
	out->cpu[bsp].read_why = r->serialization.read_why;
	if (r->cpus_enabled < 2) {
		out->reason = "only one CPU: nothing to compare";
		out->ran = true;
		return;
	}
	if (!p->ap_start || !p->aps_wait || !p->alloc_pages) {
		out->reason = "this boot path cannot run code on other CPUs";
		return;
	}
	share_test(out, r, p, plan, bsp);
	out->ran = true;
	/* Longest a pair can legitimately take: every wait of the three phases
	 * and of the skew exchanges at its deadline, twice over because the
	 * deadline uses the rough rate.  Past this the firmware may reset the
	 * AP, which then could not undo its selftest offset. */
	uint64_t pair_us = (uint64_t)(3 * 3 + SKEW_EXCHANGES + 4) * plan->wait_ms * 1000 * 2;
	/* What APs that do not answer may cost in all, not per pair: a
	 * machine with a dead AP finishes in seconds, not minutes. */
	uint64_t cycles_per_ms = facts_ms_to_cycles(&r->facts, 1);
	uint64_t stall_left_ms = plan->stall_budget_ms;
	if (!cycles_per_ms)
		cycles_per_ms = 1;
	/* The stage's overall budget: a pair is started only while the
	 * dearest pair so far still fits what is left (cpu_plan_fits). */
	uint64_t stage_t0 = rdtsc(), dearest_ms = 0;
	uint32_t pairs_done = 0;
	bool stalled = false;
	out->budget_ms = plan->budget_ms;
	for (uint32_t i = 0; i < sh.n; i++) {
		if (i == bsp || !r->cpus[i].enabled)
			continue;
		uint64_t spent_ms = (rdtsc() - stage_t0) / cycles_per_ms;
		if (plan->budget_ms && !cpu_plan_fits(spent_ms, plan->budget_ms, pairs_done, dearest_ms, 0)) {
			for (uint32_t j = i; j < sh.n; j++)
				if (j != bsp && r->cpus[j].enabled) {
					out->cpu[j].past_budget = true;
					out->past_budget++;
				}
			struct strbuf sb;
			sb_init(&sb, out->stopped_reason, sizeof out->stopped_reason);
			sb_str(&sb, "the stage's ");
			sb_u64(&sb, plan->budget_ms);
			sb_str(&sb, " ms budget left no room for another pair after ");
			sb_u64(&sb, pairs_done);
			sb_str(&sb, " (the dearest took ");
			sb_u64(&sb, dearest_ms);
			sb_str(&sb, " ms): later CPUs untested");
			break;
		}
		uint64_t pair_t0 = rdtsc();
		sh.turn = i;
		if (p->ap_start(i, ap_main, (void *)(uintptr_t)i, pair_us))
			continue; /* reported: answered=false, tested=false */
		bsp_pair(out, i);
		pairs_done++;
		dearest_ms = MAX(dearest_ms, (rdtsc() - pair_t0) / cycles_per_ms);
		if (out->cpu[i].tested) {
			out->tested++;
			continue;
		}
		/* Let a straggler finish (it stops at the turn change) before
		 * the next AP shares the same flags, within what is left of the
		 * budget; one that does not ends the phase. */
		sh.turn = UINT32_MAX;
		uint64_t t0 = rdtsc();
		bool finished = p->aps_wait(MIN(pair_us, stall_left_ms * 1000));
		uint64_t waited_ms = (rdtsc() - t0) / cycles_per_ms;
		stall_left_ms = waited_ms < stall_left_ms ? stall_left_ms - waited_ms : 0;
		if (!finished || !stall_left_ms) {
			stop_phase(out, i);
			stalled = true;
			break;
		}
	}
	sh.stop = 1;
	sh.turn = UINT32_MAX;
	p->aps_wait(MIN(2000000, stall_left_ms * 1000));
	report_ap_faults(r);
	/* Every CPU on one lock, once the pairs' APs are back with the
	 * firmware (watch mode's re-check stays pairwise and short). */
	if (!plan->recheck && !stalled)
		crosscpu_all_cpus(out, r, bsp);
	else if (!plan->recheck)
		out->all.reason = "the pair phase stopped: an AP did not answer";
	if (sh.kvmclock) {
		kvmclock_unregister_this_cpu();
		out->kvmclock_tested = true;
	}
	tally_pairs(out, bsp);
}

/* Every listed CPU without a tested pair, by why: never started by the
 * platform (errors[] SMP_CPUS_NOT_STARTED names those too), left untried
 * when the budget was spent, or started but never answering. */
static void name_not_tested(struct crosscpu_result *out)
{
	bool set[XCPU_MAX];
	uint32_t never = 0, past = 0, silent = 0;
	for (uint32_t i = 0; i < out->cpu_count && i < XCPU_MAX; i++) {
		const struct xcpu_cpu *c = &out->cpu[i];
		set[i] = !c->tested;
		never += !c->tested && !c->started;
		past += !c->tested && c->started && c->past_budget;
		silent += !c->tested && c->started && !c->past_budget;
	}
	char why[96];
	struct strbuf sb;
	sb_init(&sb, why, sizeof why);
	const char *sep = "";
	if (never) {
		sb_str(&sb, "never started ");
		sb_u64(&sb, never);
		sep = ", ";
	}
	if (past) {
		sb_str(&sb, sep);
		sb_str(&sb, "past the budget ");
		sb_u64(&sb, past);
		sep = ", ";
	}
	if (silent) {
		sb_str(&sb, sep);
		sb_str(&sb, "no pair completed ");
		sb_u64(&sb, silent);
	}
	out->not_tested_count = cpu_plan_not_tested(out->not_tested, sizeof out->not_tested, set,
						    MIN(out->cpu_count, (uint32_t)XCPU_MAX), why);
}
