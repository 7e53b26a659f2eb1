/* The verdict over kernel sets (issue 29): every release judged as the
 * main kernel is, so by_kernel carries each range's warnings, confidence
 * and read cost; kernels=lts|all|LIST; no reasoning text ever cut. */
#include <stdio.h>
#include "check.h"
#include "verdict_inputs_fixture.h"
#include "verdict.h"
#include "settings.h"

static const struct verdict_kernel_range *range_of(const struct verdict *v, const char *rel)
{
	for (uint32_t i = 0; i < v->by_kernel_count; i++)
		for (unsigned j = v->by_kernel[i].first; j <= v->by_kernel[i].last; j++)
			if (!strcmp(verdict_release_name(j), rel))
				return &v->by_kernel[i];
	return NULL;
}

static bool range_warns(const struct verdict_kernel_range *r, const char *code, enum verdict_severity sev)
{
	for (uint32_t i = 0; r && i < r->warning_count; i++)
		if (!strcmp(r->warning_codes[i], code) && r->warning_severity[i] == sev)
			return true;
	return false;
}

static struct verdict v, one;

/* The case the project exists for: 6.1 falls to acpi_pm without an HPET,
 * 6.12+ keep tsc; the gate must see 6.1's ACPI_PM_FALLBACK. */
TEST(hpet_off_ranges_carry_the_fallback)
{
	static struct verdict_input in;
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	verdict_decide(&v, &in);
	CHECK_STR(v.linux_kernel, "6.18");
	CHECK_STR(v.linux_clocksource, "tsc");
	CHECK(verdict_find_warning(&v, "ACPI_PM_FALLBACK") == NULL);
	const struct verdict_kernel_range *r61 = range_of(&v, "6.1");
	CHECK(r61 != NULL);
	CHECK_STR(r61->from, "4.19");
	CHECK_STR(r61->to, "6.11");
	CHECK_STR(r61->linux_clocksource, "acpi_pm");
	CHECK(range_warns(r61, "ACPI_PM_FALLBACK", VERDICT_CRITICAL));
	CHECK(r61->read_cost_measured);
	/* acpi_pm's read plus the syscall estimate */
	CHECK(r61->predicted_read_ns_milli > 150000);
	CHECK(!range_warns(range_of(&v, "6.18"), "ACPI_PM_FALLBACK", VERDICT_CRITICAL));
	CHECK_EQ_U64(v.text_cut, 0);
}

/* A range's judgment is the verdict the rules give for that kernel as the
 * main one (kernel=): the same warnings, confidence and read cost. */
TEST(each_range_is_the_verdict_for_its_kernels)
{
	static struct verdict_input in;
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	verdict_decide(&v, &in);
	for (size_t i = 0; i < verdict_release_count(); i++) {
		static struct verdict_input k;
		k = in;
		CHECK(verdict_kernel_parse(verdict_release_name(i), strlen(verdict_release_name(i)), &k.kernel));
		verdict_decide(&one, &k);
		const struct verdict_kernel_range *r = range_of(&v, verdict_release_name(i));
		CHECK(r != NULL);
		if (!r)
			continue;
		CHECK_STR(r->linux_clocksource, one.linux_clocksource);
		CHECK_EQ_U64(r->vdso, one.vdso);
		CHECK_EQ_U64(r->confidence, one.confidence);
		CHECK_EQ_U64(r->predicted_read_ns_milli, one.predicted_read_ns_milli);
		CHECK_EQ_U64(r->warning_count, one.warning_count);
		for (uint32_t w = 0; w < r->warning_count && w < one.warning_count; w++) {
			CHECK_STR(r->warning_codes[w], one.warnings[w].code);
			CHECK_EQ_U64(r->warning_severity[w], one.warnings[w].severity);
		}
	}
}

