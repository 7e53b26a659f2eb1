/* CPUID decoding on recorded leaves (tests/fixtures/cpuid).  Expected
 * values come from the fixture headers and hand decoding of the hex, never
 * from the decoder's own output. */
#include "check.h"
#include "cpuid.h"
#include <stdlib.h>

#define FIX "tests/fixtures/cpuid/"

static struct cpuid_record recs[CPUID_RECORD_MAX];

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

static struct cpu_info decode(struct cpuid_recording *rec)
{
	struct cpu_info cpu;

	cpuid_decode(&cpu, cpuid_replay, rec);
	return cpu;
}

/* Rewrites one register of a recorded leaf (the leaf must be recorded). */
static void patch(struct cpuid_recording *rec, uint32_t leaf, uint32_t sub, int reg,
		  uint32_t value)
{
	for (size_t i = 0; i < rec->count; i++) {
		struct cpuid_record *r = &recs[i];

		if (r->leaf != leaf || r->subleaf != sub)
			continue;
		uint32_t *regs[4] = { &r->eax, &r->ebx, &r->ecx, &r->edx };
		*regs[reg] = value;
		return;
	}
	check_fail(__FILE__, __LINE__, "leaf %x.%x not recorded", leaf, sub);
}

static void ask(struct cpuid_recording *rec, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	cpuid_replay(rec, leaf, sub, r);
}

/* ---- real qemu-user recordings ---- */

TEST(tcg_max_identity_and_features)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	struct cpu_info c = decode(&rec);

	CHECK_STR(c.vendor, "AuthenticAMD");
	CHECK(c.is_amd && !c.is_intel && !c.is_hygon);
	/* 1.EAX = 0x00060fb1: base family 0xF + ext 0 = 15, model 0xB | 6 << 4 */
	CHECK_EQ_U64(c.family, 15);
	CHECK_EQ_U64(c.model, 0x6b);
	CHECK_EQ_U64(c.stepping, 1);
	CHECK_STR(c.brand, "QEMU TCG CPU version 2.5+");
	CHECK_EQ_U64(c.max_basic, 0xd);
	CHECK_EQ_U64(c.max_ext, 0x8000000a);
	/* 1.ECX = 0xfed8320b, 1.EDX = 0x0fcbfbfd */
	CHECK(c.hypervisor_bit);
	CHECK(!c.x2apic);
	CHECK(!c.tsc_deadline);
	CHECK(c.tsc && c.apic && !c.htt);
	CHECK(!c.tsc_adjust);		/* 7.EBX = 0x01d843a9 */
	CHECK(c.rdtscp);		/* 0x80000001.EDX = 0xedd3fbfd */
	CHECK(!c.invariant_tsc);	/* TCG refuses invtsc */
	CHECK(!c.constant_tsc && !c.constant_tsc_v6_15 && !c.nonstop_tsc);
	CHECK(!c.leaf15.valid);
	CHECK(!c.leaf16.valid);
}

TEST(tcg_max_leaf15_is_clamped_not_trusted)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	struct cpu_info c = decode(&rec);
	uint32_t r[4];

	/* what TCG really answers for 0x15 (checked by hand under qemu-user):
	 * leaf 0xD subleaf 0, a "ratio" that would mean a TSC of kHz */
	ask(&rec, 0x15, 0, r);
	CHECK_EQ_U64(r[0], 0x21f);
	CHECK_EQ_U64(r[1], 0xa88);
	CHECK_EQ_U64(r[2], 0xa88);
	CHECK(!c.leaf15.valid);
	CHECK_EQ_U64(c.leaf15.tsc_hz, 0);
}

TEST(tcg_qemu64_has_no_rdtscp)
{
	struct cpuid_recording rec = load(FIX "tcg-qemu64.txt");
	struct cpu_info c = decode(&rec);

	CHECK_STR(c.brand, "QEMU Virtual CPU version 2.5+");
	CHECK(!c.rdtscp);		/* 0x80000001.EDX = 0x2193fbfd */
	CHECK(c.hypervisor_bit);	/* 1.ECX = 0x80002001 */
	CHECK(!c.invariant_tsc);
	CHECK_EQ_U64(c.family, 15);
	CHECK_EQ_U64(c.model, 0x6b);
}

