/* Recording: every meaningful leaf and subleaf of a live CPU (for the
 * probe's dump mode and new test fixtures), and how that CPU answers the
 * leaves it does not define, so a replay can answer them alike. */
#include "cpuid_internal.h"


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
