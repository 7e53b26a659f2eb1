/* CPUID decoding on leaves recorded from system-mode QEMU TCG by the probe
 * itself (tests/fixtures/cpuid/capture-system.py).  Every expectation is
 * decoded by hand from the hex in the fixture, quoted next to it. */
#include "check.h"
#include "cpuid.h"
#include "hypervisor.h"
#include <stdlib.h>

static struct cpuid_record recs[CPUID_RECORD_MAX];

static void decode_fixture(const char *name, struct cpu_info *cpu, struct hv_info *hv)
{
	char path[128];
	size_t len;
	struct cpuid_recording rec;
	snprintf(path, sizeof path, "tests/fixtures/cpuid/tcg-system-%s.txt", name);
	char *text = read_fixture(path, &len);
	if (!cpuid_recording_parse(&rec, recs, CPUID_RECORD_MAX, text, len))
		check_fail(__FILE__, __LINE__, "cannot parse %s", path);
	free(text);
	cpuid_decode(cpu, cpuid_replay, &rec);
	hypervisor_decode(hv, cpu, cpuid_replay, &rec);
}

/* Common to every TCG model: 0x40000000 = 40000001 54474354 43544743
 * 47435447 ("TCGTCGTCGTCG"), 0x80000007 EDX = 0 (TCG refuses invtsc), max
 * basic leaf 0xd (so 0x15/0x16 are clamped, never a TSC rate). */
static void check_tcg_common(const struct cpu_info *cpu, const struct hv_info *hv)
{
	CHECK(hv->present);
	CHECK_EQ_U64(hv->range_count, 1);
	CHECK_STR(hv->name, "tcg");
	CHECK_STR(hv->signature, "TCGTCGTCGTCG");
	CHECK_EQ_U64(hv->max_leaf, 0x40000001);
	CHECK(!hv->timing.valid);
	CHECK(!hv->kvm.found);
	CHECK(!hv->hyperv.found);
	CHECK(!cpu->invariant_tsc);
	CHECK(cpu->tsc);
	CHECK(cpu->hypervisor_bit);
	CHECK_EQ_U64(cpu->max_basic, 0xd);
	CHECK(!cpu->leaf15.valid);
	CHECK(!cpu->leaf16.valid);
	/* leaf 0xb: both levels shift 0 (EAX[4:0] = 0) -> one CPU per package */
	CHECK_EQ_U64(cpu->package_shift, 0);
}

TEST(tcg_system_qemu64)
{
	struct cpu_info cpu;
	struct hv_info hv;
	decode_fixture("qemu64", &cpu, &hv);
	check_tcg_common(&cpu, &hv);
	CHECK_STR(cpu.vendor, "AuthenticAMD");
	CHECK(cpu.is_amd);
	/* 1.EAX 00060fb1: family 0xf, ext model 6, model 0xb -> 15 / 0x6b / 1 */
	CHECK_EQ_U64(cpu.family, 15);
	CHECK_EQ_U64(cpu.model, 0x6b);
	CHECK_EQ_U64(cpu.stepping, 1);
	/* 0x80000001 EDX 2193fbfd: bit 27 clear -> no RDTSCP */
	CHECK(!cpu.rdtscp);
	/* 1.ECX 80002001: bit 24 clear -> no TSC-deadline */
	CHECK(!cpu.tsc_deadline);
	CHECK(!cpu.tsc_adjust); /* 7.EBX = 0 */
}

TEST(tcg_system_max)
{
	struct cpu_info cpu;
	struct hv_info hv;
	decode_fixture("max", &cpu, &hv);
	check_tcg_common(&cpu, &hv);
	CHECK_STR(cpu.vendor, "AuthenticAMD");
	/* 0x80000001 EDX edd3fbfd: 0xed has bit 3 (27) set -> RDTSCP */
	CHECK(cpu.rdtscp);
	/* 7.EBX 01d843a9: bit 1 clear -> no TSC_ADJUST */
	CHECK(!cpu.tsc_adjust);
}

TEST(tcg_system_skylake_server)
{
	struct cpu_info cpu;
	struct hv_info hv;
	decode_fixture("skylake-server", &cpu, &hv);
	check_tcg_common(&cpu, &hv);
	CHECK_STR(cpu.vendor, "GenuineIntel");
	CHECK(cpu.is_intel);
	/* 1.EAX 00050654: family 6, ext model 5, model 5 -> 6 / 0x55 / 4 */
	CHECK_EQ_U64(cpu.family, 6);
	CHECK_EQ_U64(cpu.model, 0x55);
	CHECK_EQ_U64(cpu.stepping, 4);
	/* 0x80000001 EDX 2c100800: 0x2c has bit 3 (27) set */
	CHECK(cpu.rdtscp);
	/* Intel family 6 model >= 0x0e: Linux sets CONSTANT_TSC from the
	 * model alone (intel.c), NONSTOP only from the invariant bit */
	CHECK(cpu.constant_tsc);
	CHECK(!cpu.nonstop_tsc);
}

TEST(tcg_system_epyc)
{
	struct cpu_info cpu;
	struct hv_info hv;
	decode_fixture("epyc", &cpu, &hv);
	check_tcg_common(&cpu, &hv);
	CHECK_STR(cpu.vendor, "AuthenticAMD");
	/* 1.EAX 00800f12: family 0xf + ext family 8 = 0x17, model 1, step 2 */
	CHECK_EQ_U64(cpu.family, 0x17);
	CHECK_EQ_U64(cpu.model, 1);
	CHECK_EQ_U64(cpu.stepping, 2);
	/* 0x80000001 EDX 2dd3fbfd: 0x2d has bit 3 (27) set */
	CHECK(cpu.rdtscp);
	CHECK(!cpu.constant_tsc);
}