TEST(tcg_topology_from_leaf_b)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	struct cpu_info c = decode(&rec);

	/* 0xB: SMT shift 0 (1 thread), core shift 0 (1 core) */
	CHECK_EQ_U64(c.package_shift, 0);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_B);
	CHECK(c.x2apic_id_valid);
	CHECK_EQ_U64(c.x2apic_id, 0);
}

/* ---- constructed fixtures ---- */

TEST(kvm_guest_with_invtsc)
{
	struct cpuid_recording rec = load(FIX "kvm-intel-invtsc.txt");
	struct cpu_info c = decode(&rec);

	CHECK(c.is_intel);
	CHECK_EQ_U64(c.family, 6);
	CHECK_EQ_U64(c.model, 0x55);
	CHECK_EQ_U64(c.stepping, 4);
	CHECK_STR(c.brand, "Intel Xeon Processor (Skylake)");
	CHECK(c.hypervisor_bit && c.x2apic && c.tsc_deadline && c.tsc_adjust);
	CHECK(c.rdtscp && c.invariant_tsc);
	CHECK(c.constant_tsc && c.constant_tsc_v6_15 && c.nonstop_tsc);
	CHECK(c.htt);
	CHECK_EQ_U64(c.logical_per_package, 4);
	CHECK_EQ_U64(c.package_shift, 2);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_B);
	/* max basic 0xD: the 0x15 answer is leaf 0xD's data, never a ratio */
	CHECK(!c.leaf15.valid);
}

TEST(kvm_off_has_no_invariant_tsc)
{
	struct cpuid_recording rec = load(FIX "kvm-off.txt");
	struct cpu_info c = decode(&rec);

	CHECK(c.hypervisor_bit);
	CHECK(!c.invariant_tsc);
	/* Skylake-SP is model 0x55: constant by model before 6.15 only */
	CHECK(c.constant_tsc);
	CHECK(!c.constant_tsc_v6_15);
	CHECK(!c.nonstop_tsc);
}

TEST(hyperv_guest_hides_invariant_tsc)
{
	struct cpuid_recording rec = load(FIX "hyperv.txt");
	struct cpu_info c = decode(&rec);

	CHECK_EQ_U64(c.family, 6);
	CHECK_EQ_U64(c.model, 0x4f);
	CHECK_STR(c.brand, "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz");
	CHECK(!c.invariant_tsc);
	CHECK(c.constant_tsc);		/* 0x4F >= 0x0E */
	CHECK(!c.constant_tsc_v6_15);	/* 0x4F > Ivy Bridge 0x3A */
	CHECK(!c.x2apic && !c.tsc_deadline && !c.tsc_adjust);
}

TEST(skylake_client_leaf15_without_crystal)
{
	struct cpuid_recording rec = load(FIX "intel-skylake-client.txt");
	struct cpu_info c = decode(&rec);

	CHECK_EQ_U64(c.family, 6);
	CHECK_EQ_U64(c.model, 0x5e);
	CHECK_EQ_U64(c.stepping, 3);
	CHECK(!c.hypervisor_bit);
	CHECK(c.leaf15.valid);
	CHECK_EQ_U64(c.leaf15.den, 2);
	CHECK_EQ_U64(c.leaf15.num, 333);
	CHECK_EQ_U64(c.leaf15.crystal_hz, 0);
	CHECK_EQ_U64(c.leaf15.tsc_hz, 0);
	CHECK(c.leaf16.valid);
	CHECK_EQ_U64(c.leaf16.base_mhz, 4000);
	CHECK_EQ_U64(c.leaf16.max_mhz, 4200);
	CHECK_EQ_U64(c.leaf16.bus_mhz, 100);
	CHECK(c.invariant_tsc && c.nonstop_tsc && c.constant_tsc_v6_15);
	/* 0xB: SMT shift 1, core shift 4 (8 threads) */
	CHECK_EQ_U64(c.package_shift, 4);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_B);
}

TEST(icelake_leaf15_with_crystal)
{
	struct cpuid_recording rec = load(FIX "intel-icelake-server.txt");
	struct cpu_info c = decode(&rec);

	CHECK_EQ_U64(c.model, 0x6a);
	CHECK(c.leaf15.valid);
	CHECK_EQ_U64(c.leaf15.crystal_hz, 25000000);
	CHECK_EQ_U64(c.leaf15.tsc_hz, 2000000000ull);	/* 25 MHz * 160 / 2 */
	CHECK_EQ_U64(c.leaf16.base_mhz, 2000);
	CHECK_EQ_U64(c.package_shift, 6);
}

