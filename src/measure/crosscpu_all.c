/* Every CPU on one shared lock at once, as Linux's check_tsc_warp
 * (arch/x86/kernel/tsc_sync.c) and kvm-unit-tests' kvmclock test run it:
 * holding the lock, a CPU reads its ordered TSC, compares it with the last
 * value any CPU published and publishes its own.  With every CPU on the
 * lock, AP<->AP orderings are compared too, not only BSP<->AP.  Each CPU
 * loops for a time of its own TSC (Linux: 20 ms, 2 ms between
 * hyperthreads), bounded by a round count as Linux's is.  The APs are
 * started together behind the platform's start barrier
 * (aps_start_together); the state they share is one job passed to each,
 * in pages that live until exit (an AP that does not finish may still
 * write into it). */
#include "crosscpu.h"
#include "arch_api.h"
#include "apgroup.h"
#include "facts.h"
#include "results.h"
#include "strbuf.h"

#define ALL_WINDOW_MS 20
#define ALL_MAX_ROUNDS 10000000u /* Linux's bound on the loop, beside its time */
#define ALL_ARRIVE_MS 500 /* under TCG on a loaded host 200 ms left 5 of 7 APs out */
/* A vCPU that waits this long for a lock every CPU hands on within
 * microseconds was not running: the host ran something else. */
#define COSCHED_GAP_US 1000
/* The fastest of 64 round trips, on hardware well under a microsecond. */
#define COSCHED_RTT_US 100

struct all_slot {
	uint32_t index;        /* cpu_list index */
	bool is_bsp;
	enum tsc_read read;    /* the ordered read this CPU chose in its pair */
	uint64_t rounds, max_gap;
	uint32_t done;         /* set last, atomically */
};

struct all_job;
struct all_arg {
	struct all_job *job;
	uint32_t slot;
};

struct all_job {
	volatile uint32_t lock;
	uint64_t window_cycles;
	uint64_t lock_spin_cap;  /* a lock wait's budget (two windows) in spins: facts_spin_cap */
	/* Under the lock only. */
	struct warp_state warp;
	uint64_t rounds, handoffs, ap_ap_handoffs;
	uint8_t followed[XCPU_MAX][XCPU_MAX / 8]; /* [a][b]: b read right after a */
	uint32_t n;
	struct all_slot slot[XCPU_MAX];
	struct all_arg arg[XCPU_MAX];
	struct ap_group group;
};

static uint64_t tsc_now(void) { return tb_now(); }
static void tsc_relax(void) { cpu_relax(); }

static bool lock_take(struct all_job *jb, uint64_t deadline)
{
	/* Bounded by the deadline and by the wait's budget in spins (a TSC that stopped). */
	for (uint64_t spins = 0; __atomic_exchange_n(&jb->lock, 1, __ATOMIC_ACQUIRE); spins++) {
		if (tb_now() > deadline || spins > jb->lock_spin_cap)
			return false;
		cpu_relax();
	}
	return true;
}

static void lock_drop(struct all_job *jb) { __atomic_store_n(&jb->lock, 0, __ATOMIC_RELEASE); }