TEST(kernel_sets_parse)
{
	struct verdict_kernel_set k;
	memset(&k, 0xff, sizeof k);
	CHECK(verdict_kernel_set_parse("lts", 3, &k));
	CHECK_EQ_U64(k.kind, VERDICT_KERNELS_LTS);
	CHECK(verdict_kernel_set_parse("all", 3, &k));
	CHECK_EQ_U64(k.kind, VERDICT_KERNELS_ALL);
	CHECK(verdict_kernel_set_parse("6.12,6.1", 8, &k));
	CHECK_EQ_U64(k.kind, VERDICT_KERNELS_LIST);
	CHECK_EQ_U64(k.count, 2);
	CHECK_EQ_U64(k.list[0], 601);
	CHECK_EQ_U64(k.list[1], 612);
	CHECK(!verdict_kernel_set_parse("6.1,6.1", 7, &k));	/* twice */
	CHECK(!verdict_kernel_set_parse("6.1,", 4, &k));	/* empty word */
	CHECK(!verdict_kernel_set_parse("9.9", 3, &k));	/* unknown release */
	CHECK(!verdict_kernel_set_parse("LTS", 3, &k));
	CHECK(!verdict_kernel_set_parse("", 0, &k));
	/* lts: the maintained long-term lines and the newest release */
	struct verdict_kernel_set lts = { 0 };
	char names[256] = "";
	for (size_t i = 0; i < verdict_release_count(); i++)
		if (verdict_kernel_set_has(&lts, i)) {
			strcat(names, verdict_release_name(i));
			strcat(names, " ");
		}
	CHECK_STR(names, "5.10 5.15 6.1 6.6 6.12 6.18 7.2 ");
	CHECK(!verdict_release_maintained_longterm(0));	/* 4.19: end of life Dec 2024 */
}

/* Issue 29: VERDICT_REASON_LEN 200 cut "...[arch/x86/kernel/tsc.c
 * pit_hpet_ptimer_calibr".  Every rule's text and citation fit now, and a
 * text that cannot fit is counted, never cut silently. */
TEST(reasoning_is_never_cut_silently)
{
	CHECK(verdict_longest_rule_text() <= VERDICT_REASON_LEN);
	static struct verdict_input in;
	static char reason[1200];
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	verdict_decide(&v, &in);
	CHECK_EQ_U64(v.text_cut, 0);
	for (uint32_t i = 0; i < v.reasoning_count; i++)
		CHECK(strlen(v.reasoning[i]) + 1 < VERDICT_REASON_LEN);
	/* A harness-anomaly reason longer than any line: cut, and counted. */
	memset(reason, 'x', sizeof reason - 1);
	in.harness_anomaly = true;
	in.harness_anomaly_reason = reason;
	verdict_decide(&v, &in);
	CHECK(v.text_cut >= 1);
}

/* The headline and the kernels=6.1 set: the older kernels only. */
TEST(headline_follows_the_set)
{
	static struct verdict_input in;
	char line[512];
	CHECK(load_verdict_inputs(Q35_HPET_OFF_INPUTS, &in));
	verdict_decide(&v, &in);
	verdict_summary_line(&v, line, sizeof line);
	/* the recorded inputs carry no SE (a report older than read_se_ns):
	 * said so, the syscall apart as its range */
	CHECK(strstr(line, "Linux 7.1+: tsc 8.4 ns (SE unknown); ") == line);
	CHECK(strstr(line, "; 4.19-6.11 (Debian 12's 6.1): acpi_pm 92 ns (SE unknown) + syscall 50-300 ns "
			   "(not measured) per read - confidence low") != NULL);
	CHECK(verdict_kernel_set_parse("6.1", 3, &in.kernels));
	verdict_decide(&v, &in);
	verdict_summary_line(&v, line, sizeof line);
	CHECK(strstr(line, "Linux 4.19-6.11: acpi_pm 92 ns (SE unknown) + syscall 50-300 ns (not measured)") == line);
	CHECK(strstr(line, "confidence high") != NULL);
	CHECK(verdict_summary_fix(&v, line, sizeof line));
	CHECK(!verdict_summary_risk(&v, line, sizeof line));
}

/* kernels= in the settings: kept as given once the verdict knows it (as
 * the run wires it), refused by name otherwise; the verdict input parses
 * it into the set the headline reports on. */
TEST(kernels_setting)
{
	static struct settings s;
	settings_defaults(&s);
	s.check_kernels = verdict_kernel_set_valid;
	settings_parse(&s, "kernels=6.1,6.12");
	CHECK_STR(s.kernels, "6.1,6.12");
	CHECK_EQ_U64(s.problem_count, 0);
	settings_parse(&s, "kernels=9.9");
	CHECK_STR(s.kernels, "6.1,6.12");	/* unchanged */
	CHECK_EQ_U64(s.problem_count, 1);
	settings_defaults(&s);	/* no checker: the word is refused */
	settings_parse(&s, "kernels=lts");
	CHECK_STR(s.kernels, "");
	CHECK_EQ_U64(s.problem_count, 1);
}
