/* How many CPUs a measuring stage takes, and how the rest are named
 * (issue 41: a machine may list thousands; the cross-CPU pairs, the
 * contention levels and the per-CPU gap scan each hold fewer).  Pure:
 * src/analysis/cpu_plan.c, host-tested in tests/unit/test_cpu_plan.c. */
#ifndef CP_CPU_PLAN_H
#define CP_CPU_PLAN_H
#include "util.h"

struct strbuf;

/* Whether one more item (a BSP<->AP pair) fits the stage's budget: the
 * time spent so far plus the dearest item seen (first_guess before any
 * finished) must stay within budget.  Predicting from the dearest, not
 * the mean, keeps the stage inside its budget when one slow pair is
 * followed by another. */
bool cpu_plan_fits(uint64_t spent, uint64_t budget, uint32_t done, uint64_t dearest, uint64_t first_guess);

/* The stage's budget in ms by mode= (quick, default, thorough): what the
 * cross-CPU pairs may take in all before the rest are named untested. */
uint32_t cpu_plan_xcpu_budget_ms(int mode);

/* Appends the indexes i < n with set[i] true as ranges, ascending:
 * "2-299", "0, 3, 5-9".  Past max_ranges ranges it ends with ", ... (N
 * more)" so a scattered set of thousands stays a short text.  Returns
 * how many indexes were set. */
uint32_t cpu_plan_ranges(struct strbuf *sb, const bool *set, uint32_t n, uint32_t max_ranges);

/* The not-tested line of a stage: "not tested: CPUs 64-299 (236), the
 * stage holds 64" -- why follows the ranges; nothing is written and 0
 * returned when no index is set. */
uint32_t cpu_plan_not_tested(char *buf, size_t cap, const bool *set, uint32_t n, const char *why);

/* The same for a stage whose table holds `held` CPUs: why is "the stage
 * holds <held>" (contention, the per-CPU gap scan). */
uint32_t cpu_plan_past_table(char *buf, size_t cap, const bool *set, uint32_t n, uint32_t held);
#endif
