/* The arm64 verdict: Linux's arch timer decisions replayed on the arm64
 * facts (include/verdict_arm64.h).  One table of rules, each with the
 * release it first shipped in; docs/verdict-rules.md "arm64" has the
 * commits and how each release was established.
 *
 * What Linux does, every release judged (4.19+): the architected timer
 * registers one clocksource, arch_sys_counter (rating 400, the only one a
 * -machine virt guest has), unless CNTFRQ_EL0 reads 0 and no DT
 * clock-frequency stands in (arch_timer_detect_rate(): "frequency not
 * available", no arch timer: jiffies).  Its vDSO reads CNTVCT_EL0 in user
 * space; an erratum workaround with an out-of-line counter read
 * (read_cntvct_el0) sets the vDSO clock mode to none
 * (arch_timer_enable_workaround()) and traps EL0 counter reads
 * (CNTKCTL_EL1.EL0VCTEN clear, emulated in the kernel), so every
 * clock_gettime() is a syscall. */
#include "verdict_arm64.h"
#include "verdict_model.h"
#include "arm64.h"
#include "stats.h"
#include "strbuf.h"
#include "util.h"

/* First releases (docs/verdict-rules.md "arm64", one row each). */
#define KV_SUN50I_UNKNOWN1 KV(5, 2)	/* c950ca8c35ee */
#define KV_COMPAT_VDSO KV(5, 3)		/* the arm64 compat vDSO (generic vDSO series) */
#define KV_NOCOMPAT KV(5, 8)		/* c1fbec4ac0d7 + 4b661d6133c5 */
#define KV_VDSO_CNTVCTSS KV(6, 1)	/* 9025cebf12d1 */

/* Every workaround in ool_workarounds[] (FSL, HiSilicon, 858921 and
 * Allwinner) has a read_cntvct_el0: each takes the vDSO away.  1418040
 * has only disable_compat_vdso. */
#define ERRATA_OOL_READ (ARM64_ERRATUM_FSL_A008585 | ARM64_ERRATUM_HISI_161010101 | \
			 ARM64_ERRATUM_ARM_858921 | ARM64_ERRATUM_SUN50I_UNKNOWN1)

/* The errata a release knows: the others' workarounds are not in it.
 * FSL A-008585 (4.9), HiSilicon 161010101 (4.11, ACPI matching 4.12),
 * 858921 (4.14) predate 4.19, the oldest release judged. */
/* The names as include/arm64.h's bits are ordered; the decoders name them
 * the same way (arm64_erratum_code()), and test_verdict_arm64 checks the
 * two tables agree: the verdict may not call into src/decode/. */
static const char *const erratum_codes[ARM64_ERRATA_COUNT] = {
	"fsl_a008585", "hisi_161010101", "arm_858921", "sun50i_unknown1", "arm_1418040",
};
static const char *const erratum_names[ARM64_ERRATA_COUNT] = {
	"Freescale erratum A-008585", "HiSilicon erratum 161010101", "ARM erratum 858921",
	"Allwinner erratum UNKNOWN1", "ARM erratum 1418040",
};

const char *verdict_arm64_erratum_code(unsigned bit_index)
{
	return bit_index < ARM64_ERRATA_COUNT ? erratum_codes[bit_index] : NULL;
}

static uint32_t errata_known(unsigned kv)
{
	uint32_t e = ARM64_ERRATUM_FSL_A008585 | ARM64_ERRATUM_HISI_161010101 | ARM64_ERRATUM_ARM_858921 |
		     ARM64_ERRATUM_ARM_1418040;
	if (kv >= KV_SUN50I_UNKNOWN1)
		e |= ARM64_ERRATUM_SUN50I_UNKNOWN1;
	return e;
}

static uint32_t errata_matched(const struct verdict_arm64_input *in)
{
	return in->errata & ((1u << ARM64_ERRATA_COUNT) - 1);
}

