/* The arithmetic of a stage that measures CPU after CPU within a budget,
 * and the text that names the CPUs it did not take (include/cpu_plan.h). */
#include "cpu_plan.h"
#include "settings.h"
#include "strbuf.h"

bool cpu_plan_fits(uint64_t spent, uint64_t budget, uint32_t done, uint64_t dearest, uint64_t first_guess)
{
	uint64_t next = done ? dearest : first_guess;
	return spent <= budget && next <= budget - spent;
}

/* Under TCG one pair takes about a second (hostile_smp8: 7 pairs in ~8
 * s); on hardware a few ms (20,000 lock rounds and 64 round trips), so
 * the default's 20 s measures thousands of pairs on a real server and
 * about twenty on an emulator, and then names the rest. */
uint32_t cpu_plan_xcpu_budget_ms(int mode)
{
	switch (mode) {
	case MODE_QUICK: return 5000;
	case MODE_THOROUGH: return 120000;
	default: return 20000;
	}
}

uint32_t cpu_plan_ranges(struct strbuf *sb, const bool *set, uint32_t n, uint32_t max_ranges)
{
	uint32_t count = 0, ranges = 0, left_out = 0;
	for (uint32_t i = 0; i < n;) {
		if (!set[i]) {
			i++;
			continue;
		}
		uint32_t j = i;
		while (j + 1 < n && set[j + 1])
			j++;
		count += j - i + 1;
		if (ranges < max_ranges) {
			if (ranges)
				sb_str(sb, ", ");
			sb_u64(sb, i);
			if (j > i) {
				sb_char(sb, '-');
				sb_u64(sb, j);
			}
		} else {
			left_out += j - i + 1;
		}
		ranges++;
		i = j + 1;
	}
	if (left_out) {
		sb_str(sb, ", ... (");
		sb_u64(sb, left_out);
		sb_str(sb, " more)");
	}
	return count;
}

uint32_t cpu_plan_not_tested(char *buf, size_t cap, const bool *set, uint32_t n, const char *why)
{
	struct strbuf sb;
	uint32_t count = 0;
	for (uint32_t i = 0; i < n; i++)
		count += set[i];
	if (!cap)
		return count;
	buf[0] = '\0';
	if (!count)
		return 0;
	sb_init(&sb, buf, cap);
	sb_str(&sb, count == 1 ? "not tested: CPU " : "not tested: CPUs ");
	cpu_plan_ranges(&sb, set, n, 8);
	sb_str(&sb, " (");
	sb_u64(&sb, count);
	sb_str(&sb, "), ");
	sb_str(&sb, why);
	return count;
}

uint32_t cpu_plan_past_table(char *buf, size_t cap, const bool *set, uint32_t n, uint32_t held)
{
	char why[32];
	struct strbuf sb;
	sb_init(&sb, why, sizeof why);
	sb_str(&sb, "the stage holds ");
	sb_u64(&sb, held);
	return cpu_plan_not_tested(buf, cap, set, n, why);
}