TEST(leaf15_ratio_uses_wide_product)
{
	struct cpuid_recording rec = load(FIX "intel-icelake-server.txt");
	struct cpu_info c;

	/* 38.4 MHz crystal (Ice Lake client) * 0xffffffff / 3 overflows
	 * 64 bits only without the 128-bit intermediate */
	patch(&rec, 0x15, 0, CPUID_EAX, 3);
	patch(&rec, 0x15, 0, CPUID_EBX, 0xffffffffu);
	patch(&rec, 0x15, 0, CPUID_ECX, 38400000);
	c = decode(&rec);
	CHECK_EQ_U64(c.leaf15.tsc_hz, 54975581376000000ull);	/* 38.4e6 * 1431655765 */
	patch(&rec, 0x15, 0, CPUID_EAX, 0);
	c = decode(&rec);
	CHECK(!c.leaf15.valid);
	CHECK_EQ_U64(c.leaf15.tsc_hz, 0);
}

TEST(amd_epyc_identity)
{
	struct cpuid_recording rec = load(FIX "amd-epyc.txt");
	struct cpu_info c = decode(&rec);

	CHECK(c.is_amd);
	/* 0x00a00f11: 0xF + 0xA = 0x19, model 0x1 (no extended bits) */
	CHECK_EQ_U64(c.family, 0x19);
	CHECK_EQ_U64(c.model, 0x01);
	CHECK_EQ_U64(c.stepping, 1);
	CHECK_STR(c.brand, "AMD EPYC 7763 64-Core Processor");
	CHECK(!c.hypervisor_bit);
	CHECK(!c.leaf15.valid && !c.leaf16.valid);
	CHECK(c.invariant_tsc && c.constant_tsc && c.nonstop_tsc);
	CHECK(!c.tsc_deadline && !c.tsc_adjust);
	CHECK(c.topoext && c.rdtscp);
	CHECK_EQ_U64(c.logical_per_package, 128);
	CHECK_EQ_U64(c.package_shift, 7);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_B);
}

TEST(amd_falls_back_to_80000008)
{
	struct cpuid_recording rec = load(FIX "amd-epyc.txt");
	struct cpu_info c;

	patch(&rec, 0, 0, CPUID_EAX, 7);	/* hide leaf 0xB */
	c = decode(&rec);
	CHECK_EQ_U64(c.package_shift, 7);	/* ApicIdSize */
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_80000008);
	CHECK(!c.x2apic_id_valid);
	/* ApicIdSize 0: from NC + 1 = 16 threads -> 4 bits */
	patch(&rec, 0x80000008, 0, CPUID_ECX, 0x0000000f);
	c = decode(&rec);
	CHECK_EQ_U64(c.package_shift, 4);
	/* neither: each CPU its own package */
	patch(&rec, 0x80000000, 0, CPUID_EAX, 0x80000007);
	c = decode(&rec);
	CHECK_EQ_U64(c.package_shift, 0);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_NONE);
	CHECK_STR(cpuid_topo_source_name(c.package_shift_source), "none");
}

TEST(intel_legacy_topology)
{
	struct cpuid_recording rec = load(FIX "kvm-intel-invtsc.txt");
	struct cpu_info c;

	patch(&rec, 0, 0, CPUID_EAX, 4);	/* no leaf 0xB */
	c = decode(&rec);
	/* HTT, 4 logical, leaf 4 says 4 cores: 2 bits */
	CHECK_EQ_U64(c.package_shift, 2);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEGACY);
	/* 6 logical (3 cores x 2 threads) need 3 bits */
	patch(&rec, 1, 0, CPUID_EBX, 0x00060800);
	patch(&rec, 4, 0, CPUID_EAX, 0x08000121);
	c = decode(&rec);
	CHECK_EQ_U64(c.package_shift, 3);
	/* without HTT only the cores count: 3 cores -> 2 bits */
	patch(&rec, 1, 0, CPUID_EDX, 0x078bfbff);
	c = decode(&rec);
	CHECK_EQ_U64(c.package_shift, 2);
}

