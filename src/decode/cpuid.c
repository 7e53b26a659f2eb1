/* CPUID decoding: identity (vendor, family/model/stepping, brand), the
 * feature bits the probe and the verdict use, Linux's synthesized TSC
 * flags, and the frequency leaves 0x15/0x16.  Pure: every answer comes
 * through the cpuid_fn callback, so the same code runs on recorded leaves
 * (cpuid_replay.c).  Topology is cpuid_topology.c's. */
#include "cpuid_internal.h"


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
	c->rdrand = bit(r[CPUID_ECX], 30);
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
	if (out->max_basic >= 7) {
		out->tsc_adjust = bit(cpuid_reg(fn, ctx, 7, 0, CPUID_EBX), 1);
		out->rdseed = bit(cpuid_reg(fn, ctx, 7, 0, CPUID_EBX), 18);
	}
	decode_extended(out, fn, ctx);
	derive_linux_tsc_flags(out);
	decode_leaf15(out, fn, ctx);
	decode_leaf16(out, fn, ctx);
	cpuid_decode_x2apic_id(out, fn, ctx);
	out->package_shift = cpuid_package_shift(out, fn, ctx, &out->package_shift_source);
}
