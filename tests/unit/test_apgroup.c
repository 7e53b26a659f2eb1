/* The AP group's start barrier and bounded finish (src/lib/apgroup.c),
 * with host threads standing in for APs and CLOCK_MONOTONIC for the TSC:
 * nobody starts before the release, a member that never arrives is left
 * out and named (and does no work when it turns up late), a refused start
 * and unfinished work are named, and a member whose release never comes
 * leaves on its own deadline. */
#include "check.h"
#include "apgroup.h"
#include "spincap.h"
#include <pthread.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

#define NS_PER_MS 1000000u

struct work {
	uint32_t ran;
	uint64_t started_at[8];
	volatile uint32_t hold; /* work spins while set */
};

static struct work w;

static void count_work(void *arg)
{
	uint32_t idx = (uint32_t)(uintptr_t)arg;
	w.started_at[idx] = now_ns();
	__atomic_add_fetch(&w.ran, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&w.hold, __ATOMIC_ACQUIRE))
		sleep_ms(1);
}

static void *ap_thread(void *member)
{
	ap_group_member_main(member);
	return NULL;
}

/* The platform's start: open, then each member handed over (a thread),
 * some possibly not at all (skip) or refused (refuse). */
static void start(struct ap_group *g, pthread_t *t, uint64_t arrive_ms, int skip, int refuse)
{
	ap_group_open(g, arrive_ms);
	for (uint32_t i = 0; i < g->n; i++) {
		ap_group_starting(&g->m[i]);
		if ((int)i == refuse) {
			ap_group_start_failed(&g->m[i]);
			continue;
		}
		if ((int)i != skip)
			pthread_create(&t[i], NULL, ap_thread, &g->m[i]);
	}
}

static struct ap_group g;

static void setup(uint32_t n)
{
	memset(&w, 0, sizeof w);
	ap_group_init(&g, count_work, now_ns, NULL, NS_PER_MS, 0);
	for (uint32_t i = 0; i < n; i++)
		CHECK(ap_group_add(&g, i + 1, 10 + i, (void *)(uintptr_t)i) != NULL);
}

TEST(all_arrive_and_none_starts_before_the_release)
{
	pthread_t t[4];
	setup(4);
	start(&g, t, 20000, -1, -1);
	CHECK_EQ_U64(ap_group_gather(&g), 4);
	CHECK(ap_group_finish(&g, 20000));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(w.ran, 4);
	CHECK_EQ_U64(g.finished, 4);
	CHECK_STR(g.reason, "");
	for (int i = 0; i < 4; i++) {
		CHECK(w.started_at[i] >= g.released_at);
		CHECK(g.m[i].arrived_at <= g.released_at);
		CHECK_STR(ap_member_state_name(ap_member_state(&g.m[i])), "done");
	}
}

TEST(a_member_that_never_arrives_is_named_and_a_late_one_does_no_work)
{
	pthread_t t[3];
	setup(3);
	uint64_t t0 = now_ns();
	/* 1 s: the two that do arrive must make it even on a loaded host. */
	start(&g, t, 1000, 1, -1);
	CHECK_EQ_U64(ap_group_gather(&g), 2);
	/* The whole arrival wait was spent on it, no more than a few times that. */
	CHECK(now_ns() - t0 >= 1000 * NS_PER_MS);
	CHECK(now_ns() - t0 < 10000 * NS_PER_MS);
	CHECK_STR(g.reason, "CPU 2 (APIC id 11) never reached the start barrier in 1000 ms");
	CHECK(ap_group_finish(&g, 20000));
	CHECK_EQ_U64(w.ran, 2);
	/* Now it turns up: it must leave without working. */
	pthread_create(&t[1], NULL, ap_thread, &g.m[1]);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(w.ran, 2);
	CHECK_STR(ap_member_state_name(ap_member_state(&g.m[1])), "missed_start");
	CHECK_EQ_U64(g.started, 3);
}

