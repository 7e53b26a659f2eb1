/* Confidential VMs from recorded CPUID and MSR values (include/coco.h). */
#include "coco.h"
#include "fault.h"
#include "strbuf.h"

const char *coco_sev_status_bit_name(unsigned bit)
{
	/* Linux arch/x86/coco/sev/core.c sev_status_feat_names[] */
	static const char *const names[COCO_SEV_STATUS_BITS] = {
		[0] = "SEV",         [1] = "SEV-ES",       [2] = "SEV-SNP",     [3] = "vTom",
		[4] = "ReflectVC",   [5] = "RI",           [6] = "AI",          [7] = "DebugSwap",
		[8] = "NoHostIBS",   [9] = "BTBIsol",      [10] = "VmplSSS",    [11] = "SecureTSC",
		[12] = "VMGExitParam", [14] = "IBSVirt",   [16] = "VMSARegProt", [17] = "SMTProt",
		[18] = "SecureAVIC", [19] = "IBPBOnEntry",
	};
	return bit < COCO_SEV_STATUS_BITS ? names[bit] : NULL;
}

void coco_read_cpuid(struct coco_raw *raw, const struct cpu_info *cpu, cpuid_fn fn, void *ctx)
{
	memset(raw, 0, sizeof *raw);
	raw->vendor_amd = cpu->is_amd || cpu->is_hygon;
	raw->max_basic = cpu->max_basic;
	raw->max_ext = cpu->max_ext;
	if (raw->vendor_amd && raw->max_ext >= COCO_AMD_LEAF)
		fn(ctx, COCO_AMD_LEAF, 0, raw->leaf_8000001f);
	if (raw->max_basic >= COCO_TDX_LEAF)
		fn(ctx, COCO_TDX_LEAF, 0, raw->leaf_21);
}

bool coco_may_read_sev_status(const struct coco_raw *raw)
{
	return raw->vendor_amd && raw->max_ext >= COCO_AMD_LEAF && (raw->leaf_8000001f[0] & COCO_CPUID_SEV);
}

static void fault_text(char *buf, size_t cap, const char *what, int vector)
{
	struct strbuf sb;
	sb_init(&sb, buf, cap);
	sb_str(&sb, what);
	sb_str(&sb, " raised ");
	sb_str(&sb, fault_name(vector));
}

static void decode_amd(struct coco_info *out, const struct coco_raw *raw)
{
	out->sev_status_state = "not_read";
	if (!raw->vendor_amd) {
		str_copy(out->sev_status_reason, sizeof out->sev_status_reason,
			 "not an AMD or Hygon CPU: no SEV status MSR");
		return;
	}
	if (raw->max_ext < COCO_AMD_LEAF) {
		str_copy(out->sev_status_reason, sizeof out->sev_status_reason,
			 "CPUID 0x8000001F (memory encryption) is out of range");
		return;
	}
	uint32_t eax = raw->leaf_8000001f[0];
	out->amd_leaf = true;
	out->cpuid_sme = eax & COCO_CPUID_SME;
	out->cpuid_sev = eax & COCO_CPUID_SEV;
	out->cpuid_sev_es = eax & COCO_CPUID_SEV_ES;
	out->cpuid_sev_snp = eax & COCO_CPUID_SEV_SNP;
	out->c_bit = raw->leaf_8000001f[1] & 0x3f;
	if (!out->cpuid_sev) {
		str_copy(out->sev_status_reason, sizeof out->sev_status_reason,
			 "CPUID 0x8000001F EAX[1] (SEV) is clear: the SEV status MSR is not read");
		return;
	}
	if (!raw->sev_status_read) {
		str_copy(out->sev_status_reason, sizeof out->sev_status_reason, "the SEV status MSR was not read");
		return;
	}
	if (raw->sev_status_fault) {
		out->sev_status_state = "fault";
		fault_text(out->sev_status_reason, sizeof out->sev_status_reason, "RDMSR 0xC0010131 (SEV_STATUS)",
			   raw->sev_status_fault);
		return;
	}
	out->sev_status_state = "read";
	out->sev_status = raw->sev_status;
	out->sev = raw->sev_status & (1ull << COCO_SEV_ENABLED_BIT);
	out->sev_es = raw->sev_status & (1ull << COCO_SEV_ES_ENABLED_BIT);
	out->snp = raw->sev_status & (1ull << COCO_SNP_ENABLED_BIT);
	out->secure_tsc = out->snp && (raw->sev_status & (1ull << COCO_SNP_SECURE_TSC_BIT));
	if (!out->secure_tsc) {
		str_copy(out->guest_tsc_freq_reason, sizeof out->guest_tsc_freq_reason,
			 "Secure TSC is off (SEV_STATUS bit 11): GUEST_TSC_FREQ is not read");
		return;
	}
	if (!raw->guest_tsc_freq_read) {
		str_copy(out->guest_tsc_freq_reason, sizeof out->guest_tsc_freq_reason,
			 "GUEST_TSC_FREQ (MSR 0xC0010134) was not read");
		return;
	}
	if (raw->guest_tsc_freq_fault) {
		fault_text(out->guest_tsc_freq_reason, sizeof out->guest_tsc_freq_reason,
			   "RDMSR 0xC0010134 (GUEST_TSC_FREQ)", raw->guest_tsc_freq_fault);
		return;
	}
	out->guest_tsc_freq_read = true;
	out->guest_tsc_freq_mhz = raw->guest_tsc_freq & COCO_GUEST_TSC_MHZ_MASK;
	out->guest_tsc_freq_hz = out->guest_tsc_freq_mhz * 1000000ull;
}