TEST(leaf_1f_preferred_over_b)
{
	struct cpuid_record r[] = {
		{ 0, 0, 0x1f, 0x756e6547, 0x6c65746e, 0x49656e69 },
		{ 1, 0, 0x000906a3, 0x00800800, 0x80200000, 0x10000010 },
		{ 0xb, 0, 1, 2, 0x100, 5 },
		{ 0xb, 1, 5, 16, 0x201, 5 },
		{ 0xb, 2, 0, 0, 2, 5 },
		/* die level (type 5) on top: package shift 7 */
		{ 0x1f, 0, 1, 2, 0x100, 5 },
		{ 0x1f, 1, 5, 16, 0x201, 5 },
		{ 0x1f, 2, 7, 32, 0x502, 5 },
		{ 0x1f, 3, 0, 0, 3, 5 },
	};
	struct cpuid_recording rec = { r, ARRAY_SIZE(r), CPUID_UNRECORDED_CLAMP };
	struct cpu_info c = decode(&rec);

	CHECK_EQ_U64(c.package_shift, 7);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_1F);
	CHECK(c.x2apic_id_valid);
	CHECK_EQ_U64(c.x2apic_id, 5);
	/* 0x000906a3: family 6, model 0x9A (Alder Lake) */
	CHECK_EQ_U64(c.model, 0x9a);
}

TEST(leaf_b_ignores_types_beyond_core)
{
	/* Linux reads only SMT and CORE from 0xB; a die level there is
	 * skipped, so the core shift stays the package shift */
	struct cpuid_record r[] = {
		{ 0, 0, 0xb, 0x756e6547, 0x6c65746e, 0x49656e69 },
		{ 1, 0, 0x000506e3, 0, 0, 0 },
		{ 0xb, 0, 1, 2, 0x100, 0 },
		{ 0xb, 1, 5, 16, 0x201, 0 },
		{ 0xb, 2, 9, 64, 0x502, 0 },
		{ 0xb, 3, 0, 0, 3, 0 },
	};
	struct cpuid_recording rec = { r, ARRAY_SIZE(r), CPUID_UNRECORDED_CLAMP };
	struct cpu_info c = decode(&rec);

	CHECK_EQ_U64(c.package_shift, 5);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEAF_B);
}

TEST(family_model_rules_per_vendor)
{
	struct cpuid_record r[] = {
		{ 0, 0, 1, 0x68747541, 0x444d4163, 0x69746e65 },	/* AuthenticAMD */
		{ 1, 0, 0x000106a0, 0, 0, 0 },
	};
	struct cpuid_recording rec = { r, ARRAY_SIZE(r), CPUID_UNRECORDED_CLAMP };
	struct cpu_info c = decode(&rec);

	/* AMD: extended model only for base family 0xF */
	CHECK_EQ_U64(c.family, 6);
	CHECK_EQ_U64(c.model, 0x0a);
	/* Intel: also for family 6 */
	r[0] = (struct cpuid_record){ 0, 0, 1, 0x756e6547, 0x6c65746e, 0x49656e69 };
	c = decode(&rec);
	CHECK_EQ_U64(c.model, 0x1a);
	/* Pentium 4 Prescott 0xF43 */
	r[1].eax = 0x00000f43;
	c = decode(&rec);
	CHECK_EQ_U64(c.family, 15);
	CHECK_EQ_U64(c.model, 4);
	CHECK_EQ_U64(c.stepping, 3);
	/* Zen 2 Rome 0x00830f10: 0xF + 8 = 0x17, model 0x31 */
	r[0] = (struct cpuid_record){ 0, 0, 1, 0x68747541, 0x444d4163, 0x69746e65 };
	r[1].eax = 0x00830f10;
	c = decode(&rec);
	CHECK_EQ_U64(c.family, 0x17);
	CHECK_EQ_U64(c.model, 0x31);
	CHECK_EQ_U64(c.stepping, 0);
}

