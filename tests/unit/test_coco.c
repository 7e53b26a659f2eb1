/* Confidential-VM detection (src/decode/coco.c).  The CPUID halves come
 * from the project's real TCG recordings (no memory encryption there) and
 * from sets CONSTRUCTED here from the documentation: no SEV or TDX
 * hardware is available to record on.  Constructed values follow the
 * documented bit positions (AMD APM vol. 2 15.34, Linux msr-index.h
 * MSR_AMD64_SEV_*, Linux tdx.c TDX_IDENT) and, for the host-side leaf, a
 * published `snphost ok` run on an EPYC Milan (C-bit 51, 4 VMPLs, physical
 * address reduction 6). */
#include "check.h"
#include "coco.h"
#include "cpuid.h"
#include "fault.h"
#include <stdlib.h>

#define FIX "tests/fixtures/cpuid/"

static struct cpuid_record recs[CPUID_RECORD_MAX];
static struct coco_raw raw;
static struct coco_info info;

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

static void read_cpuid(struct cpuid_recording *rec)
{
	struct cpu_info cpu;

	cpuid_decode(&cpu, cpuid_replay, rec);
	coco_read_cpuid(&raw, &cpu, cpuid_replay, rec);
}

/* ---- real recordings: nothing confidential ---- */

TEST(tcg_epyc_has_no_memory_encryption_leaf)
{
	struct cpuid_recording rec = load(FIX "tcg-system-epyc.txt");

	read_cpuid(&rec);
	CHECK(raw.vendor_amd);
	CHECK_EQ_U64(raw.max_ext, 0x8000001e);
	CHECK(!coco_may_read_sev_status(&raw));
	coco_decode(&info, &raw);
	CHECK(!info.amd_leaf);
	CHECK_STR(info.sev_status_state, "not_read");
	CHECK_STR(info.sev_status_reason, "CPUID 0x8000001F (memory encryption) is out of range");
	CHECK(!info.tdx_leaf);
	CHECK_STR(info.kind, "none");
	CHECK(!info.memory_encrypted && !info.exceptions_virtualized && !info.tsc_trusted);
	const char *limits[4];
	CHECK_EQ_U64(coco_limits(&info, true, limits, 4), 0);
}

TEST(tcg_skylake_is_not_amd_and_has_no_tdx_leaf)
{
	struct cpuid_recording rec = load(FIX "tcg-system-skylake-server.txt");

	read_cpuid(&rec);
	CHECK(!raw.vendor_amd);
	CHECK_EQ_U64(raw.max_basic, 0xd);
	coco_decode(&info, &raw);
	CHECK_STR(info.sev_status_reason, "not an AMD or Hygon CPU: no SEV status MSR");
	CHECK(!info.tdx_leaf);
	CHECK(!info.tdx);
	CHECK_STR(info.kind, "none");
}

/* ---- constructed sets ---- */

static struct cpuid_recording constructed(const struct cpuid_record *r, size_t n)
{
	struct cpuid_recording rec = { r, n, CPUID_UNRECORDED_ZERO };
	return rec;
}

#define AMD_VENDOR 0x68747541, 0x444d4163, 0x69746e65 /* "AuthenticAMD" in EBX, ECX, EDX */

/* An SEV-SNP guest: the CPUID table the firmware validated offers SEV,
 * SEV-ES and SNP (EAX bits 1, 3, 4 = 0x1a) with the C-bit at 51. */
static const struct cpuid_record snp_guest[] = {
	{ 0x0, 0, 0x10, AMD_VENDOR },
	{ 0x1, 0, 0x00a00f11, 0x00000800, 0x80000000, 0x178bfbff },
	{ 0x80000000, 0, 0x80000021, AMD_VENDOR },
	{ 0x8000001f, 0, 0x0000001a, 0x00000033, 0, 0 },
};

