/* Start barrier and bounded finish for a group of APs (include/apgroup.h).
 *
 * Who writes what: the BSP moves a member IDLE -> STARTING -> NOT_STARTED
 * and, at its arrival deadline, STARTING -> MISSED; the AP moves it
 * STARTING -> ARRIVED -> RUNNING -> DONE, or ARRIVED -> STRANDED when the
 * release never came.  The two contested steps (STARTING, ARRIVED) are
 * compare-and-swaps, so a member that arrives just as the BSP gives up on
 * it is either counted and released, or left out and leaves: never
 * both. */
#include "apgroup.h"
#include "spincap.h"
#include "strbuf.h"

/* Every spin is bounded by a count too, so a clock that stopped cannot
 * hold a CPU forever (the deadline alone would): the wait's own budget in
 * spins at the group's spin cost (spincap.h). */

static uint32_t load(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static bool move(uint32_t *state, uint32_t from, uint32_t to)
{
	return __atomic_compare_exchange_n(state, &from, to, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void spin_once(const struct ap_group *g)
{
	if (g->relax)
		g->relax();
}

void ap_group_init(struct ap_group *g, void (*fn)(void *arg), uint64_t (*now)(void), void (*relax)(void),
		   uint64_t ticks_per_ms, uint64_t spin_cycles)
{
	memset(g, 0, sizeof *g);
	g->fn = fn;
	g->now = now;
	g->relax = relax;
	g->ticks_per_ms = ticks_per_ms ? ticks_per_ms : 1;
	g->spin_cycles = spin_cycles;
}

struct ap_member *ap_group_add(struct ap_group *g, uint32_t cpu, uint32_t apic_id, void *arg)
{
	if (g->n >= AP_GROUP_MAX)
		return NULL;
	struct ap_member *m = &g->m[g->n++];
	memset(m, 0, sizeof *m);
	m->group = g;
	m->cpu = cpu;
	m->apic_id = apic_id;
	m->arg = arg;
	return m;
}

void ap_group_starting(struct ap_member *m)
{
	store(&m->state, AP_MEMBER_STARTING);
}

void ap_group_start_failed(struct ap_member *m)
{
	store(&m->state, AP_MEMBER_NOT_STARTED);
}

void ap_group_member_main(void *member)
{
	struct ap_member *m = member;
	struct ap_group *g = m->group;
	m->arrived_at = g->now();
	/* The BSP may have given up on us already (MISSED): then leave. */
	if (!move(&m->state, AP_MEMBER_STARTING, AP_MEMBER_ARRIVED))
		return;
	/* Capped at the spins from arrival to the member deadline. */
	uint64_t member_deadline = __atomic_load_n(&g->member_deadline, __ATOMIC_ACQUIRE);
	uint64_t cap = spin_cap(member_deadline > m->arrived_at ? member_deadline - m->arrived_at : 0, g->spin_cycles);
	for (uint64_t spins = 0; !load(&g->released); spins++) {
		if (g->now() > __atomic_load_n(&g->member_deadline, __ATOMIC_ACQUIRE) || spins > cap) {
			if (move(&m->state, AP_MEMBER_ARRIVED, AP_MEMBER_STRANDED))
				return;
			break; /* cannot happen: only this CPU moves ARRIVED */
		}
		spin_once(g);
	}
	m->started_at = g->now();
	store(&m->state, AP_MEMBER_RUNNING);
	g->fn(m->arg);
	m->done_at = g->now();
	store(&m->state, AP_MEMBER_DONE);
}

/* "CPU 3 (APIC id 3) never reached the start barrier in 200 ms" (ms 0:
 * no time in the text) and, for the others alike, " (and 2 more)"; the
 * first problem named wins. */
static void name_first(struct ap_group *g, const struct ap_member *first, uint32_t count, const char *what,
		       uint64_t ms)
{
	struct strbuf sb;
	if (!first || g->reason[0])
		return;
	sb_init(&sb, g->reason, sizeof g->reason);
	sb_str(&sb, "CPU ");
	sb_u64(&sb, first->cpu);
	sb_str(&sb, " (APIC id ");
	sb_u64(&sb, first->apic_id);
	sb_str(&sb, ") ");
	sb_str(&sb, what);
	if (ms) {
		sb_str(&sb, " in ");
		sb_u64(&sb, ms);
		sb_str(&sb, " ms");
	}
	if (count > 1) {
		sb_str(&sb, " (and ");
		sb_u64(&sb, count - 1);
		sb_str(&sb, " more)");
	}
}

void ap_group_open(struct ap_group *g, uint64_t arrive_ms)
{
	g->arrive_ms = arrive_ms;
	g->arrive_deadline = g->now() + arrive_ms * g->ticks_per_ms;
	__atomic_store_n(&g->member_deadline, g->arrive_deadline + arrive_ms * g->ticks_per_ms + g->ticks_per_ms,
			 __ATOMIC_RELEASE);
}

uint32_t ap_group_gather(struct ap_group *g)
{
	uint64_t arrive_ms = g->arrive_ms;
	g->started = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t s = load(&g->m[i].state);
		g->started += s != AP_MEMBER_NOT_STARTED && s != AP_MEMBER_IDLE;
	}
	/* Capped at the spins the whole arrival window allows. */
	uint64_t cap = spin_cap(arrive_ms * g->ticks_per_ms, g->spin_cycles);
	for (uint64_t spins = 0;; spins++) {
		uint32_t waiting = 0;
		for (uint32_t i = 0; i < g->n; i++)
			waiting += load(&g->m[i].state) == AP_MEMBER_STARTING;
		if (!waiting || g->now() > g->arrive_deadline || spins > cap)
			break;
		spin_once(g);
	}
	/* Whoever is still on its way is left out; the CAS loses to a member
	 * that arrives at this very moment, which is then counted. */
	const struct ap_member *first_missed = NULL, *first_refused = NULL;
	uint32_t missed = 0, refused = 0;
	g->arrived = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		struct ap_member *m = &g->m[i];
		if (move(&m->state, AP_MEMBER_STARTING, AP_MEMBER_MISSED)) {
			if (!missed++)
				first_missed = m;
		} else if (load(&m->state) == AP_MEMBER_NOT_STARTED) {
			if (!refused++)
				first_refused = m;
		} else if (load(&m->state) == AP_MEMBER_ARRIVED) {
			g->arrived++;
		}
	}
	g->released_at = g->now();
	store(&g->released, 1);
	name_first(g, first_missed, missed, "never reached the start barrier", arrive_ms);
	name_first(g, first_refused, refused, "could not be started by the firmware", 0);
	return g->arrived;
}

bool ap_group_finish(struct ap_group *g, uint64_t finish_ms)
{
	uint64_t deadline = g->now() + finish_ms * g->ticks_per_ms;
	uint64_t cap = spin_cap(finish_ms * g->ticks_per_ms, g->spin_cycles); /* the finish wait in spins */
	uint32_t busy = 0;
	for (uint64_t spins = 0;; spins++) {
		busy = 0;
		for (uint32_t i = 0; i < g->n; i++) {
			uint32_t s = load(&g->m[i].state);
			busy += s == AP_MEMBER_ARRIVED || s == AP_MEMBER_RUNNING;
		}
		if (!busy || g->now() > deadline || spins > cap)
			break;
		spin_once(g);
	}
	const struct ap_member *first = NULL, *first_stranded = NULL;
	uint32_t stranded = 0;
	g->finished = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t s = load(&g->m[i].state);
		if (s == AP_MEMBER_DONE)
			g->finished++;
		else if ((s == AP_MEMBER_ARRIVED || s == AP_MEMBER_RUNNING) && !first)
			first = &g->m[i];
		else if (s == AP_MEMBER_STRANDED && !stranded++)
			first_stranded = &g->m[i];
	}
	name_first(g, first, busy, "did not finish its work", finish_ms);
	name_first(g, first_stranded, stranded, "reached the barrier but saw no release", 0);
	return busy == 0 && stranded == 0;
}

const char *ap_member_state_name(uint32_t state)
{
	switch (state) {
	case AP_MEMBER_IDLE: return "not_started";
	case AP_MEMBER_STARTING: return "starting";
	case AP_MEMBER_ARRIVED: return "unfinished";
	case AP_MEMBER_RUNNING: return "unfinished";
	case AP_MEMBER_DONE: return "done";
	case AP_MEMBER_NOT_STARTED: return "not_started";
	case AP_MEMBER_MISSED: return "missed_start";
	case AP_MEMBER_STRANDED: return "stranded";
	}
	return "unknown";
}
