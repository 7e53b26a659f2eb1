/* Hypervisor identification on recorded leaves (tests/fixtures/cpuid).
 * Expected values come from the fixture headers (documentation) and the
 * signature table in clock-abi-facts §1.3. */
#include "check.h"
#include "hypervisor.h"
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

static struct hv_info hv;	/* large: keep it off the stack */

static const struct hv_info *decode(struct cpuid_recording *rec)
{
	struct cpu_info cpu;

	cpuid_decode(&cpu, cpuid_replay, rec);
	hypervisor_decode(&hv, &cpu, cpuid_replay, rec);
	return &hv;
}

/* Adds a record to a loaded fixture. */
static void add(struct cpuid_recording *rec, struct cpuid_record r)
{
	if (rec->count >= CPUID_RECORD_MAX) {
		check_fail(__FILE__, __LINE__, "recording full");
		return;
	}
	recs[rec->count++] = r;
}

static void drop_leaf(struct cpuid_recording *rec, uint32_t leaf)
{
	size_t out = 0;

	for (size_t i = 0; i < rec->count; i++)
		if (recs[i].leaf != leaf)
			recs[out++] = recs[i];
	rec->count = out;
}

static bool has_range_at(const struct hv_info *h, uint32_t base)
{
	for (size_t i = 0; i < h->range_count; i++)
		if (h->ranges[i].base == base)
			return true;
	return false;
}

/* KVM feature bits of the KVM fixtures: 0,1,3,4,5,6,7,9,10,11,13,14,15,24 */
#define KVM_FEATURES 0x0100eefbu

TEST(tcg_signature_and_clamped_window)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	const struct hv_info *h = decode(&rec);

	CHECK(h->present);
	CHECK_EQ_U64(h->range_count, 1);
	CHECK_EQ_U64(h->ranges[0].base, 0x40000000);
	CHECK_EQ_U64(h->ranges[0].max_leaf, 0x40000001);
	CHECK_STR(h->ranges[0].signature, "TCGTCGTCGTCG");
	CHECK_STR(h->ranges[0].name, "tcg");
	CHECK_EQ_U64(h->ranges[0].kind, HV_KIND_TCG);
	CHECK_STR(h->name, "tcg");
	CHECK_STR(h->signature, "TCGTCGTCGTCG");
	CHECK_EQ_U64(h->max_leaf, 0x40000001);
	/* 0x40000100.. answer leaf 0xD data: not ranges */
	CHECK(!has_range_at(h, 0x40000100));
	/* 0x40000010 answers EAX = 0x21f, but the block ends at 0x40000001 */
	CHECK(!h->timing.valid);
	CHECK(!h->kvm.found && !h->hyperv.found && !h->xen.found);
}

TEST(tcg_qemu64_zero_clamp)
{
	struct cpuid_recording rec = load(FIX "tcg-qemu64.txt");
	const struct hv_info *h = decode(&rec);

	CHECK_EQ_U64(h->range_count, 1);
	CHECK_STR(h->name, "tcg");
	CHECK(!h->timing.valid);
}

TEST(tcg_cpuid_off_leaves_no_range)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	const struct hv_info *h;

	/* -cpu max,tcg-cpuid=off: 0x40000000 is clamped like the rest */
	drop_leaf(&rec, 0x40000000);
	drop_leaf(&rec, 0x40000001);
	h = decode(&rec);
	CHECK(h->present);
	CHECK_EQ_U64(h->range_count, 0);
	CHECK_STR(h->name, "unknown");
	CHECK_STR(h->signature, "");
	CHECK_EQ_U64(h->max_leaf, 0);
}

TEST(clamp_lookalikes_are_rejected)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	const struct hv_info *h;

	rec.unrecorded = CPUID_UNRECORDED_ZERO;
	/* system-mode TCG's leaf 0xD (EBX 0x240, clock-abi-facts §1.1): not
	 * equal to this recording's clamp, EAX below base, bytes not text */
	add(&rec, (struct cpuid_record){ 0x40000100, 0, 0x21f, 0x240, 0xa88, 0 });
	/* EAX in range but binary signature bytes */
	add(&rec, (struct cpuid_record){ 0x40000200, 0, 0x40000205, 0xa88, 1, 2 });
	/* EAX out of the block */
	add(&rec, (struct cpuid_record){ 0x40000300, 0, 0x40000400, 0x41414141, 0x41414141,
					 0x41414141 });
	/* blanks only */
	add(&rec, (struct cpuid_record){ 0x40000400, 0, 0x40000401, 0x20202020, 0x20202020, 0 });
	h = decode(&rec);
	CHECK_EQ_U64(h->range_count, 1);
	CHECK_STR(h->name, "tcg");
}