TEST(snp_guest_with_secure_tsc)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));

	read_cpuid(&rec);
	CHECK(coco_may_read_sev_status(&raw));
	raw.sev_status_read = true;
	/* SEV | SEV-ES | SNP | SecureTSC (bits 0, 1, 2, 11). */
	raw.sev_status = 0x807;
	raw.guest_tsc_freq_read = true;
	/* 2,400 MHz in bits 17:0, reserved bits above set to prove the mask. */
	raw.guest_tsc_freq = (0xabcull << 18) | 2400;
	coco_decode(&info, &raw);
	CHECK(info.cpuid_sev && info.cpuid_sev_es && info.cpuid_sev_snp && !info.cpuid_sme);
	CHECK_EQ_U64(info.c_bit, 51);
	CHECK_STR(info.sev_status_state, "read");
	CHECK_STR(info.sev_status_reason, "");
	CHECK(info.sev && info.sev_es && info.snp && info.secure_tsc);
	CHECK(info.guest_tsc_freq_read);
	CHECK_EQ_U64(info.guest_tsc_freq_mhz, 2400);
	CHECK_EQ_U64(info.guest_tsc_freq_hz, 2400000000ull);
	CHECK_STR(info.kind, "sev-snp");
	CHECK(info.memory_encrypted && info.exceptions_virtualized && info.tsc_trusted);
	const char *limits[4];
	CHECK_EQ_U64(coco_limits(&info, true, limits, 4), 3);
	CHECK(strstr(limits[1], "#VC/#VE") != NULL);
	CHECK_EQ_U64(coco_limits(&info, false, limits, 4), 3);
	CHECK(strstr(limits[1], "direct-boot build has no #VC/#VE handler") != NULL);
	CHECK_EQ_U64(coco_limits(&info, true, limits, 1), 1);
}

TEST(snp_guest_without_secure_tsc)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));

	read_cpuid(&rec);
	raw.sev_status_read = true;
	raw.sev_status = 0x7;
	coco_decode(&info, &raw);
	CHECK(info.snp && !info.secure_tsc);
	CHECK(!info.guest_tsc_freq_read);
	CHECK_STR(info.guest_tsc_freq_reason, "Secure TSC is off (SEV_STATUS bit 11): GUEST_TSC_FREQ is not read");
	CHECK(!info.tsc_trusted);
	CHECK_STR(info.kind, "sev-snp");
}

/* Bit 11 without SNP (bit 2) means nothing: Secure TSC is an SNP feature. */
TEST(secure_tsc_bit_needs_snp)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));

	read_cpuid(&rec);
	raw.sev_status_read = true;
	raw.sev_status = 0x803;
	coco_decode(&info, &raw);
	CHECK_STR(info.kind, "sev-es");
	CHECK(!info.secure_tsc);
	raw.sev_status = 0x1;
	coco_decode(&info, &raw);
	CHECK_STR(info.kind, "sev");
	CHECK(info.memory_encrypted && !info.exceptions_virtualized);
	const char *limits[4];
	CHECK_EQ_U64(coco_limits(&info, true, limits, 4), 1);
}

TEST(sev_status_read_faulted)
{
	struct cpuid_recording rec = constructed(snp_guest, ARRAY_SIZE(snp_guest));

	read_cpuid(&rec);
	raw.sev_status_read = true;
	raw.sev_status_fault = FAULT_GP;
	coco_decode(&info, &raw);
	CHECK_STR(info.sev_status_state, "fault");
	CHECK(strstr(info.sev_status_reason, "RDMSR 0xC0010131 (SEV_STATUS) raised #GP") != NULL);
	CHECK_STR(info.kind, "none");
	raw.sev_status_fault = 0;
	raw.sev_status = 0x807;
	raw.guest_tsc_freq_read = true;
	raw.guest_tsc_freq_fault = FAULT_GP;
	coco_decode(&info, &raw);
	CHECK(info.secure_tsc && !info.guest_tsc_freq_read);
	CHECK(strstr(info.guest_tsc_freq_reason, "GUEST_TSC_FREQ") != NULL);
}

/* An SEV-capable host (bare metal EPYC Milan): CPUID offers SME, SEV,
 * PageFlush, SEV-ES, SNP, VMPL (EAX 0x3f), the status MSR reads 0. */
static const struct cpuid_record milan_host[] = {
	{ 0x0, 0, 0x10, AMD_VENDOR },
	{ 0x1, 0, 0x00a00f11, 0x00800800, 0x7ef8320b, 0x178bfbff },
	{ 0x80000000, 0, 0x80000023, AMD_VENDOR },
	{ 0x8000001f, 0, 0x0000003f, 0x000041b3, 1006, 100 },
};

