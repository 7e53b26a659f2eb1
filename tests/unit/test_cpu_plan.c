/* The cross-CPU stage's budget arithmetic and the text naming the CPUs a
 * stage did not take (src/analysis/cpu_plan.c, issue 41). */
#include "check.h"
#include "cpu_plan.h"
#include "settings.h"
#include "strbuf.h"

TEST(a_pair_fits_while_the_dearest_one_still_fits)
{
	/* Nothing done yet: the first guess decides. */
	CHECK(cpu_plan_fits(0, 20000, 0, 0, 1000));
	CHECK(!cpu_plan_fits(0, 500, 0, 0, 1000));
	/* 300 CPUs answering at ~1 s a pair (TCG) under the default 20 s:
	 * the loop the crosscpu stage runs stops after 20 pairs, never past
	 * the budget. */
	uint64_t spent = 0, dearest = 0;
	uint32_t done = 0;
	while (done < 299 && cpu_plan_fits(spent, cpu_plan_xcpu_budget_ms(MODE_DEFAULT), done, dearest, 1000)) {
		uint64_t cost = 950 + (done % 3) * 25; /* 950-1000 ms */
		spent += cost;
		dearest = cost > dearest ? cost : dearest;
		done++;
	}
	CHECK(spent <= 20000);
	CHECK_EQ_U64(done, 20);
	/* On hardware (5 ms a pair) the default takes 4,000 of 4,095 APs,
	 * thorough all of them. */
	for (int mode = MODE_DEFAULT; mode <= MODE_THOROUGH; mode++) {
		spent = dearest = 0;
		done = 0;
		while (done < 4095 && cpu_plan_fits(spent, cpu_plan_xcpu_budget_ms(mode), done, dearest, 1000)) {
			spent += 5;
			dearest = 5;
			done++;
		}
		CHECK_EQ_U64(done, mode == MODE_DEFAULT ? 4000 : 4095);
	}
	/* Spent past the budget (a straggler's wait): nothing more, no wrap. */
	CHECK(!cpu_plan_fits(20001, 20000, 3, 1, 1));
	CHECK(!cpu_plan_fits(0, 20000, 1, UINT64_MAX, 1));
	CHECK(cpu_plan_xcpu_budget_ms(MODE_QUICK) < cpu_plan_xcpu_budget_ms(MODE_DEFAULT));
	CHECK(cpu_plan_xcpu_budget_ms(MODE_DEFAULT) < cpu_plan_xcpu_budget_ms(MODE_THOROUGH));
}

TEST(untested_cpus_named_as_ranges)
{
	static bool set[4096];
	char buf[160];
	memset(set, 0, sizeof set);
	CHECK_EQ_U64(cpu_plan_not_tested(buf, sizeof buf, set, 300, "the stage holds 64"), 0);
	CHECK_STR(buf, "");
	/* The contention stage on the 300-CPU MADT: positions 0-63 taken. */
	for (int i = 64; i < 300; i++)
		set[i] = true;
	CHECK_EQ_U64(cpu_plan_past_table(buf, sizeof buf, set, 300, 64), 236);
	CHECK_STR(buf, "not tested: CPUs 64-299 (236), the stage holds 64");
	/* Scattered: singles and runs, then the ranges past 8 counted. */
	memset(set, 0, sizeof set);
	set[0] = set[3] = true;
	for (int i = 5; i <= 9; i++)
		set[i] = true;
	CHECK_EQ_U64(cpu_plan_not_tested(buf, sizeof buf, set, 10, "never answered"), 7);
	CHECK_STR(buf, "not tested: CPUs 0, 3, 5-9 (7), never answered");
	memset(set, 0, sizeof set);
	for (int i = 0; i < 4096; i += 2)
		set[i] = true;
	CHECK_EQ_U64(cpu_plan_not_tested(buf, sizeof buf, set, 4096, "budget spent"), 2048);
	CHECK_STR(buf, "not tested: CPUs 0, 2, 4, 6, 8, 10, 12, 14, ... (2040 more) (2048), budget spent");
	memset(set, 0, sizeof set);
	set[4095] = true;
	CHECK_EQ_U64(cpu_plan_not_tested(buf, sizeof buf, set, 4096, "x"), 1);
	CHECK_STR(buf, "not tested: CPU 4095 (1), x");
	/* A buffer too small is cut, never overrun (ASan watches). */
	char tiny[12];
	for (int i = 0; i < 4096; i++)
		set[i] = true;
	CHECK_EQ_U64(cpu_plan_not_tested(tiny, sizeof tiny, set, 4096, "x"), 4096);
	CHECK(strlen(tiny) < sizeof tiny);
}
