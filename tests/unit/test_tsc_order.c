/* Which ordered TSC read each CPU proves (src/arch/x86/tsc_order.c), and
 * proof that the timing code uses it for every single stamp: the step
 * detector, the frequency window's brackets and (after the warp test's
 * rewrite) the warp test and skew exchanges are compiled here with
 * -DCP_ARCH_HOOKS, so each instruction wrapper counts what the probe would
 * have executed (tests/unit/arch_hooks.h).  CPUID comes from recordings. */
#include "check.h"
#include "x86.h"
#include "cpuid.h"
#include "fault.h"
#include "freq.h"
#include "measure.h"
#include "results.h"
#include <stdlib.h>
#include <time.h>

/* ---- the hooks ---- */

uint64_t hook_counts[HOOK_KIND_COUNT];
static struct cpuid_record recs[CPUID_RECORD_MAX];
static struct cpuid_recording rec;
static bool mask_rdtscp;

void hooks_reset(void) { memset(hook_counts, 0, sizeof hook_counts); }

uint64_t hook_tsc(enum hook_kind k)
{
	__atomic_add_fetch(&hook_counts[k], 1, __ATOMIC_RELAXED);
	return __builtin_ia32_rdtsc();
}

void hook_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	cpuid_replay(&rec, leaf, subleaf, r);
	if (mask_rdtscp && leaf == 0x80000001)
		r[3] &= ~(1u << 27);
}

/* DE_CFG as firmware left it on this machine: bit 1 clear. */
int rdmsr_safe(uint32_t msr, uint64_t *value)
{
	(void)msr;
	*value = 0;
	return FAULT_NONE;
}
int wrmsr_safe(uint32_t msr, uint64_t value)
{
	(void)msr;
	(void)value;
	return FAULT_NONE;
}

static void load(const char *name, struct cpu_info *cpu)
{
	char path[128];
	size_t len;
	snprintf(path, sizeof path, "tests/fixtures/cpuid/%s.txt", name);
	char *text = read_fixture(path, &len);
	if (!cpuid_recording_parse(&rec, recs, CPUID_RECORD_MAX, text, len))
		check_fail(__FILE__, __LINE__, "cannot parse %s", path);
	free(text);
	cpuid_decode(cpu, cpuid_replay, &rec);
	if (mask_rdtscp)
		cpu->rdtscp = false;
}

static uint64_t ordered_total(void)
{
	return hook_counts[HOOK_ORDERED_LFENCE] + hook_counts[HOOK_ORDERED_MFENCE] + hook_counts[HOOK_ORDERED_RDTSCP];
}

static enum hook_kind hook_of(enum tsc_read r)
{
	return r == TSC_READ_RDTSCP ? HOOK_ORDERED_RDTSCP : r == TSC_READ_MFENCE ? HOOK_ORDERED_MFENCE
										   : HOOK_ORDERED_LFENCE;
}

/* ---- the decision ---- */

/* QEMU's EPYC model under TCG: AuthenticAMD, 0x80000001 EDX[27] set
 * (RDTSCP), no 0x80000021 (max extended leaf 0x8000001f), DE_CFG 0. */
TEST(amd_without_lfence_serializing_with_rdtscp)
{
	struct cpu_info cpu;
	struct serialization s;
	mask_rdtscp = false;
	load("tcg-system-epyc", &cpu);
	CHECK(cpu.is_amd);
	CHECK(cpu.rdtscp);
	CHECK(!cpu.lfence_always_serializing);
	CHECK(serialization_needs_de_cfg(&cpu));
	serialization_decide(&s, &cpu, true, 0, 0);
	CHECK_EQ_U64(s.fence, STAMP_FENCE_MFENCE);
	CHECK_EQ_U64(s.read, TSC_READ_RDTSCP);
	CHECK_STR(tsc_read_name(s.read), "rdtscp");
	/* DE_CFG bit 1 set by firmware: LFENCE serializes, RDTSCP still wins. */
	serialization_decide(&s, &cpu, true, 0, 2);
	CHECK_EQ_U64(s.fence, STAMP_FENCE_LFENCE);
	CHECK_EQ_U64(s.read, TSC_READ_RDTSCP);
}

TEST(amd_without_lfence_serializing_or_rdtscp)
{
	struct cpu_info cpu;
	struct serialization s;
	mask_rdtscp = true;
	load("tcg-system-epyc", &cpu);
	serialization_decide(&s, &cpu, true, 0, 0);
	CHECK_EQ_U64(s.fence, STAMP_FENCE_MFENCE);
	CHECK_EQ_U64(s.read, TSC_READ_MFENCE);
	CHECK_STR(tsc_read_name(s.read), "mfence; rdtsc");
	/* The read faulted (a hypervisor without the MSR): still MFENCE. */
	serialization_decide(&s, &cpu, true, 13, 0);
	CHECK_EQ_U64(s.read, TSC_READ_MFENCE);
	CHECK(strstr(s.evidence, "faulted") != NULL);
	mask_rdtscp = false;
}