TEST(clamp_rule_alone_rejects_textual_lookalike)
{
	/* a highest basic leaf that happens to look like a block header: the
	 * window must not turn into 256 copies of it */
	struct cpuid_record r[] = {
		{ 0, 0, 4, 0x756e6547, 0x6c65746e, 0x49656e69 },
		{ 1, 0, 0x000506e3, 0, 0x80000000, 0 },
		{ 4, 0, 0x40000001, 0x44434241, 0x48474645, 0x4c4b4a49 },
	};
	struct cpuid_recording rec = { r, ARRAY_SIZE(r), CPUID_UNRECORDED_CLAMP };
	const struct hv_info *h = decode(&rec);

	CHECK(h->present);
	CHECK_EQ_U64(h->range_count, 0);
}

TEST(unknown_textual_vendor_is_a_range)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	const struct hv_info *h;

	/* "MyHV" + NUL padding, EAX inside its block */
	add(&rec, (struct cpuid_record){ 0x40000500, 0, 0x40000502, 0x5648794d, 0, 0 });
	h = decode(&rec);
	CHECK_EQ_U64(h->range_count, 2);
	CHECK_EQ_U64(h->ranges[1].base, 0x40000500);
	CHECK_STR(h->ranges[1].name, "unknown");
	CHECK_EQ_U64(h->ranges[1].kind, HV_KIND_UNKNOWN);
	CHECK_STR(h->ranges[1].signature, "MyHV");
	CHECK_EQ_U64(h->ranges[1].max_leaf, 0x40000502);
	/* the primary stays the lowest */
	CHECK_STR(h->name, "tcg");
}

TEST(kvm_with_timing_leaf)
{
	struct cpuid_recording rec = load(FIX "kvm-intel-invtsc.txt");
	const struct hv_info *h = decode(&rec);

	CHECK(h->present);
	CHECK_EQ_U64(h->range_count, 1);
	CHECK_STR(h->name, "kvm");
	CHECK_STR(h->signature, "KVMKVMKVM");
	CHECK_EQ_U64(h->max_leaf, 0x40000010);
	CHECK(h->kvm.found);
	CHECK_EQ_U64(h->kvm.base, 0x40000000);
	CHECK_EQ_U64(h->kvm.features_eax, KVM_FEATURES);
	CHECK_EQ_U64(h->kvm.hints_edx, 0);
	CHECK(h->kvm.clocksource && h->kvm.clocksource2);
	CHECK(h->kvm.stable_bit && h->kvm.steal_time);
	CHECK(h->timing.valid);
	CHECK_EQ_U64(h->timing.leaf, 0x40000010);
	CHECK_STR(h->timing.owner, "kvm");
	CHECK_EQ_U64(h->timing.tsc_khz, 2593992);
	CHECK_EQ_U64(h->timing.apic_khz, 1000000);
	CHECK(!h->hyperv.found && !h->xen.found);
}

TEST(kvm_without_stable_bit)
{
	struct cpuid_recording rec = load(FIX "kvm-intel-invtsc.txt");
	const struct hv_info *h;

	for (size_t i = 0; i < rec.count; i++)
		if (recs[i].leaf == 0x40000001)
			recs[i].eax = 0x1;	/* old clocksource only */
	h = decode(&rec);
	CHECK(h->kvm.clocksource);
	CHECK(!h->kvm.clocksource2 && !h->kvm.stable_bit && !h->kvm.steal_time);
}

TEST(kvm_old_host_eax_zero)
{
	struct cpuid_recording rec = load(FIX "kvm-intel-invtsc.txt");
	const struct hv_info *h;

	for (size_t i = 0; i < rec.count; i++)
		if (recs[i].leaf == 0x40000000)
			recs[i].eax = 0;
	h = decode(&rec);
	CHECK_EQ_U64(h->range_count, 1);
	CHECK_EQ_U64(h->ranges[0].raw_eax, 0);
	CHECK_EQ_U64(h->ranges[0].max_leaf, 0x40000001);
	CHECK(h->kvm.found);
	CHECK_EQ_U64(h->kvm.features_eax, KVM_FEATURES);
	/* the block no longer reaches 0x40000010 */
	CHECK(!h->timing.valid);
}

