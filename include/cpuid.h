/* CPUID decoding as pure functions over a CPUID callback.  The probe passes
 * the real instruction; host tests and the probe's 'dump' mode pass a
 * recording (struct cpuid_recording + cpuid_replay), so every decision
 * here is testable on the host with leaves recorded on other machines. */
#ifndef CP_CPUID_H
#define CP_CPUID_H
#include "util.h"

enum { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

typedef void (*cpuid_fn)(void *ctx, uint32_t leaf, uint32_t subleaf,
			 uint32_t regs[4] /* eax, ebx, ecx, edx */);

/* Leaf 0x15: TSC / core crystal clock ratio. */
struct cpuid_15 {
	bool valid;		/* max_basic >= 0x15 and den, num != 0 */
	uint32_t den;		/* EAX */
	uint32_t num;		/* EBX */
	uint32_t crystal_hz;	/* ECX, may be 0 even when valid */
	uint64_t tsc_hz;	/* crystal_hz * num / den; 0 when crystal_hz is 0 */
};

/* Leaf 0x16: nominal frequencies, informational only (not the TSC rate). */
struct cpuid_16 {
	bool valid;		/* max_basic >= 0x16 and some field non-zero */
	uint32_t base_mhz, max_mhz, bus_mhz;
};

/* Where cpuid_package_shift() found the number of APIC-ID bits below the
 * package level; mirrors the order of Linux's topology parsers. */
enum cpuid_topo_source {
	CPUID_TOPO_NONE,	/* nothing enumerated: shift 0, one CPU per package */
	CPUID_TOPO_LEAF_1F,
	CPUID_TOPO_LEAF_80000026,
	CPUID_TOPO_LEAF_B,
	CPUID_TOPO_LEAF_80000008,	/* AMD/Hygon without extended topology */
	CPUID_TOPO_LEGACY,	/* leaf 1 EBX[23:16] (HTT) and leaf 4 EAX[31:26] */
};

struct cpu_info {
	char vendor[13];
	char brand[49];		/* leading/trailing blanks trimmed; "" if absent */
	uint32_t signature;	/* leaf 1 EAX */
	uint32_t family, model, stepping;	/* display values, extended fields applied */
	uint32_t max_basic;	/* leaf 0 EAX */
	uint32_t max_ext;	/* 0x80000000 EAX, or 0 when the range is absent */

	bool is_intel, is_amd, is_hygon, is_centaur, is_zhaoxin;

	bool tsc;		/* 1.EDX[4] */
	bool apic;		/* 1.EDX[9] */
	bool htt;		/* 1.EDX[28] */
	bool x2apic;		/* 1.ECX[21] */
	bool tsc_deadline;	/* 1.ECX[24] */
	bool hypervisor_bit;	/* 1.ECX[31] */
	bool rdrand;		/* 1.ECX[30] */
	bool rdseed;		/* 7.0.EBX[18], only when max_basic >= 7 */
	bool tsc_adjust;	/* 7.0.EBX[1], only when max_basic >= 7 */
	bool rdtscp;		/* 0x80000001.EDX[27], only when max_ext allows */
	bool topoext;		/* 0x80000001.ECX[22] */
	bool invariant_tsc;	/* 0x80000007.EDX[8], only when max_ext allows */
	/* 0x80000021.EAX[2] (AMD "LfenceAlwaysSerializing"): LFENCE is
	 * dispatch-serializing without firmware having set DE_CFG[1]. */
	bool lfence_always_serializing;

	/* Linux's synthesized flags.  NONSTOP only ever comes from the
	 * invariant bit; CONSTANT also from model lists, which Linux 6.15
	 * narrowed on Intel (Yonah..Ivy Bridge and P4 Prescott..Cedarmill). */
	bool constant_tsc;		/* kernels before 6.15 */
	bool constant_tsc_v6_15;	/* 6.15 and later */
	bool nonstop_tsc;

	uint32_t initial_apic_id;	/* 1.EBX[31:24] */
	uint32_t logical_per_package;	/* 1.EBX[23:16], meaningful when htt */
	uint32_t x2apic_id;		/* EDX of 0x1F/0xB/0x80000026 when one is valid */
	bool x2apic_id_valid;
	uint32_t package_shift;		/* see cpuid_package_shift() */
	enum cpuid_topo_source package_shift_source;

