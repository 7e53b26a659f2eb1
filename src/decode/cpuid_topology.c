/* CPU topology from CPUID, as Linux reads it: how many low APIC-ID bits
 * lie below the package level (so CPUs are grouped into packages the way
 * a guest counts them), and the CPU's own x2APIC id. */
#include "cpuid_internal.h"

/* ceil(log2(n)), Linux's get_count_order() with 0 mapped to 0. */
static uint32_t count_order(uint32_t n)
{
	uint32_t order = 0;

	while (order < 32 && (1ull << order) < n)
		order++;
	return order;
}

struct topo_subleaf {
	uint32_t shift, nproc, type, x2apic_id;
};

static void read_topo_subleaf(cpuid_fn fn, void *ctx, uint32_t leaf, uint32_t sub,
			      struct topo_subleaf *sl)
{
	uint32_t r[4];

	fn(ctx, leaf, sub, r);
	sl->shift = r[CPUID_EAX] & 0x1f;
	sl->nproc = r[CPUID_EBX] & 0xffff;
	sl->type = (r[CPUID_ECX] >> 8) & 0xff;
	sl->x2apic_id = r[CPUID_EDX];
}

/* Leaves 0x1F, 0xB and 0x80000026 share a layout.  Linux propagates each
 * level's shift to every domain above it, so the package shift is the
 * shift of the last level of a type it knows (types >= max_type are
 * skipped).  False when subleaf 0 is not a valid level. */
static bool parse_ext_topology(cpuid_fn fn, void *ctx, uint32_t leaf, uint32_t max_type,
			       uint32_t *shift)
{
	uint32_t sub;

	*shift = 0;
	for (sub = 0; sub < TOPO_MAX_SUBLEAVES; sub++) {
		struct topo_subleaf sl;

		read_topo_subleaf(fn, ctx, leaf, sub, &sl);
		if (!sl.nproc || !sl.type)
			break;
		if (sl.type < max_type)
			*shift = sl.shift;
	}
	return sub > 0;
}

static bool ext_topology(const struct cpu_info *cpu, cpuid_fn fn, void *ctx,
			 uint32_t *shift, enum cpuid_topo_source *source)
{
	/* Type limits: 0xB knows SMT and CORE, 0x1F up to DIEGRP (6),
	 * 0x80000026 up to AMD's socket type (4). */
	if (cpu->max_basic >= 0x1f && parse_ext_topology(fn, ctx, 0x1f, 7, shift)) {
		*source = CPUID_TOPO_LEAF_1F;
		return true;
	}
	if (cpu->max_ext >= 0x80000026 &&
	    parse_ext_topology(fn, ctx, 0x80000026, 5, shift)) {
		*source = CPUID_TOPO_LEAF_80000026;
		return true;
	}
	if (cpu->max_basic >= 0xb && parse_ext_topology(fn, ctx, 0xb, 3, shift)) {
		*source = CPUID_TOPO_LEAF_B;
		return true;
	}
	return false;
}

static uint32_t legacy_topology(const struct cpu_info *cpu, cpuid_fn fn, void *ctx)
{
	uint32_t cores = 1, core_shift, nproc_shift;

	if (cpu->max_basic >= 4) {
		uint32_t eax = cpuid_reg(fn, ctx, 4, 0, CPUID_EAX);

		if (eax & 0x1f)
			cores = (eax >> 26) + 1;
	}
	core_shift = count_order(cores);
	if (!cpu->htt)
		return core_shift;
	nproc_shift = count_order(cpu->logical_per_package);
	return MAX(nproc_shift, core_shift);
}

static bool amd_80000008_topology(const struct cpu_info *cpu, cpuid_fn fn, void *ctx,
				  uint32_t *shift)
{
	uint32_t ecx;

	if (cpu->max_ext < 0x80000008)
		return false;
	ecx = cpuid_reg(fn, ctx, 0x80000008, 0, CPUID_ECX);
	*shift = (ecx >> 12) & 0xf;
	if (!*shift)
		*shift = count_order((ecx & 0xff) + 1);
	return true;
}

uint32_t cpuid_package_shift(const struct cpu_info *cpu, cpuid_fn fn, void *ctx,
			     enum cpuid_topo_source *source)
{
	enum cpuid_topo_source src = CPUID_TOPO_NONE;
	uint32_t shift = 0;

	if (cpu->max_basic < 1) {
		/* nothing enumerated */
	} else if (cpu->is_centaur || cpu->is_zhaoxin) {
		shift = legacy_topology(cpu, fn, ctx);
		src = CPUID_TOPO_LEGACY;
	} else if (cpu->is_amd || cpu->is_hygon) {
		if (!ext_topology(cpu, fn, ctx, &shift, &src)) {
			if (amd_80000008_topology(cpu, fn, ctx, &shift))
				src = CPUID_TOPO_LEAF_80000008;
			else
				shift = 0;
		}
	} else if (!ext_topology(cpu, fn, ctx, &shift, &src)) {
		/* Intel, and our choice for unknown vendors. */
		shift = legacy_topology(cpu, fn, ctx);
		src = CPUID_TOPO_LEGACY;
	}
	if (source)
		*source = src;
	return shift;
}

const char *cpuid_topo_source_name(enum cpuid_topo_source source)
{
	switch (source) {
	case CPUID_TOPO_LEAF_1F:
		return "cpuid_1f";
	case CPUID_TOPO_LEAF_80000026:
		return "cpuid_80000026";
	case CPUID_TOPO_LEAF_B:
		return "cpuid_b";
	case CPUID_TOPO_LEAF_80000008:
		return "cpuid_80000008";
	case CPUID_TOPO_LEGACY:
		return "cpuid_1_4_legacy";
	case CPUID_TOPO_NONE:
		break;
	}
	return "none";
}

void cpuid_decode_x2apic_id(struct cpu_info *c, cpuid_fn fn, void *ctx)
{
	static const uint32_t leaves[] = { 0x1f, 0xb };

	for (size_t i = 0; i < ARRAY_SIZE(leaves); i++) {
		struct topo_subleaf sl;

		if (c->max_basic < leaves[i])
			continue;
		read_topo_subleaf(fn, ctx, leaves[i], 0, &sl);
		if (sl.nproc && sl.type) {
			c->x2apic_id = sl.x2apic_id;
			c->x2apic_id_valid = true;
			return;
		}
	}
}