TEST(kvm_with_hyperv_enlightenments)
{
	struct cpuid_recording rec = load(FIX "kvm-hv-time-frequencies.txt");
	const struct hv_info *h = decode(&rec);

	CHECK_EQ_U64(h->range_count, 2);
	CHECK_STR(h->ranges[0].name, "hyperv");
	CHECK_STR(h->ranges[0].signature, "Microsoft Hv");
	CHECK_EQ_U64(h->ranges[0].max_leaf, 0x40000005);
	CHECK_STR(h->ranges[1].name, "kvm");
	CHECK_EQ_U64(h->ranges[1].base, 0x40000100);
	CHECK_EQ_U64(h->ranges[1].max_leaf, 0x40000101);
	CHECK_STR(h->name, "hyperv");

	CHECK(h->hyperv.found);
	CHECK_EQ_U64(h->hyperv.base, 0x40000000);
	CHECK(h->hyperv.interface_hv1 && h->hyperv.vendor_microsoft);
	CHECK(h->hyperv.linux_detects);
	CHECK_EQ_U64(h->hyperv.privileges_eax, 0xa22);	/* bits 1, 5, 9, 11 */
	CHECK_EQ_U64(h->hyperv.features_edx, 0x100);
	CHECK(h->hyperv.ref_counter && h->hyperv.tsc_page && h->hyperv.frequency_msrs);
	CHECK(!h->hyperv.access_vp_runtime && !h->hyperv.tsc_invariant_control);

	CHECK(h->kvm.found);
	CHECK_EQ_U64(h->kvm.base, 0x40000100);
	CHECK_EQ_U64(h->kvm.features_eax, KVM_FEATURES);
	CHECK(h->kvm.stable_bit);
	/* QEMU adds 0x40000010 only with KVM at 0x40000000 */
	CHECK(!h->timing.valid);
}

TEST(hyperv_renamed_vendor_still_found_by_hv1)
{
	struct cpuid_recording rec = load(FIX "kvm-hv-time-frequencies.txt");
	const struct hv_info *h;

	/* hv-vendor-id=Linux KVM Hv */
	for (size_t i = 0; i < rec.count; i++) {
		if (recs[i].leaf != 0x40000000)
			continue;
		recs[i].ebx = 0x756e694c;	/* "Linu" */
		recs[i].ecx = 0x564b2078;	/* "x KV" */
		recs[i].edx = 0x7648204d;	/* "M Hv" */
	}
	h = decode(&rec);
	CHECK_STR(h->ranges[0].signature, "Linux KVM Hv");
	CHECK_STR(h->ranges[0].name, "hyperv");
	CHECK(h->hyperv.found && h->hyperv.interface_hv1);
	CHECK(!h->hyperv.vendor_microsoft);
	CHECK(!h->hyperv.linux_detects);
	CHECK(h->hyperv.tsc_page);
}

TEST(real_hyperv_privileges)
{
	struct cpuid_recording rec = load(FIX "hyperv.txt");
	const struct hv_info *h = decode(&rec);

	CHECK_EQ_U64(h->range_count, 1);
	CHECK_STR(h->name, "hyperv");
	CHECK_EQ_U64(h->hyperv.max_leaf, 0x4000000b);
	CHECK(h->hyperv.linux_detects);
	CHECK_EQ_U64(h->hyperv.privileges_eax, 0xaaff);
	CHECK_EQ_U64(h->hyperv.privileges_ebx, 0x30);
	CHECK(h->hyperv.access_vp_runtime && h->hyperv.ref_counter);
	CHECK(h->hyperv.tsc_page && h->hyperv.frequency_msrs);
	CHECK(h->hyperv.tsc_invariant_control);
	CHECK(!h->kvm.found && !h->timing.valid);
}

/* Real Hyper-V CPUID recorded by InstLatx64 on Windows hosts with
 * Hyper-V on (tests/fixtures/cpuid/hyperv-root-*.txt, converted by
 * instlat2rec.py): root partitions, 0x40000003 EBX[0] CreatePartitions
 * set, no isolation (EBX[22] clear).  Expected bits read off the dumps'
 * 0x40000003 lines: EAX 0x3fff / 0xbfff / 0x1fff, EDX bit 8 set in all. */
