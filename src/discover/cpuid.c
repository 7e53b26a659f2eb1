/* CPUID decoding, recording and replay.  Pure: every answer comes through
 * the cpuid_fn callback, so the same code runs on recorded leaves. */
#include "cpuid.h"

#define TOPO_MAX_SUBLEAVES 16
#define HV_WINDOW_FIRST 0x40000000u
#define HV_WINDOW_BLOCKS 256u
#define HV_BLOCK_STRIDE 0x100u

uint32_t cpuid_reg(cpuid_fn fn, void *ctx, uint32_t leaf, uint32_t subleaf, int reg)
{
	uint32_t r[4];

	fn(ctx, leaf, subleaf, r);
	return r[reg & 3];
}

static bool bit(uint32_t value, unsigned n)
{
	return (value >> n) & 1;
}

/* ceil(log2(n)), Linux's get_count_order() with 0 mapped to 0. */
static uint32_t count_order(uint32_t n)
{
	uint32_t order = 0;

	while (order < 32 && (1ull << order) < n)
		order++;
	return order;
}

/* ---- identity ---- */

static void decode_vendor(struct cpu_info *out, const uint32_t r[4])
{
	/* The vendor string is EBX, EDX, ECX: not register order. */
	memcpy(out->vendor, &r[CPUID_EBX], 4);
	memcpy(out->vendor + 4, &r[CPUID_EDX], 4);
	memcpy(out->vendor + 8, &r[CPUID_ECX], 4);
	out->vendor[12] = '\0';

	out->is_intel = str_equal(out->vendor, "GenuineIntel");
	out->is_amd = str_equal(out->vendor, "AuthenticAMD") ||
		      str_equal(out->vendor, "AMDisbetter!");
	out->is_hygon = str_equal(out->vendor, "HygonGenuine");
	out->is_centaur = str_equal(out->vendor, "CentaurHauls");
	out->is_zhaoxin = str_equal(out->vendor, "  Shanghai  ");
}

/* Intel SDM: the extended model applies to base families 6 and 0xF; AMD
 * APM: only to base family 0xF.  Both add the extended family only to
 * 0xF.  (Linux applies the model rule to every family >= 6; no released
 * part has a base family 7..0xE, so the three agree in practice.) */
