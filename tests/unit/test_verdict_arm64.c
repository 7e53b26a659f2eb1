/* The arm64 verdict (src/verdict/arm64.c): each rule at its first release
 * and the one before, the by_kernel ranges, and the JSON. */
#include "check.h"
#include "arm64.h"
#include "json.h"
#include "verdict_arm64.h"
#include <string.h>

#define KVX(a, b) ((a) * 100u + (b))

static struct verdict_arm64_input virt(void)
{
	/* QEMU virt as the guests recorded it: CNTFRQ 62.5 MHz, no ECV. */
	return (struct verdict_arm64_input){.cntfrq_hz = 62500000, .ecv = VERDICT_NO};
}

TEST(plain_virt_keeps_vdso_everywhere)
{
	struct verdict_arm64_input in = virt();
	struct verdict_arm64 v;
	verdict_arm64_decide(&in, KVX(6, 1), &v);
	CHECK(!strcmp(v.main.clocksource, "arch_sys_counter"));
	CHECK(v.main.vdso && !v.main.el0_counter_trapped);
	CHECK(!strcmp(v.main.clock_gettime, "vdso"));
	CHECK(!strcmp(v.main.vdso_counter, "cntvct_el0"));
	/* Only the compat vDSO's arrival (5.3) splits the releases. */
	CHECK_EQ_U64(v.range_count, 2);
	CHECK(!strcmp(v.by_kernel[0].from, "4.19") && !strcmp(v.by_kernel[0].to, "5.2"));
	CHECK(!v.by_kernel[0].o.compat_vdso && v.by_kernel[1].o.compat_vdso);
	CHECK(v.by_kernel[1].to == NULL);
}

TEST(a73_takes_vdso_away_in_every_release)
{
	struct verdict_arm64_input in = virt();
	in.errata = arm64_errata_from_midr(0x410fd090);
	unsigned judged = 0;
	for (unsigned kv = KVX(4, 19); kv <= KVX(7, 2); kv = kv % 100 >= 19 ? (kv / 100 + 1) * 100 : kv + 1) {
		struct verdict_arm64_outcome o;
		verdict_arm64_judge(&in, kv, &o);
		if (!o.clocksource)
			continue;
		judged++;
		CHECK(!o.vdso);
		CHECK(!strcmp(o.vdso_clock_mode, "none"));
		CHECK(o.el0_counter_trapped);
		CHECK(!strcmp(o.clock_gettime, "syscall"));
	}
	/* Every release of the table was judged: the loop checked something. */
	CHECK(judged >= 20);
}

TEST(sun50i_from_5_2)
{
	struct verdict_arm64_input in = virt();
	in.errata = arm64_errata_from_dt_property("allwinner,erratum-unknown1");
	struct verdict_arm64_outcome o;
	verdict_arm64_judge(&in, KVX(5, 1), &o);
	CHECK(o.vdso && o.errata == 0);
	verdict_arm64_judge(&in, KVX(5, 2), &o);
	CHECK(!o.vdso && o.errata == ARM64_ERRATUM_SUN50I_UNKNOWN1);
}

TEST(erratum_1418040_only_compat)
{
	struct verdict_arm64_input in = virt();
	in.errata = arm64_errata_from_midr(0x413fd0c1);
	struct verdict_arm64_outcome o;
	verdict_arm64_judge(&in, KVX(5, 2), &o);
	CHECK(o.vdso && !o.compat_vdso && !strcmp(o.vdso_clock_mode, "archtimer"));
	verdict_arm64_judge(&in, KVX(5, 7), &o);
	CHECK(o.vdso && o.compat_vdso && !strcmp(o.vdso_clock_mode, "archtimer"));
	verdict_arm64_judge(&in, KVX(5, 8), &o);
	CHECK(o.vdso && !o.compat_vdso && !strcmp(o.vdso_clock_mode, "archtimer_nocompat"));
	CHECK(!o.el0_counter_trapped && !strcmp(o.clock_gettime, "vdso"));
}

TEST(ecv_counter_from_6_1)
{
	struct verdict_arm64_input in = virt();
	in.ecv = VERDICT_YES;
	struct verdict_arm64_outcome o;
	verdict_arm64_judge(&in, KVX(6, 0), &o);
	CHECK(!strcmp(o.vdso_counter, "cntvct_el0"));
	verdict_arm64_judge(&in, KVX(6, 1), &o);
	CHECK(!strcmp(o.vdso_counter, "cntvctss_el0"));
	in.ecv = VERDICT_UNKNOWN;
	verdict_arm64_judge(&in, KVX(6, 1), &o);
	CHECK(!strcmp(o.vdso_counter, "cntvct_el0"));
}