TEST(sev_capable_host_is_not_a_guest)
{
	struct cpuid_recording rec = constructed(milan_host, ARRAY_SIZE(milan_host));

	read_cpuid(&rec);
	CHECK(coco_may_read_sev_status(&raw));
	raw.sev_status_read = true;
	raw.sev_status = 0;
	coco_decode(&info, &raw);
	CHECK(info.cpuid_sme && info.cpuid_sev && info.cpuid_sev_snp);
	CHECK_EQ_U64(info.c_bit, 51);
	CHECK_STR(info.kind, "none");
	CHECK(!info.memory_encrypted);
}

/* CPUID says no SEV (EAX[1] clear, SME only): the MSR is not touched. */
TEST(sme_only_does_not_read_the_msr)
{
	struct cpuid_record r[ARRAY_SIZE(milan_host)];

	memcpy(r, milan_host, sizeof r);
	r[3].eax = 0x1;
	struct cpuid_recording rec = constructed(r, ARRAY_SIZE(r));
	read_cpuid(&rec);
	CHECK(!coco_may_read_sev_status(&raw));
	coco_decode(&info, &raw);
	CHECK_STR(info.sev_status_reason,
		  "CPUID 0x8000001F EAX[1] (SEV) is clear: the SEV status MSR is not read");
}

#define INTEL_VENDOR 0x756e6547, 0x6c65746e, 0x49656e69 /* "GenuineIntel" */

/* A TDX guest: max basic leaf 0x23, leaf 0x21 EBX/EDX/ECX "IntelTDX    ". */
static const struct cpuid_record tdx_guest[] = {
	{ 0x0, 0, 0x23, INTEL_VENDOR },
	{ 0x1, 0, 0x000806f8, 0x00000800, 0xfefa3203, 0x178bfbff },
	{ 0x21, 0, 0, 0x65746e49, 0x20202020, 0x5844546c },
	{ 0x80000000, 0, 0x80000008, 0, 0, 0 },
};

TEST(tdx_guest_signature)
{
	struct cpuid_recording rec = constructed(tdx_guest, ARRAY_SIZE(tdx_guest));

	read_cpuid(&rec);
	coco_decode(&info, &raw);
	CHECK(info.tdx_leaf);
	CHECK(info.tdx);
	CHECK_STR(info.tdx_signature, "IntelTDX    ");
	CHECK_STR(info.kind, "tdx");
	CHECK(info.memory_encrypted && info.exceptions_virtualized && info.tsc_trusted);
	CHECK(!info.amd_leaf);
}

/* Leaf 0x21 beyond the basic range is never asked: a clamping CPU would
 * answer another leaf there. */
TEST(tdx_leaf_out_of_range_is_not_asked)
{
	struct cpuid_record r[ARRAY_SIZE(tdx_guest)];

	memcpy(r, tdx_guest, sizeof r);
	r[0].eax = 0x20;
	struct cpuid_recording rec = constructed(r, ARRAY_SIZE(r));
	read_cpuid(&rec);
	coco_decode(&info, &raw);
	CHECK(!info.tdx_leaf);
	CHECK(!info.tdx);
	CHECK_STR(info.tdx_signature, "");
	/* In range but another signature. */
	r[0].eax = 0x23;
	r[2].ebx = 0x41414141;
	rec = constructed(r, ARRAY_SIZE(r));
	read_cpuid(&rec);
	coco_decode(&info, &raw);
	CHECK(info.tdx_leaf && !info.tdx);
	CHECK_STR(info.tdx_signature, "AAAAlTDX    ");
}

TEST(sev_status_bit_names)
{
	CHECK_STR(coco_sev_status_bit_name(0), "SEV");
	CHECK_STR(coco_sev_status_bit_name(2), "SEV-SNP");
	CHECK_STR(coco_sev_status_bit_name(11), "SecureTSC");
	CHECK(coco_sev_status_bit_name(13) == NULL);
	CHECK(coco_sev_status_bit_name(40) == NULL);
}