TEST(other_vendors)
{
	struct cpuid_record r[] = {
		{ 0, 0, 1, 0x746e6543, 0x736c7561, 0x48727561 },	/* CentaurHauls */
		{ 1, 0, 0x000006f0, 0, 0, 0 },
	};
	struct cpuid_recording rec = { r, ARRAY_SIZE(r), CPUID_UNRECORDED_CLAMP };
	struct cpu_info c = decode(&rec);

	CHECK_STR(c.vendor, "CentaurHauls");
	CHECK(c.is_centaur);
	/* Centaur family 6 model >= 0xF: constant by model, never nonstop */
	CHECK(c.constant_tsc && c.constant_tsc_v6_15 && !c.nonstop_tsc);
	CHECK_EQ_U64(c.package_shift_source, CPUID_TOPO_LEGACY);
	r[0] = (struct cpuid_record){ 0, 0, 1, 0x68532020, 0x20206961, 0x68676e61 };
	c = decode(&rec);
	CHECK_STR(c.vendor, "  Shanghai  ");
	CHECK(c.is_zhaoxin && c.constant_tsc);
	r[0] = (struct cpuid_record){ 0, 0, 1, 0x6f677948, 0x656e6975, 0x6e65476e };
	c = decode(&rec);
	CHECK_STR(c.vendor, "HygonGenuine");
	CHECK(c.is_hygon && !c.constant_tsc);
}

TEST(no_extended_range)
{
	/* an Intel-style answer for 0x80000000 that is really leaf 1 data */
	struct cpuid_record r[] = {
		{ 0, 0, 1, 0x756e6547, 0x6c65746e, 0x49656e69 },
		{ 1, 0, 0x00000f43, 0, 0, 0x10 },
	};
	struct cpuid_recording rec = { r, ARRAY_SIZE(r), CPUID_UNRECORDED_CLAMP };
	struct cpu_info c = decode(&rec);

	CHECK_EQ_U64(c.max_ext, 0);
	CHECK(!c.rdtscp && !c.invariant_tsc);
	CHECK_STR(c.brand, "");
	CHECK(c.tsc);
}

/* ---- replay semantics ---- */

TEST(replay_clamps_and_zeros)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	uint32_t r[4];

	ask(&rec, 0x40000000, 0, r);
	CHECK_EQ_U64(r[0], 0x40000001);
	CHECK_EQ_U64(r[1], 0x54474354);
	/* hand-checked TCG answers: leaf 0xD subleaf 0 */
	ask(&rec, 0x40000100, 0, r);
	CHECK_EQ_U64(r[0], 0x21f);
	ask(&rec, 0x4000ff00, 0, r);
	CHECK_EQ_U64(r[1], 0xa88);
	ask(&rec, 0x80000030, 0, r);
	CHECK_EQ_U64(r[0], 0x21f);
	/* the clamp keeps the subleaf */
	ask(&rec, 0x16, 1, r);
	CHECK_EQ_U64(r[0], 5);
	CHECK_EQ_U64(r[1], 0x3c8);
	/* leaf 1 ignores ECX */
	ask(&rec, 1, 7, r);
	CHECK_EQ_U64(r[0], 0x00060fb1);
	/* an indexed leaf's unrecorded subleaf reads 0 */
	ask(&rec, 0xd, 5, r);
	CHECK_EQ_U64(r[0] | r[1] | r[2] | r[3], 0);

	rec = load(FIX "amd-epyc.txt");
	ask(&rec, 0x15, 0, r);
	CHECK_EQ_U64(r[0] | r[1] | r[2] | r[3], 0);
	ask(&rec, 0x40000000, 0, r);
	CHECK_EQ_U64(r[0] | r[1] | r[2] | r[3], 0);
	/* within range but not recorded: 0 under either rule */
	rec = load(FIX "kvm-intel-invtsc.txt");
	ask(&rec, 2, 0, r);
	CHECK_EQ_U64(r[0] | r[1] | r[2] | r[3], 0);
}

TEST(detect_unrecorded_rule)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");

	CHECK_EQ_U64(rec.unrecorded, CPUID_UNRECORDED_CLAMP);
	CHECK_EQ_U64(cpuid_detect_unrecorded(cpuid_replay, &rec), CPUID_UNRECORDED_CLAMP);
	rec = load(FIX "amd-epyc.txt");
	CHECK_EQ_U64(rec.unrecorded, CPUID_UNRECORDED_ZERO);
	CHECK_EQ_U64(cpuid_detect_unrecorded(cpuid_replay, &rec), CPUID_UNRECORDED_ZERO);
}

static bool same_records(const struct cpuid_record *a, size_t na,
			 const struct cpuid_record *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (memcmp(&a[i], &b[i], sizeof(a[i])) != 0)
			return false;
	return true;
}

