/* verdict.inputs.secure_tsc and tdx from the confidential-VM facts, and
 * what the verdict then says.  The facts arrive as discovery gets them:
 * CPUID through coco_read_cpuid() on a recording, the SEV status MSR's
 * value as RDMSR would answer it (or the fault it raised), coco_decode(),
 * then the results adapter (results_verdict_input / verdict_input_coco).
 * The CPUID recordings are the project's real TCG ones (no memory
 * encryption there) and, for an SEV-SNP and a TDX guest, the sets of
 * test_coco.c, CONSTRUCTED from the documentation (AMD APM vol. 2 15.34,
 * Linux msr-index.h, Linux tdx.c TDX_IDENT): there is no such hardware to
 * record on.  The expected verdicts are the kernel's, as
 * test_verdict_eras.c works them out (secure_tsc_is_reliable_from_6_14,
 * tdx_forces_reliable). */
#include "check.h"
#include "coco.h"
#include "cpuid.h"
#include "fault.h"
#include "hypervisor.h"
#include "results.h"
#include "settings.h"
#include <stdlib.h>

#define FIX "tests/fixtures/cpuid/"
#define Y VERDICT_YES
#define N VERDICT_NO

static struct cpuid_record recs[CPUID_RECORD_MAX];
static struct run_results run;
static struct verdict_input in;
static struct verdict v;

/* Discovery's CPUID half on a recording: identity, hypervisor leaves and
 * the confidential-VM leaves, into the run's facts. */
static void discover_from(struct cpuid_recording *rec, struct coco_raw *raw)
{
	memset(&run, 0, sizeof run);
	cpuid_decode(&run.facts.cpu, cpuid_replay, rec);
	hypervisor_decode(&run.facts.hv, &run.facts.cpu, cpuid_replay, rec);
	coco_read_cpuid(raw, &run.facts.cpu, cpuid_replay, rec);
}

static struct cpuid_recording load(const char *path)
{
	struct cpuid_recording rec;
	size_t len;
	char *text = read_fixture(path, &len);

	if (!cpuid_recording_parse(&rec, recs, CPUID_RECORD_MAX, text, len))
		check_fail(__FILE__, __LINE__, "cannot parse %s", path);
	free(text);
	return rec;
}

static struct cpuid_recording constructed(const struct cpuid_record *r, size_t n)
{
	struct cpuid_recording rec = { r, n, CPUID_UNRECORDED_ZERO };
	return rec;
}

/* The SEV status MSR as discovery reads it: only where CPUID allows. */
static void sev_status_answers(struct coco_raw *raw, int fault, uint64_t value)
{
	CHECK(coco_may_read_sev_status(raw));
	raw->sev_status_read = true;
	raw->sev_status_fault = fault;
	raw->sev_status = value;
}

static void adapt(const struct coco_raw *raw)
{
	coco_decode(&run.facts.coco, raw);
	results_verdict_input(&run, &in);
}

/* ---- real recordings: read, and nothing confidential ---- */

/* TCG's EPYC model has no leaf 0x8000001F: SEV_STATUS is never read, so
 * Secure TSC is unknown (not "no"); leaf 0x21 is beyond its basic range,
 * which Linux's cpuid_has_tdx_guest() also takes as no TDX. */
TEST(tcg_epyc_secure_tsc_unknown_tdx_no)
{
	struct cpuid_recording rec = load(FIX "tcg-system-epyc.txt");
	struct coco_raw raw;

	discover_from(&rec, &raw);
	CHECK(!coco_may_read_sev_status(&raw));
	adapt(&raw);
	CHECK_EQ_U64(in.secure_tsc, VERDICT_UNKNOWN);
	CHECK_EQ_U64(in.tdx, N);
}

TEST(tcg_skylake_secure_tsc_unknown_tdx_no)
{
	struct cpuid_recording rec = load(FIX "tcg-system-skylake-server.txt");
	struct coco_raw raw;

	discover_from(&rec, &raw);
	adapt(&raw);
	CHECK_EQ_U64(in.secure_tsc, VERDICT_UNKNOWN);
	CHECK_EQ_U64(in.tdx, N);
}

