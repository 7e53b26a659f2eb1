/* Hypervisor identification: which blocks of the CPUID hypervisor window
 * answer, who they belong to, and the clock-relevant bits of each. */
#include "hypervisor.h"


struct hv_signature {
	const char sig[12];
	const char *name;
	enum hv_kind kind;
};

/* 12 bytes each, EBX ECX EDX order; sizes are exact so no terminator. */
static const struct hv_signature signatures[] = {
	{ { 'K', 'V', 'M', 'K', 'V', 'M', 'K', 'V', 'M', 0, 0, 0 }, "kvm", HV_KIND_KVM },
	{ "Microsoft Hv", "hyperv", HV_KIND_HYPERV },
	{ "VMwareVMware", "vmware", HV_KIND_VMWARE },
	{ "XenVMMXenVMM", "xen", HV_KIND_XEN },
	{ "TCGTCGTCGTCG", "tcg", HV_KIND_TCG },
	{ "bhyve bhyve ", "bhyve", HV_KIND_BHYVE },
	{ "VBoxVBoxVBox", "virtualbox", HV_KIND_VIRTUALBOX },
	{ " lrpepyh  vr", "parallels", HV_KIND_PARALLELS },
	{ "prl hyperv  ", "parallels", HV_KIND_PARALLELS },
	{ "ACRNACRNACRN", "acrn", HV_KIND_ACRN },
	{ " QNXQVMBSQG ", "qnx", HV_KIND_QNX },
};

static const struct hv_signature *lookup_signature(const uint8_t sig[12])
{
	for (size_t i = 0; i < ARRAY_SIZE(signatures); i++)
		if (mem_equal(signatures[i].sig, sig, 12))
			return &signatures[i];
	return NULL;
}

const char *hypervisor_name_for_signature(const uint8_t sig[12])
{
	const struct hv_signature *s = lookup_signature(sig);

	return s ? s->name : "unknown";
}

enum hv_kind hypervisor_kind_for_signature(const uint8_t sig[12])
{
	const struct hv_signature *s = lookup_signature(sig);

	return s ? s->kind : HV_KIND_UNKNOWN;
}

static bool is_printable(uint8_t c)
{
	return c >= 0x20 && c <= 0x7e;
}

void hypervisor_printable_signature(const uint8_t sig[12], char out[13])
{
	size_t n = 0;

	for (size_t i = 0; i < 12; i++) {
		if (sig[i] == 0)
			continue;
		out[n++] = is_printable(sig[i]) ? (char)sig[i] : '?';
	}
	out[n] = '\0';
}

/* An unknown vendor string still looks like text: only printable bytes
 * or NUL padding, and something visible. */
static bool signature_looks_textual(const uint8_t sig[12])
{
	bool visible = false;

	for (size_t i = 0; i < 12; i++) {
		if (sig[i] != 0 && !is_printable(sig[i]))
			return false;
		if (sig[i] > 0x20 && sig[i] <= 0x7e)
			visible = true;
	}
	return visible;
}

static bool regs_equal(const uint32_t a[4], const uint32_t b[4])
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

static bool regs_zero(const uint32_t r[4])
{
	return !(r[0] | r[1] | r[2] | r[3]);
}

static void signature_bytes(const uint32_t r[4], uint8_t sig[12])
{
	memcpy(sig, &r[CPUID_EBX], 4);
	memcpy(sig + 4, &r[CPUID_ECX], 4);
	memcpy(sig + 8, &r[CPUID_EDX], 4);
}

static bool has_hv1_interface(cpuid_fn fn, void *ctx, uint32_t base, uint32_t eax)
{
	if (eax < base + 1 || eax > base + 0xff)
		return false;
	return cpuid_reg(fn, ctx, base + 1, 0, CPUID_EAX) == HV_HV1_INTERFACE;
}

/* Applies the range rule (see hypervisor.h) to one block; fills *range
 * and returns true when it counts. */
static bool probe_block(cpuid_fn fn, void *ctx, uint32_t base, const uint32_t clamp[4],
			struct hv_range *range)
{
	uint32_t head[4];
	const struct hv_signature *known;
	bool hv1;

	fn(ctx, base, 0, head);
	if (regs_zero(head) || regs_equal(head, clamp))
		return false;

	memset(range, 0, sizeof(*range));
	range->base = base;
	range->raw_eax = head[CPUID_EAX];
	signature_bytes(head, range->raw_signature);
	hypervisor_printable_signature(range->raw_signature, range->signature);
	known = lookup_signature(range->raw_signature);
	hv1 = has_hv1_interface(fn, ctx, base, head[CPUID_EAX]);

	if (!known && !hv1) {
		if (head[CPUID_EAX] < base || head[CPUID_EAX] > base + 0xff)
			return false;
		if (!signature_looks_textual(range->raw_signature))
			return false;
	}
	range->max_leaf = head[CPUID_EAX] < base ? base + 1 : head[CPUID_EAX];
	/* Hv#1 wins over the vendor string: QEMU's hv-vendor-id renames it. */
	if (hv1) {
		range->name = "hyperv";
		range->kind = HV_KIND_HYPERV;
	} else if (known) {
		range->name = known->name;
		range->kind = known->kind;
	} else {
		range->name = "unknown";
		range->kind = HV_KIND_UNKNOWN;
	}
	return true;
}

static void scan_window(struct hv_info *out, const struct cpu_info *cpu, cpuid_fn fn,
			void *ctx)
{
	uint32_t clamp[4];

	fn(ctx, cpu->max_basic, 0, clamp);
	for (uint32_t k = 0; k < HV_WINDOW_BLOCKS && out->range_count < HV_MAX_RANGES; k++) {
		uint32_t base = HV_WINDOW_FIRST + k * HV_BLOCK_STRIDE;

		if (probe_block(fn, ctx, base, clamp, &out->ranges[out->range_count]))
			out->range_count++;
	}
}