TEST(record_walk_reproduces_tcg_recording)
{
	static struct cpuid_record walked[CPUID_RECORD_MAX];
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	size_t n = cpuid_record_leaves(cpuid_replay, &rec, walked, ARRAY_SIZE(walked));

	/* by hand: basic 0..0xD = 10 plain + 4 (1) + 7 (1) + 0xB (3) +
	 * 0xD (subleaves 0,1,2,3,4,9) = 21; TCG block 2; 0x80000000..A 11 */
	CHECK_EQ_U64(n, 34);
	CHECK_EQ_U64(rec.count, 34);
	CHECK(same_records(walked, n, rec.records, rec.count));
	/* a short buffer is filled, never overrun */
	CHECK_EQ_U64(cpuid_record_leaves(cpuid_replay, &rec, walked, 5), 5);
}

TEST(record_walk_finds_stacked_blocks)
{
	static struct cpuid_record walked[CPUID_RECORD_MAX];
	struct cpuid_recording rec = load(FIX "xen-viridian.txt");
	size_t n = cpuid_record_leaves(cpuid_replay, &rec, walked, ARRAY_SIZE(walked));
	size_t first = n, hv_leaves = 0, xen_tsc_subleaves = 0;

	for (size_t i = 0; i < n; i++) {
		if (walked[i].leaf == 0x40000103)
			xen_tsc_subleaves++;
		if (walked[i].leaf >= 0x40000000 && walked[i].leaf < 0x50000000) {
			first = MIN(first, i);
			hv_leaves++;
		}
	}
	CHECK_EQ_U64(xen_tsc_subleaves, 3);
	/* Viridian 0x40000000..06 (7) + Xen base..base+4 with 3 subleaves
	 * of base+3 (7); the fixture lists exactly these, from its 5th line
	 * (after leaves 0, 1, 7 and 0xD.0) */
	CHECK_EQ_U64(hv_leaves, 14);
	CHECK(first < n && same_records(walked + first, hv_leaves, rec.records + 4, 14));
}

/* ---- text form ---- */

TEST(format_and_parse_round_trip)
{
	struct cpuid_record r = { 0x40000000, 0, 0x40000001, 0x54474354, 0x43544743, 0x47435447 };
	struct cpuid_record back[2];
	struct cpuid_recording rec;
	char line[CPUID_RECORD_LINE_MAX];
	size_t n = cpuid_record_format(&r, line, sizeof(line));

	CHECK_STR(line, "40000000 0 40000001 54474354 43544743 47435447");
	CHECK_EQ_U64(n, 46);
	r.subleaf = 0x1f;
	cpuid_record_format(&r, line, sizeof(line));
	CHECK_STR(line, "40000000 1f 40000001 54474354 43544743 47435447");
	CHECK(cpuid_recording_parse(&rec, back, 2, line, strlen(line)));
	CHECK_EQ_U64(rec.count, 1);
	CHECK(memcmp(&back[0], &r, sizeof(r)) == 0);
	/* truncation keeps the buffer terminated */
	CHECK_EQ_U64(cpuid_record_format(&r, line, 9), 8);
	CHECK_STR(line, "40000000");
}

TEST(parse_accepts_and_rejects)
{
	struct cpuid_record out[2];
	struct cpuid_recording rec;
	const char *ok = "# header\r\n\n  0x1 0X0 0xA 0 0 0 # note\r\n# unrecorded: zero\n";
	const char *three = "1 2 3 4 5 6\n1 2 3 4 5 6\n1 2 3 4 5 6\n";

	CHECK(cpuid_recording_parse(&rec, out, 2, ok, strlen(ok)));
	CHECK_EQ_U64(rec.count, 1);
	CHECK_EQ_U64(out[0].leaf, 1);
	CHECK_EQ_U64(out[0].eax, 0xa);
	CHECK_EQ_U64(rec.unrecorded, CPUID_UNRECORDED_ZERO);
	CHECK(!cpuid_recording_parse(&rec, out, 2, "1 2 3 4 5\n", 10));
	CHECK(!cpuid_recording_parse(&rec, out, 2, "1 2 3 4 5 6 7\n", 14));
	CHECK(!cpuid_recording_parse(&rec, out, 2, "1 2 3 4 5 123456789\n", 20));
	CHECK(!cpuid_recording_parse(&rec, out, 2, "1 2 3 4 5 6g\n", 13));
	CHECK(!cpuid_recording_parse(&rec, out, 2, three, strlen(three)));
}