/* qemu64 under TCG is AuthenticAMD without RDTSCP; an Intel recording
 * with RDTSCP masked takes LFENCE. */
TEST(qemu64_and_intel)
{
	struct cpu_info cpu;
	struct serialization s;
	mask_rdtscp = false;
	load("tcg-system-qemu64", &cpu);
	CHECK(cpu.is_amd);
	CHECK(!cpu.rdtscp);
	serialization_decide(&s, &cpu, true, 0, 0);
	CHECK_EQ_U64(s.read, TSC_READ_MFENCE);
	mask_rdtscp = true;
	load("intel-icelake-server", &cpu);
	CHECK(cpu.is_intel);
	CHECK(!serialization_needs_de_cfg(&cpu));
	serialization_decide(&s, &cpu, false, 0, 0);
	CHECK_EQ_U64(s.fence, STAMP_FENCE_LFENCE);
	CHECK_EQ_U64(s.read, TSC_READ_LFENCE);
	mask_rdtscp = false;
}

/* ---- the timing code, counted ---- */

static uint64_t scratch[2 * 4096];
static struct batch_log batches;

static void ctx_for(struct measure_ctx *ctx, const struct serialization *s, bool rdtscp, uint32_t samples)
{
	struct measure_plan plan = {
		.samples = samples,
		.budget_cycles = 1ull << 40, /* no deadline ends anything here */
		.window_deadline_cycles = 1ull << 40,
		.scratch = scratch,
		.harness_scratch = scratch + 4096,
		.batches = &batches,
	};
	measure_ctx_init(ctx, s, rdtscp, &plan);
}

static void step_detector_uses(bool rdtscp_present)
{
	struct cpu_info cpu;
	struct serialization s;
	struct measure_ctx ctx;
	struct tsc_step step;
	mask_rdtscp = !rdtscp_present;
	load("tcg-system-epyc", &cpu);
	serialization_choose(&s, &cpu); /* through the MSR stub: DE_CFG 0 */
	ctx_for(&ctx, &s, cpu.rdtscp, 256);
	hooks_reset();
	measure_tsc_step(&step, &ctx);
	/* 256 intervals of two stamps each, then 256 back-to-back reads (the
	 * pairs between them): every one the chosen read, no other. */
	CHECK_EQ_U64(hook_counts[hook_of(s.read)], 2 * 256 + step.pairs + 1);
	CHECK_EQ_U64(ordered_total(), hook_counts[hook_of(s.read)]);
	CHECK_EQ_U64(hook_counts[HOOK_STAMP_BEGIN_LFENCE], 0);
	mask_rdtscp = false;
}

TEST(step_detector_uses_the_chosen_read_rdtscp) { step_detector_uses(true); }
TEST(step_detector_uses_the_chosen_read_mfence) { step_detector_uses(false); }

/* The harness's own stamp pairs follow the same decision: MFENCE on
 * this AMD, RDTSCP closing where it exists; no LFENCE stamp anywhere. */
TEST(harness_stamps_use_the_chosen_fence)
{
	struct cpu_info cpu;
	struct serialization s;
	struct measure_ctx ctx;
	struct baselines b;
	mask_rdtscp = false;
	load("tcg-system-epyc", &cpu);
	serialization_choose(&s, &cpu);
	ctx_for(&ctx, &s, cpu.rdtscp, 256);
	hooks_reset();
	measure_baselines(&ctx, &b);
	CHECK(hook_counts[HOOK_STAMP_BEGIN_MFENCE] > 0);
	CHECK(hook_counts[HOOK_STAMP_END_RDTSCP_MFENCE] > 0);
	CHECK_EQ_U64(hook_counts[HOOK_STAMP_BEGIN_LFENCE], 0);
	CHECK_EQ_U64(hook_counts[HOOK_STAMP_END_RDTSCP_LFENCE], 0);
	CHECK_EQ_U64(hook_counts[HOOK_ORDERED_LFENCE] + hook_counts[HOOK_ORDERED_MFENCE], 0);
	CHECK(b.rdtsc_raw.cycles.n > 0); /* the raw RDTSC measured, as rdtsc() */
}

/* ---- the frequency window's brackets ---- */

static uint64_t host_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
static uint64_t fake_hpet(void) { return host_ns() / 10; }                       /* 100 MHz */
static uint64_t fake_pm(void) { return (host_ns() * 3579545ull / 1000000000ull) & 0xffffff; }

static const struct clock_source fake_hpet_src = { .name = "hpet" };
static const struct clock_source fake_pm_src = { .name = "acpi_pm" };
static const struct clock_source fake_other = { .name = "other" };

static struct run_results run;