void verdict_arm64_judge(const struct verdict_arm64_input *in, unsigned kv, struct verdict_arm64_outcome *o)
{
	*o = (struct verdict_arm64_outcome){0};
	o->errata = errata_matched(in) & errata_known(kv);
	if (in->cntfrq_hz == 0 && in->dt_clock_frequency == 0) {
		/* No rate: the arch timer does not register at all. */
		o->clocksource = "jiffies";
		o->vdso_clock_mode = "none";
		o->clock_gettime = "syscall";
		o->read_ps = in->syscall_ps;
		return;
	}
	o->clocksource = "arch_sys_counter";
	if (o->errata & ERRATA_OOL_READ) {
		o->vdso_clock_mode = "none";
		o->el0_counter_trapped = true;
		o->clock_gettime = "syscall";
		o->read_ps = in->syscall_ps;
		return;
	}
	o->vdso = true;
	/* 32-bit tasks: no compat vDSO before 5.3; 1418040 makes their
	 * counter reads trap, and from 5.8 the compat vDSO steps aside. */
	o->compat_vdso = kv >= KV_COMPAT_VDSO && !(kv >= KV_NOCOMPAT && (o->errata & ARM64_ERRATUM_ARM_1418040));
	o->vdso_clock_mode = kv >= KV_NOCOMPAT && (o->errata & ARM64_ERRATUM_ARM_1418040) ? "archtimer_nocompat"
											    : "archtimer";
	o->vdso_counter = kv >= KV_VDSO_CNTVCTSS && in->ecv == VERDICT_YES ? "cntvctss_el0" : "cntvct_el0";
	o->clock_gettime = in->cntvct_trapped == VERDICT_YES ? "vdso_trapped" : "vdso";
	o->read_ps = in->counter_read_ps;
	o->read_se_known = in->counter_read_ps && in->counter_read_se_known;
	o->read_se_ps = o->read_se_known ? in->counter_read_se_ps : 0;
}

static bool same(const struct verdict_arm64_outcome *a, const struct verdict_arm64_outcome *b)
{
	return a->clocksource == b->clocksource && a->vdso_clock_mode == b->vdso_clock_mode && a->vdso == b->vdso &&
	       a->compat_vdso == b->compat_vdso && a->el0_counter_trapped == b->el0_counter_trapped &&
	       a->vdso_counter == b->vdso_counter && a->clock_gettime == b->clock_gettime && a->errata == b->errata;
}

static void reason(struct verdict_arm64 *v, const char *a, const char *b, const char *c)
{
	if (v->reasoning_count >= ARRAY_SIZE(v->reasoning))
		return;
	struct strbuf sb;
	sb_init(&sb, v->reasoning[v->reasoning_count++], sizeof v->reasoning[0]);
	sb_str(&sb, a);
	if (b)
		sb_str(&sb, b);
	if (c)
		sb_str(&sb, c);
}