TEST(a_refused_start_is_named_without_waiting)
{
	pthread_t t[3];
	setup(3);
	uint64_t t0 = now_ns();
	start(&g, t, 5000, -1, 2);
	CHECK_EQ_U64(ap_group_gather(&g), 2);
	CHECK(now_ns() - t0 < 4000 * NS_PER_MS); /* nothing left to wait for */
	CHECK(ap_group_finish(&g, 20000));
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	CHECK_STR(g.reason, "CPU 3 (APIC id 12) could not be started by the firmware");
	CHECK_EQ_U64(g.started, 2);
	CHECK_STR(ap_member_state_name(ap_member_state(&g.m[2])), "not_started");
}

TEST(unfinished_work_is_named_and_the_wait_is_bounded)
{
	pthread_t t[2];
	setup(2);
	w.hold = 1;
	start(&g, t, 20000, -1, -1);
	CHECK_EQ_U64(ap_group_gather(&g), 2);
	uint64_t t0 = now_ns();
	CHECK(!ap_group_finish(&g, 20));
	CHECK(now_ns() - t0 >= 20 * NS_PER_MS);
	CHECK(str_starts_with(g.reason, "CPU 1 (APIC id 10) did not finish its work in 20 ms (and 1 more)"));
	CHECK_STR(ap_member_state_name(ap_member_state(&g.m[0])), "unfinished");
	__atomic_store_n(&w.hold, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(w.ran, 2);
}

TEST(a_member_whose_release_never_comes_leaves_on_its_own_deadline)
{
	pthread_t t[1];
	setup(1);
	start(&g, t, 10, -1, -1);
	/* No gather: the BSP went away.  The member waits 2 x 10 ms + 1 ms. */
	pthread_join(t[0], NULL);
	CHECK_EQ_U64(w.ran, 0);
	CHECK_STR(ap_member_state_name(ap_member_state(&g.m[0])), "stranded");
	ap_group_gather(&g);
	CHECK(!ap_group_finish(&g, 10));
	CHECK_STR(g.reason, "CPU 1 (APIC id 10) reached the barrier but saw no release");
}

TEST(the_group_has_a_cap)
{
	ap_group_init(&g, count_work, now_ns, NULL, NS_PER_MS, 0);
	for (uint32_t i = 0; i < AP_GROUP_MAX; i++)
		CHECK(ap_group_add(&g, i, i, NULL) != NULL);
	CHECK(ap_group_add(&g, 999, 999, NULL) == NULL);
	CHECK_EQ_U64(g.n, AP_GROUP_MAX);
}

/* A clock that stopped: the deadlines never come, and the iteration caps
 * (the wait's budget over the group's spin cost, spincap.h) end the
 * waits.  At 1 ms a spin a 1000 ms arrival wait allows 4000 spins. */
static uint64_t frozen_calls;
static uint64_t frozen_now(void)
{
	__atomic_add_fetch(&frozen_calls, 1, __ATOMIC_RELAXED);
	return 5;
}

TEST(a_stopped_clock_ends_each_wait_by_its_spin_cap)
{
	memset(&w, 0, sizeof w);
	ap_group_init(&g, count_work, frozen_now, NULL, NS_PER_MS, NS_PER_MS);
	CHECK(ap_group_add(&g, 1, 10, (void *)(uintptr_t)0) != NULL);
	ap_group_open(&g, 1000);
	ap_group_starting(&g.m[0]); /* never arrives */
	frozen_calls = 0;
	CHECK_EQ_U64(ap_group_gather(&g), 0);
	/* One now() a spin, spins 0 .. 4001 (the loop leaves at spins >
	 * cap, cap 4000), and one for released_at. */
	CHECK_EQ_U64(frozen_calls, (4000 + 2) + 1);
	CHECK_STR(g.reason, "CPU 1 (APIC id 10) never reached the start barrier in 1000 ms");
	/* A member working past a stopped clock: the finish wait ends too. */
	w.hold = 1;
	CHECK_EQ_U64(g.m[0].state, AP_MEMBER_MISSED);
	g.m[0].state = AP_MEMBER_RUNNING;
	frozen_calls = 0;
	CHECK(!ap_group_finish(&g, 10));
	/* 10 ms at 1 ms a spin is 10 x 4 = 40 spins, under the floor of
	 * 1000: the deadline's now(), then spins 0 .. 1001. */
	CHECK_EQ_U64(frozen_calls, 1 + (SPIN_CAP_FLOOR + 2));
	w.hold = 0;
}