static const struct hv_range *first_of_kind(const struct hv_info *hv, enum hv_kind kind)
{
	for (size_t i = 0; i < hv->range_count; i++)
		if (hv->ranges[i].kind == kind)
			return &hv->ranges[i];
	return NULL;
}

static void decode_kvm(struct hv_kvm *kvm, const struct hv_range *r, cpuid_fn fn, void *ctx)
{
	uint32_t regs[4];

	kvm->found = true;
	kvm->base = r->base;
	/* max_leaf >= base+1 always holds: old hosts are mapped to base+1 */
	fn(ctx, r->base + 1, 0, regs);
	kvm->features_eax = regs[CPUID_EAX];
	kvm->hints_edx = regs[CPUID_EDX];
	kvm->clocksource = (regs[CPUID_EAX] >> 0) & 1;
	kvm->clocksource2 = (regs[CPUID_EAX] >> 3) & 1;
	kvm->steal_time = (regs[CPUID_EAX] >> 5) & 1;
	kvm->stable_bit = (regs[CPUID_EAX] >> 24) & 1;
}

static void decode_hyperv(struct hv_hyperv *hv, const struct hv_range *r, cpuid_fn fn,
			  void *ctx)
{
	uint32_t regs[4];

	hv->found = true;
	hv->base = r->base;
	hv->max_leaf = r->max_leaf;
	hv->vendor_microsoft = mem_equal(r->raw_signature, "Microsoft Hv", 12);
	hv->linux_detects = hv->vendor_microsoft && r->base == HV_WINDOW_FIRST &&
			    r->raw_eax >= 0x40000005 && r->raw_eax <= 0x4000ffff;
	hv->interface_hv1 = has_hv1_interface(fn, ctx, r->base, r->raw_eax);
	if (r->max_leaf < r->base + 3)
		return;
	fn(ctx, r->base + 3, 0, regs);
	hv->privileges_eax = regs[CPUID_EAX];
	hv->privileges_ebx = regs[CPUID_EBX];
	hv->features_edx = regs[CPUID_EDX];
	hv->access_vp_runtime = (regs[CPUID_EAX] >> 0) & 1;
	hv->ref_counter = (regs[CPUID_EAX] >> 1) & 1;
	hv->tsc_page = (regs[CPUID_EAX] >> 9) & 1;
	/* Linux reads the frequency MSRs only with both bits */
	hv->frequency_msrs = ((regs[CPUID_EAX] >> 11) & 1) && ((regs[CPUID_EDX] >> 8) & 1);
	hv->tsc_invariant_control = (regs[CPUID_EAX] >> 15) & 1;
	hv->root_partition = regs[CPUID_EBX] & 1;
	hv->isolated = (regs[CPUID_EBX] >> 22) & 1;
	if (!hv->isolated || r->max_leaf < r->base + 0xc)
		return;
	fn(ctx, r->base + 0xc, 0, regs);
	hv->paravisor = regs[CPUID_EAX] & 1;
	hv->isolation_type = regs[CPUID_EBX] & 0xf;
}

static void decode_xen(struct hv_xen *xen, const struct hv_range *r, cpuid_fn fn, void *ctx)
{
	uint32_t regs[4];

	xen->found = true;
	xen->base = r->base;
	if (r->max_leaf >= r->base + 1)
		xen->version = cpuid_reg(fn, ctx, r->base + 1, 0, CPUID_EAX);
	if (r->max_leaf < r->base + 3)
		return;
	fn(ctx, r->base + 3, 0, regs);
	xen->tsc_leaf_valid = true;
	xen->tsc_flags = regs[CPUID_EAX];
	xen->tsc_mode = regs[CPUID_EBX];
	xen->tsc_khz = regs[CPUID_ECX];
}

static void decode_timing_leaf(struct hv_timing_leaf *t, const struct hv_info *hv,
			       cpuid_fn fn, void *ctx)
{
	for (size_t i = 0; i < hv->range_count; i++) {
		const struct hv_range *r = &hv->ranges[i];
		uint32_t regs[4];

		if (r->kind == HV_KIND_HYPERV || r->max_leaf < r->base + 0x10)
			continue;
		fn(ctx, r->base + 0x10, 0, regs);
		if (!regs[CPUID_EAX])
			continue;
		t->valid = true;
		t->leaf = r->base + 0x10;
		t->owner = r->name;
		t->tsc_khz = regs[CPUID_EAX];
		t->apic_khz = regs[CPUID_EBX];
		return;
	}
}

void hypervisor_decode(struct hv_info *out, const struct cpu_info *cpu, cpuid_fn fn,
		       void *ctx)
{
	const struct hv_range *r;

	memset(out, 0, sizeof(*out));
	out->present = cpu->hypervisor_bit;
	if (!out->present)
		return;
	scan_window(out, cpu, fn, ctx);

	out->name = "unknown";
	if (out->range_count) {
		out->name = out->ranges[0].name;
		str_copy(out->signature, sizeof(out->signature), out->ranges[0].signature);
		out->max_leaf = out->ranges[0].max_leaf;
	}
	r = first_of_kind(out, HV_KIND_KVM);
	if (r)
		decode_kvm(&out->kvm, r, fn, ctx);
	r = first_of_kind(out, HV_KIND_HYPERV);
	if (r)
		decode_hyperv(&out->hyperv, r, fn, ctx);
	r = first_of_kind(out, HV_KIND_XEN);
	if (r)
		decode_xen(&out->xen, r, fn, ctx);
	decode_timing_leaf(&out->timing, out, fn, ctx);
}