static void all_loop(struct all_job *jb, uint32_t me)
{
	struct all_slot *s = &jb->slot[me];
	enum tsc_read how = s->read;
	/* This CPU's own start and end, as Linux's loop takes them: a TSC far
	 * off the others' still ends on time by its own count. */
	uint64_t start = tb_ordered(how), end = start + jb->window_cycles;
	uint64_t last = start, rounds = 0, gap = 0;
	while (rounds < ALL_MAX_ROUNDS) {
		if (!lock_take(jb, end + jb->window_cycles))
			break;
		uint64_t now = tb_ordered(how);
		bool had = jb->warp.have_last;
		uint32_t prev = jb->warp.last_cpu;
		warp_observe(&jb->warp, me, now);
		jb->rounds++;
		if (had && prev != me && prev < jb->n) {
			jb->handoffs++;
			jb->ap_ap_handoffs += !jb->slot[prev].is_bsp && !s->is_bsp;
			jb->followed[prev][me / 8] |= (uint8_t)(1u << (me % 8));
		}
		lock_drop(jb);
		rounds++;
		if (now > last && now - last > gap)
			gap = now - last;
		last = now;
		if (now > end)
			break;
		cpu_relax();
	}
	s->rounds = rounds;
	s->max_gap = gap;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

/* On each AP, released with the others (SysV convention; the platform
 * wraps it). */
static void all_member(void *arg)
{
	struct all_arg *a = arg;
	all_loop(a->job, a->slot);
}

static bool pair_seen(const struct all_job *jb, uint32_t a, uint32_t b)
{
	return (jb->followed[a][b / 8] >> (b % 8)) & 1;
}

static void note_not_coscheduled(struct crosscpu_result *out, const char *what, uint32_t cpu, uint64_t us)
{
	if (out->not_coscheduled)
		return;
	out->not_coscheduled = true;
	struct strbuf sb;
	sb_init(&sb, out->not_coscheduled_reason, sizeof out->not_coscheduled_reason);
	sb_str(&sb, what);
	sb_u64(&sb, cpu);
	sb_str(&sb, " took ");
	sb_u64(&sb, us);
	sb_str(&sb, " us: the vCPUs did not run together");
}

static void collect(struct crosscpu_result *out, const struct all_job *jb, uint64_t cycles_per_us)
{
	struct xcpu_all *a = &out->all;
	a->rounds = jb->rounds;
	a->handoffs = jb->handoffs;
	a->ap_ap_handoffs = jb->ap_ap_handoffs;
	a->warps = jb->warp.warps;
	a->same_cpu_warps = jb->warp.same_cpu_warps;
	a->stalls = jb->warp.equal;
	a->max_warp = jb->warp.max_warp;
	if (a->warps) {
		a->max_warp_cpu = jb->slot[jb->warp.max_warp_cpu].index;
		a->max_warp_from = jb->slot[jb->warp.max_warp_from].index;
	}
	a->min_cpu_rounds = UINT64_MAX;
	for (uint32_t i = 0; i < jb->n; i++) {
		const struct all_slot *s = &jb->slot[i];
		if (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
			continue;
		a->cpus++;
		a->min_cpu_rounds = MIN(a->min_cpu_rounds, s->rounds);
		if (s->max_gap > a->max_gap_cycles) {
			a->max_gap_cycles = s->max_gap;
			a->max_gap_cpu = s->index;
		}
		for (uint32_t j = i + 1; j < jb->n; j++) {
			if (!pair_seen(jb, i, j) && !pair_seen(jb, j, i))
				continue;
			a->cpu_pairs_tested++;
			a->ap_pairs_tested += !s->is_bsp && !jb->slot[j].is_bsp;
		}
	}
	if (a->min_cpu_rounds == UINT64_MAX)
		a->min_cpu_rounds = 0;
	if (cycles_per_us && a->max_gap_cycles / cycles_per_us > COSCHED_GAP_US)
		note_not_coscheduled(out, "on the shared lock, the longest wait between two rounds of CPU ",
				     a->max_gap_cpu, a->max_gap_cycles / cycles_per_us);
}

void crosscpu_all_cpus(struct crosscpu_result *out, struct run_results *r, uint32_t bsp)
{
	struct platform *p = r->facts.plat;
	struct xcpu_all *a = &out->all;
	uint64_t cycles_per_ms = facts_ms_to_cycles(&r->facts, 1), cycles_per_us = cycles_per_ms / 1000;
	uint64_t t0 = tb_now();
	/* The pairs' round trips first: a vCPU the host did not run makes the
	 * fastest of 64 far slower than any cache line moves. */
	for (uint32_t i = 0; i < out->cpu_count; i++) {
		const struct xcpu_cpu *c = &out->cpu[i];
		if (c->skew.valid && cycles_per_us && c->skew.rtt / cycles_per_us > COSCHED_RTT_US)
			note_not_coscheduled(out, "the fastest round trip with CPU ", i, c->skew.rtt / cycles_per_us);
	}
	if (!p->aps_start_together || !p->aps_finish_together || !p->alloc_pages) {
		a->reason = "this boot path cannot run code on several CPUs at once";
		return;
	}
	struct all_job *jb = p->alloc_pages(sizeof *jb);
	if (!jb) {
		a->reason = "no memory for the shared lock's state";
		return;
	}
	a->window_ms = ALL_WINDOW_MS;
	jb->window_cycles = facts_ms_to_cycles(&r->facts, ALL_WINDOW_MS);
	/* all_loop's lock waits end at its window's end plus one window: at
	 * most two windows from the loop's start. */
	jb->lock_spin_cap = facts_spin_cap(&r->facts, 2 * jb->window_cycles);
	warp_init(&jb->warp);
	ap_group_init(&jb->group, all_member, tsc_now, tsc_relax, cycles_per_ms ? cycles_per_ms : 1,
		      r->facts.spin_cycles);
	jb->slot[0] = (struct all_slot){ .index = bsp, .is_bsp = true, .read = out->cpu[bsp].read };
	jb->n = 1;
	for (uint32_t i = 0; i < out->cpu_count && jb->n < XCPU_MAX; i++) {
		/* Only APs that answered their pair: they chose their own read. */
		if (i == bsp || !out->cpu[i].tested)
			continue;
		uint32_t k = jb->n;
		jb->slot[k] = (struct all_slot){ .index = i, .read = out->cpu[i].read };
		jb->arg[k] = (struct all_arg){ jb, k };
		if (!ap_group_add(&jb->group, i, out->cpu[i].apic_id, &jb->arg[k]))
			break;
		jb->n++;
	}
	if (jb->n < 2) {
		a->reason = "no AP answered its pair: nothing to run together";
		return;
	}
	uint32_t released = p->aps_start_together(&jb->group, ALL_ARRIVE_MS, 4 * ALL_WINDOW_MS);
	str_copy(a->left_out, sizeof a->left_out, jb->group.reason);
	a->ran = true;
	bool was_on = irq_save();
	if (released)
		all_loop(jb, 0);
	irq_restore(was_on);
	if (!p->aps_finish_together(&jb->group, 4 * ALL_WINDOW_MS + ALL_ARRIVE_MS))
		str_copy(a->left_out, sizeof a->left_out, jb->group.reason);
	/* Read under the lock: an AP still inside the loop is not counted. */
	if (lock_take(jb, tb_now() + jb->window_cycles)) {
		collect(out, jb, cycles_per_us);
		lock_drop(jb);
	}
	a->elapsed_us = cycles_per_us ? (tb_now() - t0) / cycles_per_us : 0;
}