void verdict_arm64_decide(const struct verdict_arm64_input *in, unsigned linux_kernel, struct verdict_arm64 *v)
{
	*v = (struct verdict_arm64){0};
	const char *name = release_name(linux_kernel);
	str_copy(v->linux_kernel, sizeof v->linux_kernel, name ? name : "?");
	verdict_arm64_judge(in, linux_kernel, &v->main);
	v->errata_matched = errata_matched(in);

	for (size_t i = 0; i < verdict_release_count(); i++) {
		struct verdict_arm64_outcome o;
		verdict_arm64_judge(in, release_kv(i), &o);
		struct verdict_arm64_range *last = v->range_count ? &v->by_kernel[v->range_count - 1] : NULL;
		if (last && same(&last->o, &o)) {
			last->to = verdict_release_name(i);
			continue;
		}
		if (v->range_count >= ARRAY_SIZE(v->by_kernel))
			break;
		v->by_kernel[v->range_count++] =
			(struct verdict_arm64_range){.from = verdict_release_name(i), .to = verdict_release_name(i), .o = o};
	}
	if (v->range_count)
		v->by_kernel[v->range_count - 1].to = NULL;

	const struct verdict_arm64_outcome *m = &v->main;
	if (str_equal(m->clocksource, "jiffies"))
		reason(v, "CNTFRQ_EL0 reads 0 and no DT clock-frequency: arch_timer_detect_rate() finds no rate, ",
		       "the arch timer never registers, ", "jiffies is the clocksource [arch-timer-rate]");
	else
		reason(v, "the architected timer registers arch_sys_counter (rating 400), the only clocksource ",
		       "of a virt guest [arch-sys-counter]", NULL);
	for (unsigned b = 0; b < ARM64_ERRATA_COUNT; b++) {
		uint32_t bit = 1u << b;
		if (!(v->errata_matched & bit))
			continue;
		if (!(m->errata & bit))
			reason(v, erratum_names[b], ": matched, but not worked around by this release ",
			       "[erratum-sun50i]");
		else if (bit & ERRATA_OOL_READ)
			reason(v, erratum_names[b],
			       ": out-of-line counter read, vDSO clock mode none, EL0 CNTVCT reads trapped: ",
			       "every clock_gettime() is a syscall [erratum-vdso-none]");
		else
			reason(v, erratum_names[b], ": AArch32 counter reads trapped; 64-bit vDSO kept ",
			       "[erratum-1418040]");
	}
	if (m->vdso && str_equal(m->vdso_counter, "cntvctss_el0"))
		reason(v, "FEAT_ECV: the vDSO reads the self-synchronising CNTVCTSS_EL0 (no ISB) [vdso-cntvctss]",
		       NULL, NULL);
	if (m->vdso && in->cntvct_trapped == VERDICT_YES)
		reason(v, "the hypervisor traps CNTVCT_EL0: the vDSO stays, but each read exits [cntvct-trapped]",
		       NULL, NULL);
}

static void errata_json(struct json *j, const char *key, uint32_t errata)
{
	json_array_begin(j, key);
	for (unsigned b = 0; b < ARM64_ERRATA_COUNT; b++)
		if (errata & (1u << b))
			json_string(j, NULL, erratum_codes[b]);
	json_array_end(j);
}

static void outcome_json(struct json *j, const struct verdict_arm64_outcome *o)
{
	json_string(j, "linux_clocksource", o->clocksource);
	json_bool(j, "vdso", o->vdso);
	json_string(j, "vdso_clock_mode", o->vdso_clock_mode);
	json_bool(j, "compat_vdso", o->compat_vdso);
	json_string(j, "vdso_counter", o->vdso_counter);
	json_bool(j, "el0_counter_trapped", o->el0_counter_trapped);
	json_string(j, "clock_gettime", o->clock_gettime);
	/* With its SE, to the digits the SE supports (as every figure of
	 * the report); without one, to the picosecond it was computed to. */
	if (o->read_ps && o->read_se_known) {
		unsigned d = stats_se_decimals(o->read_se_ps);
		json_fixed(j, "clock_gettime_read_ns", stats_round_milli((int64_t)o->read_ps, d), d);
		json_fixed(j, "clock_gettime_read_se_ns", stats_round_milli((int64_t)o->read_se_ps, d), d);
	} else {
		if (o->read_ps)
			json_fixed(j, "clock_gettime_read_ns", (int64_t)o->read_ps, 3);
		else
			json_null(j, "clock_gettime_read_ns");
		json_null(j, "clock_gettime_read_se_ns");
	}
	errata_json(j, "errata_worked_around", o->errata);
}

void verdict_arm64_json(struct json *j, const struct verdict_arm64 *v)
{
	json_object_begin(j, "arm64");
	json_string(j, "linux_kernel", v->linux_kernel);
	outcome_json(j, &v->main);
	errata_json(j, "errata_matched", v->errata_matched);
	json_array_begin(j, "by_kernel");
	for (uint32_t i = 0; i < v->range_count; i++) {
		json_object_begin(j, NULL);
		json_string(j, "from", v->by_kernel[i].from);
		json_string(j, "to", v->by_kernel[i].to);
		outcome_json(j, &v->by_kernel[i].o);
		json_object_end(j);
	}
	json_array_end(j);
	json_array_begin(j, "reasoning");
	for (uint32_t i = 0; i < v->reasoning_count; i++)
		json_string(j, NULL, v->reasoning[i]);
	json_array_end(j);
	json_object_end(j);
}
