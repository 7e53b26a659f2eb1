/* The arm64 verdict (src/verdict/arm64.c): which clocksource an arm64
 * Linux guest uses, whether its vDSO survives, and what a clock_gettime()
 * costs it, for every release the x86 verdict judges (kernels.c), from
 * the arm64 facts alone (include/arm64.h).  The rules, their commits and
 * first releases: docs/verdict-rules.md, "arm64". */
#ifndef CP_VERDICT_ARM64_H
#define CP_VERDICT_ARM64_H
#include <stdbool.h>
#include <stdint.h>
#include "json.h"
#include "verdict.h"

/* Tri-states are verdict.h's (VERDICT_UNKNOWN, _NO, _YES). */
struct verdict_arm64_input {
	/* enum arm64_erratum bits the machine matches, decoded by
	 * src/decode/arm64_cpu.c (every CPU's MIDR, the DT's timer node, the
	 * GTDT's OEM ids): the verdict reads decoded facts only, as the x86
	 * one reads CPUID's. */
	uint32_t errata;
	enum verdict_tri ecv;			/* FEAT_ECV (ID_AA64MMFR0_EL1.ECV >= 1) */
	uint64_t cntfrq_hz;		/* CNTFRQ_EL0, CPU 0 */
	uint64_t dt_clock_frequency;	/* the timer node's clock-frequency; 0 = none */
	enum verdict_tri cntvct_trapped;	/* the hypervisor traps CNTVCT_EL0 (a read costs an exit) */
	uint64_t counter_read_ps;	/* a CNTVCT_EL0 read, measured; 0 = unknown */
	bool counter_read_se_known;	/* its standard error was measured */
	uint64_t counter_read_se_ps;	/* that SE */
	uint64_t syscall_ps;		/* a clock_gettime(2) syscall, measured; 0 = unknown */
};

/* One release's outcome. */
struct verdict_arm64_outcome {
	const char *clocksource;	/* "arch_sys_counter" or "jiffies" */
	const char *vdso_clock_mode;	/* "archtimer", "archtimer_nocompat" (5.8+ names), "none" */
	bool vdso;			/* 64-bit tasks read the counter in the vDSO */
	bool compat_vdso;		/* 32-bit tasks do too (a compat vDSO exists and is on) */
	bool el0_counter_trapped;	/* Linux traps EL0 CNTVCT_EL0 reads and emulates them */
	const char *vdso_counter;	/* "cntvct_el0" or "cntvctss_el0"; NULL without vDSO */
	const char *clock_gettime;	/* "vdso" (counter read in user space), "vdso_trapped"
					 * (each read exits to the hypervisor), "syscall" */
	uint32_t errata;		/* enum arm64_erratum bits this release works around */
	uint64_t read_ps;		/* the measured figure behind clock_gettime; 0 = unknown */
	bool read_se_known;		/* read_ps came with its SE (the counter's, measured) */
	uint64_t read_se_ps;
};

struct verdict_arm64_range {
	const char *from, *to;		/* to NULL: the newest and later */
	struct verdict_arm64_outcome o;
};

struct verdict_arm64 {
	char linux_kernel[8];
	struct verdict_arm64_outcome main;
	uint32_t errata_matched;	/* everything the facts match, whatever the release */
	uint32_t range_count;
	struct verdict_arm64_range by_kernel[48];
	uint32_t reasoning_count;
	char reasoning[16][200];
};

/* Judges every release; linux_kernel (KV(x,y)) is the main one. */
void verdict_arm64_decide(const struct verdict_arm64_input *in, unsigned linux_kernel,
			  struct verdict_arm64 *out);
/* The code verdict.arm64 names an erratum bit with ("arm_858921"). */
const char *verdict_arm64_erratum_code(unsigned bit_index);
/* One release alone (kv = KV(major, minor)). */
void verdict_arm64_judge(const struct verdict_arm64_input *in, unsigned kv, struct verdict_arm64_outcome *out);
/* The "arm64" object of verdict (docs/report-schema.json, verdict.arm64). */
void verdict_arm64_json(struct json *j, const struct verdict_arm64 *v);
#endif