static void decode_tdx(struct coco_info *out, const struct coco_raw *raw)
{
	/* Above the basic range CPUID answers another leaf's data (Intel's
	 * rule, and TCG's): only a leaf in range can carry the signature. */
	if (raw->max_basic < COCO_TDX_LEAF)
		return;
	out->tdx_leaf = true;
	uint8_t sig[12];
	memcpy(sig, &raw->leaf_21[1], 4);     /* EBX "Inte" */
	memcpy(sig + 4, &raw->leaf_21[3], 4); /* EDX "lTDX" */
	memcpy(sig + 8, &raw->leaf_21[2], 4); /* ECX "    " */
	for (int i = 0; i < 12; i++)
		out->tdx_signature[i] = sig[i] >= 0x20 && sig[i] < 0x7f ? (char)sig[i] : '?';
	out->tdx_signature[12] = '\0';
	out->tdx = mem_equal(sig, "IntelTDX    ", 12);
}

void coco_decode(struct coco_info *out, const struct coco_raw *raw)
{
	memset(out, 0, sizeof *out);
	decode_amd(out, raw);
	decode_tdx(out, raw);
	out->kind = out->tdx ? "tdx" : out->snp ? "sev-snp" : out->sev_es ? "sev-es" : out->sev ? "sev" : "none";
	out->memory_encrypted = out->sev || out->tdx;
	out->exceptions_virtualized = out->sev_es || out->snp || out->tdx;
	out->tsc_trusted = out->secure_tsc || out->tdx;
}

unsigned coco_limits(const struct coco_info *c, bool firmware_handlers, const char **out, unsigned cap)
{
	unsigned n = 0;
#define ADD(s) do { if (n < cap) out[n++] = (s); } while (0)
	if (c->memory_encrypted)
		ADD("kvm-clock, steal time and clock pairing need a page shared with the host; the probe's pages "
		    "are private (encrypted), so none is registered");
	if (c->exceptions_virtualized && firmware_handlers)
		ADD("CPUID, MSR, port and emulated-MMIO accesses trap to the firmware's #VC/#VE handler, which "
		    "asks the host through the GHCB or a TDVMCALL: their costs (baselines, hpet, acpi_pm, pit) "
		    "include that round trip and are not the exits of an ordinary guest");
	if (c->exceptions_virtualized && !firmware_handlers)
		ADD("the direct-boot build has no #VC/#VE handler: such a guest cannot run it");
	if (c->tsc_trusted)
		ADD("the TSC is trusted by construction: the host cannot shift or scale it, so cross-source "
		    "drift and the measured rate describe the hardware, not a hypervisor's offsetting");
#undef ADD
	return n;
}