TEST(real_hyperv_root_partitions)
{
	static const struct {
		const char *file;
		uint32_t eax, ebx, max_leaf;
		bool invariant_control;
	} roots[] = {
		{ FIX "hyperv-root-zen-2016.txt", 0x3fff, 0x2bb9ff, 0x4000000a, false },
		{ FIX "hyperv-root-icx-2022.txt", 0xbfff, 0x2bb9ff, 0x4000000c, true },
		{ FIX "hyperv-root-beckton-2012r2.txt", 0x1fff, 0x39ff, 0x40000006, false },
	};
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
		struct cpuid_recording rec = load(roots[i].file);
		const struct hv_info *h = decode(&rec);
		CHECK(h->present);
		CHECK_STR(h->name, "hyperv");
		CHECK_EQ_U64(h->range_count, 1);
		CHECK_EQ_U64(h->hyperv.max_leaf, roots[i].max_leaf);
		CHECK(h->hyperv.linux_detects && h->hyperv.interface_hv1);
		CHECK_EQ_U64(h->hyperv.privileges_eax, roots[i].eax);
		CHECK_EQ_U64(h->hyperv.privileges_ebx, roots[i].ebx);
		CHECK(h->hyperv.root_partition);
		CHECK(!h->hyperv.isolated);
		CHECK(h->hyperv.ref_counter && h->hyperv.tsc_page && h->hyperv.frequency_msrs);
		CHECK_EQ_U64(h->hyperv.tsc_invariant_control, roots[i].invariant_control);
	}
}

/* An isolated guest, from the constructed Hyper-V set with HV_ISOLATION
 * (EBX[22]) and the isolation leaf 0x4000000C added as Linux's
 * hyperv-tlfs.h lays it out: EAX[0] paravisor, EBX[3:0] type 3 (TDX);
 * the max leaf raised to cover it. */
TEST(hyperv_isolation_leaf)
{
	struct cpuid_recording rec = load(FIX "hyperv.txt");
	for (size_t i = 0; i < rec.count; i++) {
		if (recs[i].leaf == 0x40000003)
			recs[i].ebx |= 1u << 22;
		if (recs[i].leaf == 0x40000000)
			recs[i].eax = 0x4000000c; /* the leaf must be in range */
	}
	drop_leaf(&rec, 0x4000000c);
	add(&rec, (struct cpuid_record){ 0x4000000c, 0, 0, 3, 0, 0 });
	const struct hv_info *h = decode(&rec);
	CHECK(h->hyperv.isolated);
	CHECK_EQ_U64(h->hyperv.isolation_type, 3);
	CHECK(!h->hyperv.paravisor);
	CHECK(!h->hyperv.root_partition);
	recs[rec.count - 1].eax = 1;
	h = decode(&rec);
	CHECK(h->hyperv.paravisor);
}

TEST(vmware_timing_leaf)
{
	struct cpuid_recording rec = load(FIX "vmware.txt");
	const struct hv_info *h = decode(&rec);

	CHECK_EQ_U64(h->range_count, 1);
	CHECK_STR(h->name, "vmware");
	CHECK_STR(h->signature, "VMwareVMware");
	CHECK(h->timing.valid);
	CHECK_STR(h->timing.owner, "vmware");
	CHECK_EQ_U64(h->timing.tsc_khz, 2095078);
	CHECK_EQ_U64(h->timing.apic_khz, 66000);
}

TEST(timing_leaf_needs_nonzero_rate)
{
	struct cpuid_recording rec = load(FIX "vmware.txt");
	const struct hv_info *h;

	for (size_t i = 0; i < rec.count; i++)
		if (recs[i].leaf == 0x40000010)
			recs[i].eax = 0;
	h = decode(&rec);
	CHECK(!h->timing.valid);
}

TEST(xen_behind_viridian)
{
	struct cpuid_recording rec = load(FIX "xen-viridian.txt");
	const struct hv_info *h = decode(&rec);

	CHECK_EQ_U64(h->range_count, 2);
	CHECK_STR(h->name, "hyperv");
	CHECK_EQ_U64(h->max_leaf, 0x40000006);
	CHECK_STR(h->ranges[1].name, "xen");
	CHECK_STR(h->ranges[1].signature, "XenVMMXenVMM");
	CHECK(h->xen.found);
	CHECK_EQ_U64(h->xen.base, 0x40000100);
	CHECK_EQ_U64(h->xen.version, 0x00040011);
	CHECK(h->xen.tsc_leaf_valid);
	CHECK_EQ_U64(h->xen.tsc_flags, 2);
	CHECK_EQ_U64(h->xen.tsc_mode, 0);
	CHECK_EQ_U64(h->xen.tsc_khz, 2394454);
	/* EAX[11] without EDX[8]: Linux would not read the MSRs */
	CHECK(h->hyperv.ref_counter && h->hyperv.tsc_page);
	CHECK(!h->hyperv.frequency_msrs);
	CHECK(!h->timing.valid);
	CHECK(!h->kvm.found);
}