/* ---- an SEV-SNP guest (constructed CPUID, test_coco.c's) ---- */

#define AMD_VENDOR 0x68747541, 0x444d4163, 0x69746e65 /* "AuthenticAMD" */
static const struct cpuid_record snp_guest[] = {
	{ 0x0, 0, 0x10, AMD_VENDOR },
	{ 0x1, 0, 0x00a00f11, 0x00000800, 0x80000000, 0x178bfbff },
	{ 0x80000000, 0, 0x80000021, AMD_VENDOR },
	{ 0x8000001f, 0, 0x0000001a, 0x00000033, 0, 0 },
};

/* What the run measured besides: KVM with a stable kvm-clock whose rate
 * the TSC takes, the invariant bit, no TSC_ADJUST, 4 vCPUs on one
 * package, and one TSC warp seen by the cross-CPU test. */
static void kvm_guest_measured(struct verdict_input *i)
{
	i->hypervisor_bit = Y;
	i->hypervisor = "kvm";
	i->signatures[0] = "kvm";
	i->signature_count = 1;
	i->kvm_clocksource = i->kvm_clocksource2 = i->kvm_stable_bit = i->pvclock_stable = Y;
	i->freq_by = VERDICT_FREQ_PVCLOCK;
	i->tsc_known_freq = Y;
	i->tsc = Y;
	i->invariant_tsc = Y;
	i->tsc_adjust = N;
	i->acpi = Y;
	i->hw_reduced = N;
	i->logical_cpus = i->possible_cpus = i->xcpu_tested = 4;
	i->packages = 1;
	i->xcpu_warps = 1;
	i->xen_tsc_mode = -1;
	static const enum verdict_source present[] = { VERDICT_SRC_TSC, VERDICT_SRC_KVMCLOCK, VERDICT_SRC_PIT,
						       VERDICT_SRC_ACPI_PM };
	static const uint64_t cost_milli[] = { 20000, 30000, 0, 3000000 };
	for (unsigned k = 0; k < ARRAY_SIZE(present); k++) {
		i->sources[present[k]].present = Y;
		i->sources[present[k]].read_ns_milli = cost_milli[k];
		i->sources[present[k]].read_path = VERDICT_PATH_DEVICE_MODEL;
	}
	i->sources[VERDICT_SRC_HPET].present = N;
}

static const char *judged(const char *kernel)
{
	struct verdict_input i = in;
	kvm_guest_measured(&i);
	CHECK(verdict_kernel_parse(kernel, strlen(kernel), &i.kernel));
	verdict_decide(&v, &i);
	return v.linux_clocksource;
}

/* SEV | SEV-ES | SNP | SecureTSC (0x807): yes.  From 6.14 Linux forces
 * TSC_RELIABLE (sme_early_init()), so the warping TSC is kept -> tsc;
 * 6.13 cannot boot the guest (GUEST_CANNOT_BOOT). */
TEST(snp_secure_tsc_through_the_verdict)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));
	struct coco_raw raw;

	discover_from(&rec, &raw);
	sev_status_answers(&raw, FAULT_NONE, 0x807);
	adapt(&raw);
	CHECK_EQ_U64(in.secure_tsc, Y);
	CHECK_EQ_U64(in.tdx, N); /* max basic leaf 0x10 */
	/* 6.13 halts it in snp_check_features() (Secure TSC joined
	 * SNP_FEATURES_PRESENT in 6.14, 0563ee35ae2c) */
	CHECK_STR(judged("6.13"), "none");
	CHECK(!v.boots);
	CHECK_STR(judged("6.14"), "tsc");
	CHECK(v.boots);
	CHECK_EQ_U64(in.sev_snp, Y);
	CHECK_EQ_U64(in.sev_es, Y);
	bool said = false;
	for (uint32_t k = 0; k < v.reasoning_count; k++)
		said |= strstr(v.reasoning[k], "Secure TSC: Linux forces TSC_RELIABLE") != NULL;
	CHECK(said);
}

