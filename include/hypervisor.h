/* Hypervisor identification from the CPUID window 0x40000000-0x4000FFFF.
 * Pure: works on a cpuid_fn, so recorded leaves from any hypervisor are
 * decoded on the host.  VMware's backdoor (port I/O) is not here. */
#ifndef CP_HYPERVISOR_H
#define CP_HYPERVISOR_H
#include "cpuid.h"

#define HV_MAX_RANGES 16
#define HV_HV1_INTERFACE 0x31237648u	/* "Hv#1" in base+1 EAX */

enum hv_kind {
	HV_KIND_UNKNOWN,
	HV_KIND_KVM,
	HV_KIND_HYPERV,
	HV_KIND_VMWARE,
	HV_KIND_XEN,
	HV_KIND_TCG,
	HV_KIND_BHYVE,
	HV_KIND_VIRTUALBOX,
	HV_KIND_PARALLELS,
	HV_KIND_ACRN,
	HV_KIND_QNX,
};

/* One answering block of the window. */
struct hv_range {
	uint32_t base;
	uint32_t max_leaf;	/* EAX of base, or base+1 when EAX < base (old KVM) */
	uint32_t raw_eax;
	uint8_t raw_signature[12];	/* EBX, ECX, EDX bytes as returned */
	char signature[13];	/* printable: NUL dropped, other non-printables '?' */
	const char *name;	/* "kvm", "hyperv", ... or "unknown" */
	enum hv_kind kind;
};

struct hv_kvm {
	bool found;
	uint32_t base;
	uint32_t features_eax;	/* base+1 EAX */
	uint32_t hints_edx;	/* base+1 EDX */
	bool clocksource;	/* bit 0: MSRs 0x11/0x12 */
	bool clocksource2;	/* bit 3: MSRs 0x4B564D00/01 */
	bool steal_time;	/* bit 5 */
	bool stable_bit;	/* bit 24 */
};

struct hv_hyperv {
	bool found;
	uint32_t base;
	uint32_t max_leaf;
	bool interface_hv1;	/* base+1 EAX == "Hv#1" */
	bool vendor_microsoft;	/* signature "Microsoft Hv" (QEMU can rename it) */
	/* What Linux's ms_hyperv_platform() checks: "Microsoft Hv" at
	 * 0x40000000 with a max leaf in 0x40000005..0x4000FFFF. */
	bool linux_detects;
	uint32_t privileges_eax;	/* base+3 EAX */
	uint32_t privileges_ebx;	/* base+3 EBX */
	uint32_t features_edx;		/* base+3 EDX */
	bool access_vp_runtime;		/* EAX[0] */
	bool ref_counter;		/* EAX[1]: MSR 0x40000020 */
	bool tsc_page;			/* EAX[9]: MSR 0x40000021 */
	bool frequency_msrs;		/* EAX[11] && EDX[8]: MSRs 0x40000022/23 */
	bool tsc_invariant_control;	/* EAX[15]: MSR 0x40000118 */
	/* EBX[0] HV_CREATE_PARTITIONS: the root partition (the host's own
	 * view: a Windows or Linux host running Hyper-V), not a guest. */
	bool root_partition;
	/* EBX[22] HV_ISOLATION: an isolated VM; then base+0xC (isolation
	 * configuration) EAX[0] paravisor present, EBX[3:0] isolation type
	 * (0 none, 1 VBS, 2 SNP, 3 TDX), as Linux's ms_hyperv_init_platform()
	 * reads them. */
	bool isolated;
	bool paravisor;
	uint32_t isolation_type;
};

struct hv_xen {
	bool found;
	uint32_t base;
	uint32_t version;		/* base+1 EAX: major << 16 | minor */
	bool tsc_leaf_valid;		/* max_leaf >= base+3 */
	uint32_t tsc_flags;		/* base+3.0 EAX */
	uint32_t tsc_mode;		/* base+3.0 EBX: 0 default .. 3 pvrdtscp */
	uint32_t tsc_khz;		/* base+3.0 ECX */
};

/* The VMware-style timing leaf base+0x10 (EAX TSC kHz, EBX APIC kHz). */
struct hv_timing_leaf {
	/* Only when the owning block's max leaf reaches base+0x10 (TCG and
	 * KVM clamp anything else to the highest basic leaf) and EAX != 0.
	 * Hyper-V blocks are skipped: they define no such leaf. */
	bool valid;
	uint32_t leaf;
	const char *owner;	/* name of the block it belongs to */
	uint32_t tsc_khz, apic_khz;
};

struct hv_info {
	bool present;		/* CPUID.1:ECX[31] */
	size_t range_count;
	struct hv_range ranges[HV_MAX_RANGES];	/* ascending; [0] is primary */

	/* The primary (lowest) range, as the report wants it: name is NULL
	 * when no hypervisor is present, "unknown" when the bit is set but no
	 * block answers (e.g. QEMU kvm=off); signature "" then. */
	const char *name;
	char signature[13];
	uint32_t max_leaf;

	struct hv_kvm kvm;
	struct hv_hyperv hyperv;
	struct hv_xen xen;
	struct hv_timing_leaf timing;
};

/* Scans like Linux's hypervisor_cpuid_base() (0x40000000 + k*0x100,
 * k = 0..255, only when the hypervisor bit is set).  A block counts as a
 * range when its answer is neither all zeros nor identical to the highest
 * basic leaf (what TCG, and KVM with an Intel vendor, return for blocks
 * they do not define), and either its signature is a known one, base+1
 * holds "Hv#1", or its EAX lies in [base, base+0xFF] and its signature
 * bytes are printable ASCII or NUL with at least one visible character. */
void hypervisor_decode(struct hv_info *out, const struct cpu_info *cpu, cpuid_fn fn,
		       void *ctx);

/* "kvm", "hyperv", "vmware", "xen", "tcg", "bhyve", "virtualbox",
 * "parallels", "acrn", "qnx", or "unknown". */
const char *hypervisor_name_for_signature(const uint8_t sig[12]);
enum hv_kind hypervisor_kind_for_signature(const uint8_t sig[12]);

/* sig[12] -> printable text (NUL dropped, non-printables '?'); out[13]. */
void hypervisor_printable_signature(const uint8_t sig[12], char out[13]);
#endif