TEST(xen_short_block_has_no_tsc_leaf)
{
	struct cpuid_recording rec = load(FIX "xen-viridian.txt");
	const struct hv_info *h;

	for (size_t i = 0; i < rec.count; i++)
		if (recs[i].leaf == 0x40000100)
			recs[i].eax = 0x40000102;
	h = decode(&rec);
	CHECK(h->xen.found);
	CHECK(!h->xen.tsc_leaf_valid);
	CHECK_EQ_U64(h->xen.tsc_khz, 0);
	CHECK_EQ_U64(h->xen.version, 0x00040011);
}

TEST(kvm_off_hides_signature)
{
	struct cpuid_recording rec = load(FIX "kvm-off.txt");
	const struct hv_info *h = decode(&rec);
	uint32_t r[4];

	/* KVM answers 0x40000000 with leaf 0xD: not a signature */
	cpuid_replay(&rec, 0x40000000, 0, r);
	CHECK_EQ_U64(r[0], 0x2e7);
	CHECK(h->present);
	CHECK_EQ_U64(h->range_count, 0);
	CHECK_STR(h->name, "unknown");
	CHECK(!h->kvm.found && !h->timing.valid);
}

TEST(bare_metal_has_no_hypervisor)
{
	struct cpuid_recording rec = load(FIX "amd-epyc.txt");
	const struct hv_info *h = decode(&rec);

	CHECK(!h->present);
	CHECK(h->name == NULL);
	CHECK_EQ_U64(h->range_count, 0);
	rec = load(FIX "intel-skylake-client.txt");
	h = decode(&rec);
	CHECK(!h->present);
}

TEST(window_scan_bounds)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	const struct hv_info *h;

	/* the last block k = 255 is scanned, 0x40010000 is not */
	add(&rec, (struct cpuid_record){ 0x4000ff00, 0, 0x4000ff01, 0x4b4d564b, 0x564b4d56, 0x4d });
	add(&rec, (struct cpuid_record){ 0x40010000, 0, 0x40010001, 0x4b4d564b, 0x564b4d56, 0x4d });
	h = decode(&rec);
	CHECK_EQ_U64(h->range_count, 2);
	CHECK_EQ_U64(h->ranges[1].base, 0x4000ff00);
	CHECK(h->kvm.found);
	CHECK_EQ_U64(h->kvm.base, 0x4000ff00);
}

TEST(at_most_sixteen_ranges)
{
	struct cpuid_recording rec = load(FIX "tcg-max.txt");
	const struct hv_info *h;

	for (uint32_t k = 1; k <= 20; k++) {
		uint32_t base = 0x40000000 + k * 0x100;

		add(&rec, (struct cpuid_record){ base, 0, base + 1, 0x4b4d564b, 0x564b4d56, 0x4d });
	}
	h = decode(&rec);
	CHECK_EQ_U64(h->range_count, HV_MAX_RANGES);
	CHECK_EQ_U64(h->ranges[15].base, 0x40000f00);
}

static const char *name_of(const char *sig12)
{
	return hypervisor_name_for_signature((const uint8_t *)sig12);
}

TEST(signature_table)
{
	CHECK_STR(name_of("KVMKVMKVM\0\0\0"), "kvm");
	CHECK_STR(name_of("Microsoft Hv"), "hyperv");
	CHECK_STR(name_of("VMwareVMware"), "vmware");
	CHECK_STR(name_of("XenVMMXenVMM"), "xen");
	CHECK_STR(name_of("TCGTCGTCGTCG"), "tcg");
	CHECK_STR(name_of("bhyve bhyve "), "bhyve");
	CHECK_STR(name_of("VBoxVBoxVBox"), "virtualbox");
	CHECK_STR(name_of(" lrpepyh  vr"), "parallels");
	CHECK_STR(name_of("prl hyperv  "), "parallels");
	CHECK_STR(name_of("ACRNACRNACRN"), "acrn");
	CHECK_STR(name_of(" QNXQVMBSQG "), "qnx");
	CHECK_STR(name_of("KVMKVMKVMKVM"), "unknown");
	CHECK_STR(name_of("bhyve bhyve\0"), "unknown");
	CHECK_EQ_U64(hypervisor_kind_for_signature((const uint8_t *)"XenVMMXenVMM"),
		     HV_KIND_XEN);
}

TEST(printable_signature)
{
	const uint8_t raw[12] = { 'A', 0, 0x01, 'B', 0x7f, ' ', 'C', 0, 0, 0, 0xff, 'D' };
	char out[13];

	hypervisor_printable_signature(raw, out);
	CHECK_STR(out, "A?B? C?D");
	hypervisor_printable_signature((const uint8_t *)"KVMKVMKVM\0\0\0", out);
	CHECK_STR(out, "KVMKVMKVM");
}
