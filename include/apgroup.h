/* A group of APs started together: the bookkeeping behind the platform's
 * aps_start_together / aps_finish_together (include/platform.h).
 *
 * Each member AP, once the platform has started it, checks in at a start
 * barrier and spins there; the BSP waits (bounded) until every started
 * member has checked in, gives up on the ones that did not (each named,
 * and one that arrives later leaves at once without running the work),
 * then releases them all with one store, so the work begins on every
 * member within one cache-line transfer of the others.  Finishing is a
 * bounded wait on per-member flags in shared memory (not on the firmware,
 * whose completion events come from a ~50 ms poll under OVMF); a member
 * still inside the work at the deadline is named.
 *
 * Pure: the clock and the spin hint come in as hooks (the TSC and PAUSE on
 * the probe, a fake clock in the host tests), so every wait is bounded by
 * the clock and by a spin count. */
#ifndef CP_APGROUP_H
#define CP_APGROUP_H
#include "util.h"

/* Every CPU the platform can list (PLATFORM_MAX_CPUS); a group lives in
 * allocated memory (~56 bytes a member). */
#define AP_GROUP_MAX 4096

enum ap_member_state {
	AP_MEMBER_IDLE = 0,    /* added, not handed to the platform yet */
	AP_MEMBER_STARTING,    /* handed over, not at the barrier yet */
	AP_MEMBER_ARRIVED,     /* at the barrier, waiting for the release */
	AP_MEMBER_RUNNING,     /* released: inside the work */
	AP_MEMBER_DONE,        /* the work returned */
	AP_MEMBER_NOT_STARTED, /* the platform refused to start it */
	AP_MEMBER_MISSED,      /* not at the barrier by the deadline: left out */
	AP_MEMBER_STRANDED,    /* at the barrier, but no release came in its own time */
};

struct ap_group;

struct ap_member {
	struct ap_group *group;
	uint32_t cpu;      /* the platform's cpu_list index */
	uint32_t apic_id;
	void *arg;
	uint32_t state;    /* enum ap_member_state, atomically */
	uint64_t arrived_at, started_at, done_at; /* clock values, 0 = not yet */
};

struct ap_group {
	void (*fn)(void *arg); /* the work, SysV convention */
	uint64_t (*now)(void); /* the clock every deadline is in */
	void (*relax)(void);   /* one spin's pause; may be NULL */
	uint64_t ticks_per_ms; /* of now(); for the deadlines and the reasons */
	/* now() ticks one spin of relax() costs (facts.spin_cycles), 0 =
	 * unknown: each wait's iteration cap is its budget over it (spincap.h). */
	uint64_t spin_cycles;
	uint32_t n;
	uint64_t arrive_ms, arrive_deadline; /* ap_group_open's */
	uint32_t released;     /* 0 until the BSP lets the members go */
	/* A member waits at the barrier until this (the BSP's arrival deadline
	 * plus as much again), then leaves without working. */
	uint64_t member_deadline;
	uint64_t released_at;
	uint32_t started, arrived, finished;
	/* The first member that did not answer (start, barrier or finish) by
	 * name, and how many more; "" when all did. */
	char reason[REASON_LEN];
	struct ap_member m[AP_GROUP_MAX];
};

/* Zeroes the group for work fn, timed by now (ticks_per_ms of it); one
 * spin costs spin_cycles of now() (0 = unknown: 1 a spin). */
void ap_group_init(struct ap_group *g, void (*fn)(void *arg), uint64_t (*now)(void), void (*relax)(void),
		   uint64_t ticks_per_ms, uint64_t spin_cycles);
/* One member; NULL when the group is full. */
struct ap_member *ap_group_add(struct ap_group *g, uint32_t cpu, uint32_t apic_id, void *arg);

/* The platform's side.  Before handing any member to the firmware: the
 * barrier's deadlines, arrive_ms from now (a member that arrives early
 * must already know how long to wait). */
void ap_group_open(struct ap_group *g, uint64_t arrive_ms);
/* Before handing a member to the firmware: */
void ap_group_starting(struct ap_member *m);
/* ...and when the firmware refused it. */
void ap_group_start_failed(struct ap_member *m);
/* On the AP: what the platform runs there, with the member as argument.
 * Checks in, waits for the release, runs the work (or leaves at once when
 * the BSP gave up on it). */
void ap_group_member_main(void *member);

/* On the BSP, after every member was handed over: waits until each one
 * started is at the barrier, or until the open's arrive_ms is up for the
 * rest (left out, named in reason), then releases them.  Returns how many
 * were at the barrier. */
uint32_t ap_group_gather(struct ap_group *g);
/* Waits until every released member has finished, at most finish_ms;
 * true when all did.  A member still working is named in reason: its
 * work's memory must stay valid (it may finish later). */
bool ap_group_finish(struct ap_group *g, uint64_t finish_ms);

/* The state's word for a report: "done", "not_started", "missed_start",
 * "stranded", "unfinished", ... */
const char *ap_member_state_name(uint32_t state);
static inline uint32_t ap_member_state(const struct ap_member *m)
{
	return __atomic_load_n(&m->state, __ATOMIC_ACQUIRE);
}
#endif