/* SNP without Secure TSC (0x7): a known no, and 6.14 keeps kvm-clock. */
TEST(snp_without_secure_tsc_is_a_known_no)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));
	struct coco_raw raw;

	discover_from(&rec, &raw);
	sev_status_answers(&raw, FAULT_NONE, 0x7);
	adapt(&raw);
	CHECK_EQ_U64(in.secure_tsc, N);
	CHECK_STR(judged("6.14"), "kvm-clock");
	/* Bit 11 without SNP (bit 2) is no Secure TSC either. */
	sev_status_answers(&raw, FAULT_NONE, 0x803);
	adapt(&raw);
	CHECK_EQ_U64(in.secure_tsc, N);
}

/* The MSR read faulted, or CPUID offers no SEV so it was never read:
 * nothing is known, and the verdict assumes no Secure TSC. */
TEST(sev_status_not_read_is_unknown)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));
	struct coco_raw raw;

	discover_from(&rec, &raw);
	sev_status_answers(&raw, FAULT_GP, 0);
	adapt(&raw);
	CHECK_STR(run.facts.coco.sev_status_state, "fault");
	CHECK_EQ_U64(in.secure_tsc, VERDICT_UNKNOWN);
	CHECK_STR(judged("6.14"), "kvm-clock");

	struct cpuid_record r[ARRAY_SIZE(snp_guest)];
	memcpy(r, snp_guest, sizeof r);
	r[3].eax = 0x1; /* SME only: EAX[1] (SEV) clear */
	rec = constructed(r, ARRAY_SIZE(r));
	discover_from(&rec, &raw);
	CHECK(!coco_may_read_sev_status(&raw));
	adapt(&raw);
	CHECK_EQ_U64(in.secure_tsc, VERDICT_UNKNOWN);
}

/* ---- a TDX guest (constructed CPUID, test_coco.c's) ---- */

#define INTEL_VENDOR 0x756e6547, 0x6c65746e, 0x49656e69 /* "GenuineIntel" */
static const struct cpuid_record tdx_guest[] = {
	{ 0x0, 0, 0x23, INTEL_VENDOR },
	{ 0x1, 0, 0x000806f8, 0x00000800, 0xfefa3203, 0x178bfbff },
	{ 0x21, 0, 0, 0x65746e49, 0x20202020, 0x5844546c },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
};

/* "IntelTDX    " in leaf 0x21: yes.  tdx_early_init() forces
 * TSC_RELIABLE from 6.6: the warping TSC is kept on 6.12; 6.1's sync
 * check turns it off -> kvm-clock. */
TEST(tdx_signature_through_the_verdict)
{
	struct cpuid_recording rec = constructed(tdx_guest, ARRAY_SIZE(tdx_guest));
	struct coco_raw raw;

	discover_from(&rec, &raw);
	CHECK(!coco_may_read_sev_status(&raw));
	adapt(&raw);
	CHECK_EQ_U64(in.tdx, Y);
	CHECK_EQ_U64(in.secure_tsc, VERDICT_UNKNOWN);
	CHECK_STR(judged("6.1"), "kvm-clock");
	CHECK_STR(judged("6.12"), "tsc");
	/* The host judge's half alone (verdict_input_cpuid, then the coco
	 * facts) gives the same two inputs. */
	struct verdict_input cpuid_only = { 0 };
	verdict_input_cpuid(&cpuid_only, &run.facts.cpu, &run.facts.hv);
	CHECK_EQ_U64(cpuid_only.tdx, VERDICT_UNKNOWN); /* the leaf is there: its signature decides */
	verdict_input_coco(&cpuid_only, &run.facts.coco);
	CHECK_EQ_U64(cpuid_only.tdx, Y);
	CHECK_EQ_U64(cpuid_only.secure_tsc, VERDICT_UNKNOWN);
}

/* Leaf 0x21 in range with another signature: a known no. */
TEST(tdx_other_signature_is_a_known_no)
{
	struct cpuid_record r[ARRAY_SIZE(tdx_guest)];
	memcpy(r, tdx_guest, sizeof r);
	r[2].ebx = 0x41414141;
	struct cpuid_recording rec = constructed(r, ARRAY_SIZE(r));
	struct coco_raw raw;

	discover_from(&rec, &raw);
	adapt(&raw);
	CHECK_EQ_U64(in.tdx, N);
	CHECK_STR(judged("6.12"), "kvm-clock");
}
