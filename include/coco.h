/* Confidential VMs: AMD SEV / SEV-ES / SEV-SNP (with Secure TSC) and Intel
 * TDX, as a guest can tell from inside.  The hardware side
 * (src/arch/x86/discover/coco.c) reads CPUID and, only where CPUID allows it, the
 * SEV status MSR through the fault guard; everything decided from those
 * values is here, pure and host-tested on recorded values.
 *
 * Sources: AMD APM vol. 2 section 15.34-15.36 and Linux
 * arch/x86/include/asm/msr-index.h (MSR_AMD64_SEV 0xC0010131 and its bits,
 * MSR_AMD64_GUEST_TSC_FREQ 0xC0010134); Linux arch/x86/coco/sev/core.c
 * (GUEST_TSC_FREQ bits 17:0 in MHz) and the SME/SEV detection in the
 * early boot code (CPUID 0x8000001F EAX bit 1 before the MSR is read);
 * Linux arch/x86/coco/tdx/tdx.c (CPUID leaf 0x21 signature "IntelTDX    "
 * in EBX, EDX, ECX). */
#ifndef CP_COCO_H
#define CP_COCO_H
#include "util.h"
#include "cpuid.h"

#define MSR_AMD64_SEV_STATUS 0xc0010131u
#define MSR_AMD64_GUEST_TSC_FREQ 0xc0010134u
#define COCO_AMD_LEAF 0x8000001fu
#define COCO_TDX_LEAF 0x21u

/* CPUID 0x8000001F EAX */
#define COCO_CPUID_SME (1u << 0)
#define COCO_CPUID_SEV (1u << 1)
#define COCO_CPUID_SEV_ES (1u << 3)
#define COCO_CPUID_SEV_SNP (1u << 4)

/* SEV_STATUS bits (msr-index.h MSR_AMD64_SEV_*_BIT, MSR_AMD64_SNP_*_BIT) */
#define COCO_SEV_ENABLED_BIT 0
#define COCO_SEV_ES_ENABLED_BIT 1
#define COCO_SNP_ENABLED_BIT 2
#define COCO_SNP_SECURE_TSC_BIT 11
#define COCO_SEV_STATUS_BITS 20 /* bits 0..19 have names; the rest are reserved */

/* GUEST_TSC_FREQ: the guest's TSC rate in MHz in bits 17:0. */
#define COCO_GUEST_TSC_MHZ_MASK 0x3ffffull

/* What the hardware side read. */
struct coco_raw {
	bool vendor_amd;          /* AMD or Hygon: the SEV leaf and MSR exist only there */
	uint32_t max_basic, max_ext;
	uint32_t leaf_8000001f[4]; /* eax ebx ecx edx; read when max_ext allows */
	bool sev_status_read;     /* the MSR read was attempted (CPUID allowed it) */
	int sev_status_fault;     /* its vector, 0 when it answered */
	uint64_t sev_status;
	bool guest_tsc_freq_read; /* attempted (Secure TSC on) */
	int guest_tsc_freq_fault;
	uint64_t guest_tsc_freq;
	uint32_t leaf_21[4];      /* read when max_basic allows */
};

struct coco_info {
	/* AMD: what CPUID offers, then what the status MSR says is on. */
	bool amd_leaf;            /* 0x8000001F was in range and asked */
	bool cpuid_sme, cpuid_sev, cpuid_sev_es, cpuid_sev_snp;
	uint32_t c_bit;           /* 0x8000001F EBX[5:0]: the encryption bit's position */
	const char *sev_status_state; /* "read" | "fault" | "not_read" */
	char sev_status_reason[REASON_LEN]; /* why not read, or what the read raised */
	uint64_t sev_status;
	bool sev, sev_es, snp, secure_tsc;
	bool guest_tsc_freq_read;
	char guest_tsc_freq_reason[REASON_LEN];
	uint64_t guest_tsc_freq_mhz; /* bits 17:0 of the MSR */
	uint64_t guest_tsc_freq_hz;  /* the same in Hz; Linux also applies the
	                                secrets page's TSC_FACTOR, which a probe
	                                outside the guest kernel cannot read */
	/* Intel TDX */
	bool tdx_leaf;            /* leaf 0x21 was in range and asked */
	bool tdx;
	char tdx_signature[13];   /* EBX EDX ECX as text ('?' for unprintable) */
	/* Summary for the verdict and the report. */
	const char *kind;         /* "none" | "sev" | "sev-es" | "sev-snp" | "tdx" */
	bool memory_encrypted;    /* SEV of any kind, or TDX: pages the host
	                             writes (pvclock, steal time, clock pairing)
	                             must be shared, which the probe does not do */
	bool exceptions_virtualized; /* SEV-ES/SNP (#VC, vector 29) or TDX (#VE, 20) */
	bool tsc_trusted;         /* Secure TSC or TDX: the TSC rate and offset
	                             come from the hardware, not the host */
};

/* The CPUID half of *raw (vendor, ranges, leaves 0x8000001F and 0x21),
 * through any CPUID callback: the probe's instruction, or a recording.
 * Clears *raw first; the MSR half is the hardware side's. */
void coco_read_cpuid(struct coco_raw *raw, const struct cpu_info *cpu, cpuid_fn fn, void *ctx);
/* Whether the SEV status MSR may be read: an AMD/Hygon CPU whose CPUID
 * 0x8000001F is in range with EAX[1] (SEV) set, as Linux checks first. */
bool coco_may_read_sev_status(const struct coco_raw *raw);

void coco_decode(struct coco_info *out, const struct coco_raw *raw);
/* Name of SEV_STATUS bit i ("SEV", "SecureTSC", ...), NULL when reserved. */
const char *coco_sev_status_bit_name(unsigned bit);

/* What a guest of this kind cannot measure the way the probe reports it
 * elsewhere: up to cap sentences (static strings), returns how many. */
unsigned coco_limits(const struct coco_info *c, bool firmware_handlers, const char **out, unsigned cap);
#endif