TEST(no_rate_no_arch_timer)
{
	struct verdict_arm64_input in = virt();
	in.cntfrq_hz = 0;
	in.syscall_ps = 812345;
	struct verdict_arm64_outcome o;
	verdict_arm64_judge(&in, KVX(6, 12), &o);
	CHECK(!strcmp(o.clocksource, "jiffies") && !o.vdso && o.read_ps == 812345);
	in.dt_clock_frequency = 19200000;
	verdict_arm64_judge(&in, KVX(6, 12), &o);
	CHECK(!strcmp(o.clocksource, "arch_sys_counter") && o.vdso);
}

TEST(trapped_counter_costs_the_measured_read)
{
	struct verdict_arm64_input in = virt();
	in.cntvct_trapped = VERDICT_YES;
	in.counter_read_ps = 1500000;
	in.syscall_ps = 900000;
	struct verdict_arm64_outcome o;
	verdict_arm64_judge(&in, KVX(6, 12), &o);
	CHECK(o.vdso && !strcmp(o.clock_gettime, "vdso_trapped") && o.read_ps == 1500000);
	in.errata = ARM64_ERRATUM_ARM_858921;
	verdict_arm64_judge(&in, KVX(6, 12), &o);
	CHECK(!o.vdso && o.read_ps == 900000);
}

TEST(codes_match_decoder)
{
	for (unsigned b = 0; b < ARM64_ERRATA_COUNT; b++)
		CHECK(!strcmp(verdict_arm64_erratum_code(b), arm64_erratum_code(b)));
}

/* verdict.arm64 as the report writes it, into a static buffer. */
static const char *render(const struct verdict_arm64 *v)
{
	static char buf[32768];
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_object_begin(&j, NULL);
	verdict_arm64_json(&j, v);
	json_object_end(&j);
	CHECK(json_ok(&j));
	return buf;
}

TEST(json_shape)
{
	struct verdict_arm64_input in = virt();
	in.errata = ARM64_ERRATUM_ARM_858921;
	struct verdict_arm64 v;
	verdict_arm64_decide(&in, KVX(6, 12), &v);
	const char *buf = render(&v);
	CHECK(strstr(buf, "\"arm64\":{\"linux_kernel\":\"6.12\",\"linux_clocksource\":\"arch_sys_counter\""));
	CHECK(strstr(buf, "\"errata_matched\":[\"arm_858921\"]"));
	CHECK(strstr(buf, "\"clock_gettime_read_ns\":null"));
	CHECK(strstr(buf, "[erratum-vdso-none]"));
}

/* The verdict's figure carries the read's SE and is given to its digits,
 * as the read itself is (48.648 +- 0.011 ns to the picosecond, 48.65 +- 0.25
 * to the hundredth); a syscall
 * figure, measured without an SE, keeps 3 decimals and a null SE. */
TEST(read_figure_with_its_se)
{
	struct verdict_arm64_input in = virt();
	in.counter_read_ps = 48648;
	in.counter_read_se_known = true;
	in.counter_read_se_ps = 11;
	struct verdict_arm64 v;
	verdict_arm64_decide(&in, KVX(6, 12), &v);
	CHECK(strstr(render(&v), "\"clock_gettime_read_ns\":48.648,\"clock_gettime_read_se_ns\":0.011,"));
	in.counter_read_se_ps = 250;
	verdict_arm64_decide(&in, KVX(6, 12), &v);
	CHECK(strstr(render(&v), "\"clock_gettime_read_ns\":48.65,\"clock_gettime_read_se_ns\":0.25,"));
	in.errata = ARM64_ERRATUM_ARM_858921;
	in.syscall_ps = 812345;
	verdict_arm64_decide(&in, KVX(6, 12), &v);
	CHECK(strstr(render(&v), "\"clock_gettime_read_ns\":812.345,\"clock_gettime_read_se_ns\":null,"));
}

/* The reasoning names the self-synchronising counter when the vDSO reads
 * it (FEAT_ECV, 6.1+), and not otherwise. */
TEST(reasoning_names_cntvctss)
{
	struct verdict_arm64_input in = virt();
	in.ecv = VERDICT_YES;
	struct verdict_arm64 v;
	verdict_arm64_decide(&in, KVX(6, 12), &v);
	CHECK(strstr(render(&v), "[vdso-cntvctss]"));
	in.ecv = VERDICT_NO;
	verdict_arm64_decide(&in, KVX(6, 12), &v);
	CHECK(!strstr(render(&v), "[vdso-cntvctss]"));
}