static void fake_run(void)
{
	memset(&run, 0, sizeof run);
	run.source_count = SOURCE_ID_COUNT;
	for (unsigned i = 0; i < SOURCE_ID_COUNT; i++) {
		run.sources[i].src = &fake_other;
		run.sources[i].status = SOURCE_ABSENT;
	}
	struct source_result *h = &run.sources[SOURCE_ID_HPET], *p = &run.sources[SOURCE_ID_ACPI_PM];
	h->src = &fake_hpet_src;
	h->status = SOURCE_OK;
	h->desc = (struct source_desc){ .read = fake_hpet, .freq_hz = 100000000, .width_bits = 64 };
	p->src = &fake_pm_src;
	p->status = SOURCE_OK;
	p->desc = (struct source_desc){ .read = fake_pm, .freq_hz = 3579545, .width_bits = 24 };
	run.facts.tsc_hz_rough = 3000000000ull;
}

TEST(frequency_brackets_use_the_chosen_read)
{
	for (int masked = 0; masked < 2; masked++) {
		struct cpu_info cpu;
		struct serialization s;
		struct measure_ctx ctx;
		mask_rdtscp = masked;
		load("tcg-system-epyc", &cpu);
		serialization_choose(&s, &cpu);
		ctx_for(&ctx, &s, cpu.rdtscp, 256);
		fake_run();
		hooks_reset();
		freq_measure(&run.freq, &run, &ctx, 5);
		CHECK(run.freq.hz[FREQ_MEASURED_HPET] > 0);
		/* Every bracket: the chosen read, two per try (freq_stamps_taken). */
		CHECK_EQ_U64(hook_counts[hook_of(s.read)], 2 * run.freq.stamp_tries);
		CHECK_EQ_U64(ordered_total(), hook_counts[hook_of(s.read)]);
	}
	mask_rdtscp = false;
}

/* ---- the warp test: every CPU on one lock (crosscpu_all.c) ---- */

#include <pthread.h>
#include "crosscpu.h"

/* A platform whose APs are host threads behind the same start barrier
 * (apgroup.c), as the PVH path drives it. */
static pthread_t ap_threads[8];
static void *ap_thread(void *m)
{
	ap_group_member_main(m);
	return NULL;
}
static uint32_t threads_start_together(struct ap_group *g, uint64_t arrive_ms, uint64_t work_ms)
{
	(void)work_ms;
	ap_group_open(g, arrive_ms);
	for (uint32_t i = 0; i < g->n; i++) {
		ap_group_starting(&g->m[i]);
		if (pthread_create(&ap_threads[i], NULL, ap_thread, &g->m[i]))
			ap_group_start_failed(&g->m[i]);
	}
	return ap_group_gather(g);
}
static bool threads_finish_together(struct ap_group *g, uint64_t finish_ms)
{
	bool all = ap_group_finish(g, finish_ms);
	for (uint32_t i = 0; i < g->n; i++)
		pthread_join(ap_threads[i], NULL);
	return all;
}
static void *pages_given;
static void *zeroed_pages(size_t bytes) { return pages_given = calloc(1, bytes); }

/* On the AMD recording without LFENCE serialization, every TSC read of the
 * all-CPU warp loop, on every CPU, is the read each CPU chose (MFENCE;
 * RDTSC, or RDTSCP where present): one at each CPU's start, one per round. */
TEST(warp_test_uses_the_chosen_read_on_every_cpu)
{
	static struct crosscpu_result out;
	static struct platform plat;
	for (int masked = 0; masked < 2; masked++) {
		struct cpu_info cpu;
		struct serialization s;
		mask_rdtscp = masked;
		load("tcg-system-epyc", &cpu);
		serialization_choose(&s, &cpu);
		CHECK(s.read != TSC_READ_LFENCE);
		memset(&run, 0, sizeof run);
		memset(&out, 0, sizeof out);
		plat = (struct platform){ .aps_start_together = threads_start_together,
					  .aps_finish_together = threads_finish_together,
					  .alloc_pages = zeroed_pages };
		run.facts.plat = &plat;
		run.facts.tsc_hz_rough = 3000000000ull;
		out.cpu_count = 4;
		for (uint32_t i = 0; i < 4; i++) {
			out.cpu[i].tested = true;
			out.cpu[i].bsp = i == 0;
			out.cpu[i].read = s.read;
		}
		hooks_reset();
		crosscpu_all_cpus(&out, &run, 0);
		CHECK(out.all.ran);
		CHECK_EQ_U64(out.all.cpus, 4);
		CHECK(out.all.rounds > 0);
		CHECK_EQ_U64(hook_counts[hook_of(s.read)], out.all.rounds + out.all.cpus);
		CHECK_EQ_U64(ordered_total(), hook_counts[hook_of(s.read)]);
		CHECK(out.all.cpu_pairs_tested <= 6);
		CHECK(out.all.ap_pairs_tested <= 3);
		free(pages_given); /* every thread joined: nothing writes into it now */
		pages_given = NULL;
	}
	mask_rdtscp = false;
}