	struct cpuid_15 leaf15;
	struct cpuid_16 leaf16;
};

void cpuid_decode(struct cpu_info *out, cpuid_fn fn, void *ctx);

/* Number of low APIC-ID bits that identify a CPU inside its package, so
 * package id = apic id >> shift.  Intel (and unknown vendors): leaf 0x1F,
 * 0x80000026, 0xB, else legacy leaf 1/4; AMD/Hygon: the same extended
 * leaves, else 0x80000008 ECX, else none; Centaur/Zhaoxin: legacy.
 * Fallback when nothing is enumerated: 0 (each CPU its own package), and
 * *source = CPUID_TOPO_NONE.  source may be NULL. */
uint32_t cpuid_package_shift(const struct cpu_info *cpu, cpuid_fn fn, void *ctx,
			     enum cpuid_topo_source *source);
const char *cpuid_topo_source_name(enum cpuid_topo_source source);

/* ---- recordings: dump and replay ---- */

struct cpuid_record {
	uint32_t leaf, subleaf, eax, ebx, ecx, edx;
};

/* What a CPU answers for a leaf that is not recorded. */
enum cpuid_unrecorded {
	/* Intel SDM / QEMU TCG / KVM with an Intel guest vendor: a leaf above
	 * its range's maximum answers the highest basic leaf (same subleaf).
	 * In the hypervisor window 0x40000000-0x4FFFFFFF every leaf that is
	 * not recorded is treated that way too: TCG clamps everything above
	 * 0x40000001, KVM everything outside a block it defines.  A leaf
	 * inside the basic or extended range that is not recorded reads 0. */
	CPUID_UNRECORDED_CLAMP,
	/* AMD hardware, and KVM with an AMD/Hygon guest vendor: zeros. */
	CPUID_UNRECORDED_ZERO,
};

struct cpuid_recording {
	const struct cpuid_record *records;
	size_t count;
	enum cpuid_unrecorded unrecorded;
};

/* A cpuid_fn that answers from a struct cpuid_recording (ctx).  A leaf
 * recorded only at subleaf 0 that is not a subleaf-indexed leaf answers
 * every subleaf with that data, as the hardware ignores ECX there. */
void cpuid_replay(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);

/* Walks every meaningful leaf: basic 0..max (with subleaves of 4, 7, 0xB,
 * 0xD, 0xF, 0x10, 0x12, 0x14, 0x17, 0x18, 0x1D, 0x1F, 0x20, 0x24), extended
 * 0x80000000..max (with 0x8000001D, 0x80000020, 0x80000026), Centaur's
 * 0xC0000000 range, and every hypervisor block 0x40000000 + k*0x100 that
 * answers with something other than zeros or the clamped highest basic
 * leaf (Xen's base+3 with its three subleaves).  Returns the number of
 * records written; at most cap, a complete walk never needs more than
 * CPUID_RECORD_MAX. */
#define CPUID_RECORD_MAX 1024
size_t cpuid_record_leaves(cpuid_fn fn, void *ctx, struct cpuid_record *out, size_t cap);

/* How the recorded machine answers unrecorded leaves, found by asking
 * leaf max_basic + 1 (zeros versus a copy of the highest basic leaf). */
enum cpuid_unrecorded cpuid_detect_unrecorded(cpuid_fn fn, void *ctx);

/* Text form, one record per line: "leaf subleaf eax ebx ecx edx" in hex
 * (8 digits, subleaf minimal), no newline.  Returns the length written
 * (buf always terminated; cap >= CPUID_RECORD_LINE_MAX avoids truncation). */
#define CPUID_RECORD_LINE_MAX 48
size_t cpuid_record_format(const struct cpuid_record *r, char *buf, size_t cap);

/* Parses that text form: '#' starts a comment; a "# unrecorded: zero"
 * (or "clamp") comment sets rec->unrecorded; hex numbers may carry 0x.
 * Fills out[] and rec (rec->records = out).  Returns false on a malformed
 * line or when more than cap records are present. */
bool cpuid_recording_parse(struct cpuid_recording *rec, struct cpuid_record *out,
			   size_t cap, const char *text, size_t len);

/* Convenience for decoders: one register of one leaf. */
static inline uint32_t cpuid_reg(cpuid_fn fn, void *ctx, uint32_t leaf, uint32_t subleaf, int reg)
{
	uint32_t r[4];

	fn(ctx, leaf, subleaf, r);
	return r[reg & 3];
}

/* The CPUID hypervisor window 0x40000000-0x4FFFFFFF: 256 blocks of 0x100
 * leaves, each a possible interface (Linux scans the same way). */
#define HV_WINDOW_FIRST 0x40000000u
#define HV_WINDOW_LAST 0x4fffffffu
#define HV_WINDOW_BLOCKS 256u
#define HV_BLOCK_STRIDE 0x100u
#endif