static void decode_signature(struct cpu_info *out, uint32_t sig)
{
	uint32_t base_family = (sig >> 8) & 0xf;
	uint32_t base_model = (sig >> 4) & 0xf;
	bool amd_rules = out->is_amd || out->is_hygon;
	bool ext_model;

	out->signature = sig;
	out->stepping = sig & 0xf;
	out->family = base_family;
	if (base_family == 0xf)
		out->family += (sig >> 20) & 0xff;
	ext_model = amd_rules ? base_family == 0xf
			      : (base_family == 6 || base_family == 0xf);
	out->model = base_model;
	if (ext_model)
		out->model |= ((sig >> 16) & 0xf) << 4;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void decode_brand(struct cpu_info *out, cpuid_fn fn, void *ctx)
{
	char raw[49];
	size_t start = 0, end;

	for (uint32_t i = 0; i < 3; i++) {
		uint32_t r[4];

		fn(ctx, 0x80000002 + i, 0, r);
		memcpy(raw + 16 * i, r, 16);
	}
	raw[48] = '\0';
	end = str_len(raw);
	while (start < end && is_blank(raw[start]))
		start++;
	while (end > start && is_blank(raw[end - 1]))
		end--;
	memcpy(out->brand, raw + start, end - start);
	out->brand[end - start] = '\0';
}

/* ---- Linux's synthesized TSC flags ---- */

static bool intel_constant_by_model_pre_6_15(const struct cpu_info *c)
{
	return (c->family == 0xf && c->model >= 0x03) ||
	       (c->family == 0x6 && c->model >= 0x0e);
}

/* 6.15 limited the list to Yonah (6:0x0E)..Ivy Bridge (6:0x3A) and
 * P4 Prescott (0xF:3)..Cedarmill (0xF:6). */
static bool intel_constant_by_model_6_15(const struct cpu_info *c)
{
	return (c->family == 0xf && c->model >= 0x03 && c->model <= 0x06) ||
	       (c->family == 0x6 && c->model >= 0x0e && c->model <= 0x3a);
}

static bool centaur_constant_by_model(const struct cpu_info *c)
{
	return (c->family == 6 && c->model >= 0xf) || c->family >= 7;
}

static void derive_linux_tsc_flags(struct cpu_info *c)
{
	bool old_rule = false, new_rule = false;

	if (c->is_intel) {
		old_rule = intel_constant_by_model_pre_6_15(c);
		new_rule = intel_constant_by_model_6_15(c);
	} else if (c->is_centaur) {
		old_rule = new_rule = centaur_constant_by_model(c);
	} else if (c->is_zhaoxin) {
		old_rule = new_rule = c->family >= 6;
	}
	/* Every vendor file (intel, amd, hygon, centaur, zhaoxin) sets both
	 * flags from 0x80000007 EDX[8]; unknown vendors get neither. */
	if (c->invariant_tsc && (c->is_intel || c->is_amd || c->is_hygon ||
				 c->is_centaur || c->is_zhaoxin)) {
		old_rule = new_rule = true;
		c->nonstop_tsc = true;
	}
	c->constant_tsc = old_rule;
	c->constant_tsc_v6_15 = new_rule;
}

/* ---- frequency leaves ---- */

static void decode_leaf15(struct cpu_info *c, cpuid_fn fn, void *ctx)
{
	uint32_t r[4];

	if (c->max_basic < 0x15)
		return;
	fn(ctx, 0x15, 0, r);
	c->leaf15.den = r[CPUID_EAX];
	c->leaf15.num = r[CPUID_EBX];
	c->leaf15.crystal_hz = r[CPUID_ECX];
	c->leaf15.valid = r[CPUID_EAX] != 0 && r[CPUID_EBX] != 0;
	if (c->leaf15.valid && c->leaf15.crystal_hz)
		c->leaf15.tsc_hz = mul_div_u64(c->leaf15.crystal_hz, c->leaf15.num,
					       c->leaf15.den);
}

static void decode_leaf16(struct cpu_info *c, cpuid_fn fn, void *ctx)
{
	uint32_t r[4];

	if (c->max_basic < 0x16)
		return;
	fn(ctx, 0x16, 0, r);
	c->leaf16.base_mhz = r[CPUID_EAX] & 0xffff;
	c->leaf16.max_mhz = r[CPUID_EBX] & 0xffff;
	c->leaf16.bus_mhz = r[CPUID_ECX] & 0xffff;
	c->leaf16.valid = c->leaf16.base_mhz || c->leaf16.max_mhz || c->leaf16.bus_mhz;
}

/* ---- topology ---- */

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

static void decode_x2apic_id(struct cpu_info *c, cpuid_fn fn, void *ctx)
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

/* ---- the decoder ---- */

static void decode_leaf1(struct cpu_info *c, cpuid_fn fn, void *ctx)
{
	uint32_t r[4];

	fn(ctx, 1, 0, r);
	decode_signature(c, r[CPUID_EAX]);
	c->initial_apic_id = r[CPUID_EBX] >> 24;
	c->logical_per_package = (r[CPUID_EBX] >> 16) & 0xff;
	c->x2apic = bit(r[CPUID_ECX], 21);
	c->tsc_deadline = bit(r[CPUID_ECX], 24);
	c->hypervisor_bit = bit(r[CPUID_ECX], 31);
	c->tsc = bit(r[CPUID_EDX], 4);
	c->apic = bit(r[CPUID_EDX], 9);
	c->htt = bit(r[CPUID_EDX], 28);
}

static void decode_extended(struct cpu_info *c, cpuid_fn fn, void *ctx)
{
	uint32_t max = cpuid_reg(fn, ctx, 0x80000000, 0, CPUID_EAX);

	/* Linux's test: anything else means the range does not exist (and
	 * on Intel-style CPUs the answer is the highest basic leaf). */
	if ((max & 0xffff0000) != 0x80000000)
		return;
	c->max_ext = max;
	if (max >= 0x80000001) {
		uint32_t r[4];

		fn(ctx, 0x80000001, 0, r);
		c->rdtscp = bit(r[CPUID_EDX], 27);
		c->topoext = bit(r[CPUID_ECX], 22);
	}
	if (max >= 0x80000004)
		decode_brand(c, fn, ctx);
	if (max >= 0x80000007)
		c->invariant_tsc = bit(cpuid_reg(fn, ctx, 0x80000007, 0, CPUID_EDX), 8);
	if (max >= 0x80000021)
		c->lfence_always_serializing = bit(cpuid_reg(fn, ctx, 0x80000021, 0, CPUID_EAX), 2);
}

void cpuid_decode(struct cpu_info *out, cpuid_fn fn, void *ctx)
{
	uint32_t r[4];

	memset(out, 0, sizeof(*out));
	fn(ctx, 0, 0, r);
	out->max_basic = r[CPUID_EAX];
	decode_vendor(out, r);
	if (out->max_basic >= 1)
		decode_leaf1(out, fn, ctx);
	if (out->max_basic >= 7)
		out->tsc_adjust = bit(cpuid_reg(fn, ctx, 7, 0, CPUID_EBX), 1);
	decode_extended(out, fn, ctx);
	derive_linux_tsc_flags(out);
	decode_leaf15(out, fn, ctx);
	decode_leaf16(out, fn, ctx);
	decode_x2apic_id(out, fn, ctx);
	out->package_shift = cpuid_package_shift(out, fn, ctx, &out->package_shift_source);
}

/* ---- replay ---- */

/* Leaves whose ECX input selects a subleaf (Linux's
 * cpuid_function_is_indexed() plus the newer AMD ones). */
static bool is_indexed_leaf(uint32_t leaf)
{
	static const uint32_t indexed[] = {
		4, 7, 0xb, 0xd, 0xf, 0x10, 0x12, 0x14, 0x17, 0x18, 0x1d, 0x1e,
		0x1f, 0x20, 0x23, 0x24, 0x8000001d, 0x80000020, 0x80000026,
	};

	for (size_t i = 0; i < ARRAY_SIZE(indexed); i++)
		if (indexed[i] == leaf)
			return true;
	return false;
}

static void record_to_regs(const struct cpuid_record *rec, uint32_t regs[4])
{
	regs[CPUID_EAX] = rec->eax;
	regs[CPUID_EBX] = rec->ebx;
	regs[CPUID_ECX] = rec->ecx;
	regs[CPUID_EDX] = rec->edx;
}

/* The recorded answer for leaf/subleaf without any out-of-range rule:
 * exact match, else subleaf 0 for a leaf the CPU does not index. */
static const struct cpuid_record *find_recorded(const struct cpuid_recording *rec,
						uint32_t leaf, uint32_t subleaf)
{
	const struct cpuid_record *sub0 = NULL;
	bool indexed = is_indexed_leaf(leaf);

	for (size_t i = 0; i < rec->count; i++) {
		const struct cpuid_record *r = &rec->records[i];

		if (r->leaf != leaf)
			continue;
		if (r->subleaf == subleaf)
			return r;
		if (r->subleaf == 0)
			sub0 = r;
		else
			indexed = true;	/* e.g. Xen's base+3 */
	}
	return indexed ? NULL : sub0;
}

static bool leaf_is_recorded(const struct cpuid_recording *rec, uint32_t leaf)
{
	for (size_t i = 0; i < rec->count; i++)
		if (rec->records[i].leaf == leaf)
			return true;
	return false;
}

static uint32_t recorded_eax(const struct cpuid_recording *rec, uint32_t leaf)
{
	const struct cpuid_record *r = find_recorded(rec, leaf, 0);

	return r ? r->eax : 0;
}

/* Is leaf above the maximum of the range it belongs to? */
static bool beyond_range(const struct cpuid_recording *rec, uint32_t leaf)
{
	uint32_t range_base;

	if (leaf >= HV_WINDOW_FIRST && leaf <= 0x4fffffff)
		return true;	/* see enum cpuid_unrecorded */
	if (leaf < 0x80000000)
		return leaf > recorded_eax(rec, 0);
	range_base = leaf >= 0xc0000000 ? 0xc0000000 : 0x80000000;
	if (!leaf_is_recorded(rec, range_base))
		return true;
	return leaf > recorded_eax(rec, range_base);
}

void cpuid_replay(void *ctx, uint32_t leaf, uint32_t subleaf, uint32_t regs[4])
{
	const struct cpuid_recording *rec = ctx;
	const struct cpuid_record *r = find_recorded(rec, leaf, subleaf);

	regs[0] = regs[1] = regs[2] = regs[3] = 0;
	if (r) {
		record_to_regs(r, regs);
		return;
	}
	if (leaf_is_recorded(rec, leaf) || !beyond_range(rec, leaf))
		return;
	if (rec->unrecorded == CPUID_UNRECORDED_CLAMP) {
		r = find_recorded(rec, recorded_eax(rec, 0), subleaf);
		if (r)
			record_to_regs(r, regs);
	}
}

/* ---- recording ---- */

struct recorder {
	cpuid_fn fn;
	void *ctx;
	struct cpuid_record *out;
	size_t cap, n;
};

static void record(struct recorder *rc, uint32_t leaf, uint32_t sub, uint32_t regs[4])
{
	rc->fn(rc->ctx, leaf, sub, regs);
	if (rc->n < rc->cap) {
		struct cpuid_record *r = &rc->out[rc->n++];

		r->leaf = leaf;
		r->subleaf = sub;
		r->eax = regs[CPUID_EAX];
		r->ebx = regs[CPUID_EBX];
		r->ecx = regs[CPUID_ECX];
		r->edx = regs[CPUID_EDX];
	}
}

/* Subleaves until a terminator (included, so a replay answers it too). */
static void record_until_type0(struct recorder *rc, uint32_t leaf, int reg, unsigned shift,
			       uint32_t mask)
{
	for (uint32_t sub = 0; sub < TOPO_MAX_SUBLEAVES; sub++) {
		uint32_t r[4];

		record(rc, leaf, sub, r);
		if (((r[reg] >> shift) & mask) == 0)
			break;
	}
}

/* Subleaf 0 EAX holds the highest subleaf. */
static void record_eax_max(struct recorder *rc, uint32_t leaf)
{
	uint32_t r[4], max;

	record(rc, leaf, 0, r);
	max = MIN(r[CPUID_EAX], TOPO_MAX_SUBLEAVES - 1);
	for (uint32_t sub = 1; sub <= max; sub++)
		record(rc, leaf, sub, r);
}

static void record_fixed(struct recorder *rc, uint32_t leaf, uint32_t count)
{
	uint32_t r[4];

	for (uint32_t sub = 0; sub < count; sub++)
		record(rc, leaf, sub, r);
}

/* XSAVE components: every bit of XCR0 (sub 0) or IA32_XSS (sub 1) support. */
static void record_xsave(struct recorder *rc)
{
	uint32_t s0[4], s1[4];
	uint64_t mask;

	record(rc, 0xd, 0, s0);
	record(rc, 0xd, 1, s1);
	mask = s0[CPUID_EAX] | ((uint64_t)s0[CPUID_EDX] << 32) |
	       s1[CPUID_ECX] | ((uint64_t)s1[CPUID_EDX] << 32);
	for (uint32_t sub = 2; sub < 64; sub++) {
		uint32_t r[4];

		if (mask & (1ull << sub))
			record(rc, 0xd, sub, r);
	}
}

static void record_leaf(struct recorder *rc, uint32_t leaf)
{
	uint32_t r[4];

	switch (leaf) {
	case 4:
	case 0x8000001d:
		record_until_type0(rc, leaf, CPUID_EAX, 0, 0x1f);
		break;
	case 0xb:
	case 0x1f:
	case 0x80000026:
		record_until_type0(rc, leaf, CPUID_ECX, 8, 0xff);
		break;
	case 7:
	case 0x14:
	case 0x17:
	case 0x18:
	case 0x1d:
	case 0x20:
	case 0x24:
		record_eax_max(rc, leaf);
		break;
	case 0xd:
		record_xsave(rc);
		break;
	case 0xf:
		record_fixed(rc, leaf, 2);
		break;
	case 0x10:
	case 0x12:
	case 0x80000020:
		record_fixed(rc, leaf, 4);
		break;
	default:
		record(rc, leaf, 0, r);
		break;
	}
}

/* first..last, with last bounded to first + 0xFF against garbage maxima. */
static void record_range(struct recorder *rc, uint32_t first, uint32_t last)
{
	last = MIN(last, first + 0xff);
	for (uint32_t leaf = first; leaf <= last; leaf++)
		record_leaf(rc, leaf);
}

static bool regs_equal(const uint32_t a[4], const uint32_t b[4])
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

static bool regs_zero(const uint32_t r[4])
{
	return !(r[0] | r[1] | r[2] | r[3]);
}

static bool signature_is(const uint32_t r[4], const char *sig)
{
	uint8_t raw[12];

	memcpy(raw, &r[CPUID_EBX], 4);
	memcpy(raw + 4, &r[CPUID_ECX], 4);
	memcpy(raw + 8, &r[CPUID_EDX], 4);
	return mem_equal(raw, sig, 12);
}

/* The vendor string is EBX, EDX, ECX; a hypervisor signature EBX, ECX, EDX. */
static bool vendor_is(const uint32_t r[4], const char *vendor)
{
	const uint32_t swapped[4] = { r[CPUID_EAX], r[CPUID_EBX], r[CPUID_EDX], r[CPUID_ECX] };

	return signature_is(swapped, vendor);
}

static void record_hv_block(struct recorder *rc, uint32_t base, const uint32_t head[4])
{
	uint32_t max = head[CPUID_EAX];
	bool xen = signature_is(head, "XenVMMXenVMM");

	if (max < base)
		max = base + 1;	/* old KVM hosts answered 0 */
	max = MIN(max, base + 0xff);
	for (uint32_t leaf = base + 1; leaf <= max; leaf++)
		record_fixed(rc, leaf, xen && leaf == base + 3 ? 3 : 1);
}

static void record_hypervisor_window(struct recorder *rc, uint32_t max_basic)
{
	uint32_t clamp[4];

	rc->fn(rc->ctx, max_basic, 0, clamp);
	for (uint32_t k = 0; k < HV_WINDOW_BLOCKS; k++) {
		uint32_t base = HV_WINDOW_FIRST + k * HV_BLOCK_STRIDE;
		uint32_t head[4];

		rc->fn(rc->ctx, base, 0, head);
		/* zeros (AMD) and the clamped highest basic leaf (Intel, TCG)
		 * are what an undefined block answers; replay restores them */
		if (regs_zero(head) || regs_equal(head, clamp))
			continue;
		record(rc, base, 0, head);
		record_hv_block(rc, base, head);
	}
}

size_t cpuid_record_leaves(cpuid_fn fn, void *ctx, struct cpuid_record *out, size_t cap)
{
	struct recorder rc = { .fn = fn, .ctx = ctx, .out = out, .cap = cap };
	uint32_t r[4], max_basic, max_ext;
	bool centaur;

	fn(ctx, 0, 0, r);
	max_basic = r[CPUID_EAX];
	centaur = vendor_is(r, "CentaurHauls") || vendor_is(r, "  Shanghai  ");
	record_range(&rc, 0, max_basic);

	if (max_basic >= 1 && bit(cpuid_reg(fn, ctx, 1, 0, CPUID_ECX), 31))
		record_hypervisor_window(&rc, max_basic);

	max_ext = cpuid_reg(fn, ctx, 0x80000000, 0, CPUID_EAX);
	if ((max_ext & 0xffff0000) == 0x80000000)
		record_range(&rc, 0x80000000, max_ext);

	if (centaur) {
		uint32_t max_c = cpuid_reg(fn, ctx, 0xc0000000, 0, CPUID_EAX);

		if ((max_c & 0xffffff00) == 0xc0000000)
			record_range(&rc, 0xc0000000, max_c);
	}
	return rc.n;
}

enum cpuid_unrecorded cpuid_detect_unrecorded(cpuid_fn fn, void *ctx)
{
	uint32_t max = cpuid_reg(fn, ctx, 0, 0, CPUID_EAX);
	uint32_t top[4], above[4];

	fn(ctx, max, 0, top);
	fn(ctx, max + 1, 0, above);
	if (!regs_equal(top, above) && regs_zero(above))
		return CPUID_UNRECORDED_ZERO;
	return CPUID_UNRECORDED_CLAMP;
}

/* ---- text form ---- */

static size_t put_hex(char *buf, size_t cap, size_t pos, uint32_t v, unsigned min_digits)
{
	static const char digits[] = "0123456789abcdef";
	unsigned n = 8;

	while (n > min_digits && ((v >> ((n - 1) * 4)) & 0xf) == 0)
		n--;
	for (unsigned i = n; i > 0; i--, pos++)
		if (pos + 1 < cap)
			buf[pos] = digits[(v >> ((i - 1) * 4)) & 0xf];
	return pos;
}

size_t cpuid_record_format(const struct cpuid_record *r, char *buf, size_t cap)
{
	const uint32_t fields[6] = { r->leaf, r->subleaf, r->eax, r->ebx, r->ecx, r->edx };
	size_t pos = 0;

	if (cap == 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (i) {
			if (pos + 1 < cap)
				buf[pos] = ' ';
			pos++;
		}
		pos = put_hex(buf, cap, pos, fields[i], i == 1 ? 1 : 8);
	}
	buf[MIN(pos, cap - 1)] = '\0';
	return MIN(pos, cap - 1);
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

struct line {
	const char *p, *end;
};

static void skip_blanks(struct line *l)
{
	while (l->p < l->end && is_blank(*l->p))
		l->p++;
}

static bool parse_hex32(struct line *l, uint32_t *value)
{
	unsigned digits = 0;

	if (l->end - l->p >= 2 && l->p[0] == '0' && (l->p[1] == 'x' || l->p[1] == 'X'))
		l->p += 2;
	*value = 0;
	while (l->p < l->end && hex_value(*l->p) >= 0) {
		if (++digits > 8)
			return false;
		*value = (*value << 4) | (uint32_t)hex_value(*l->p);
		l->p++;
	}
	return digits > 0;
}

static bool starts_with_n(const char *p, const char *end, const char *prefix)
{
	size_t n = str_len(prefix);

	return (size_t)(end - p) >= n && mem_equal(p, prefix, n);
}

static void parse_directive(struct cpuid_recording *rec, struct line l)
{
	l.p++;	/* '#' */
	skip_blanks(&l);
	if (!starts_with_n(l.p, l.end, "unrecorded:"))
		return;
	l.p += str_len("unrecorded:");
	skip_blanks(&l);
	if (starts_with_n(l.p, l.end, "zero"))
		rec->unrecorded = CPUID_UNRECORDED_ZERO;
	else if (starts_with_n(l.p, l.end, "clamp"))
		rec->unrecorded = CPUID_UNRECORDED_CLAMP;
}

/* One line: blank, comment, or six numbers (then optionally a comment). */
static bool parse_line(struct cpuid_recording *rec, struct cpuid_record *out, size_t cap,
		       struct line l)
{
	uint32_t v[6];

	if (l.end > l.p && l.end[-1] == '\r')
		l.end--;
	skip_blanks(&l);
	if (l.p == l.end)
		return true;
	if (*l.p == '#') {
		parse_directive(rec, l);
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		skip_blanks(&l);
		if (!parse_hex32(&l, &v[i]))
			return false;
		if (l.p < l.end && !is_blank(*l.p) && *l.p != '#')
			return false;
	}
	skip_blanks(&l);
	if (l.p < l.end && *l.p != '#')
		return false;
	if (rec->count >= cap)
		return false;
	out[rec->count++] = (struct cpuid_record){ v[0], v[1], v[2], v[3], v[4], v[5] };
	return true;
}

bool cpuid_recording_parse(struct cpuid_recording *rec, struct cpuid_record *out,
			   size_t cap, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	rec->records = out;
	rec->count = 0;
	rec->unrecorded = CPUID_UNRECORDED_CLAMP;
	while (p < end) {
		const char *eol = p;

		while (eol < end && *eol != '\n')
			eol++;
		if (!parse_line(rec, out, cap, (struct line){ p, eol }))
			return false;
		p = eol < end ? eol + 1 : end;
	}
	return true;
}
