/* arm64 CPU identification and the counter errata Linux works around,
 * from recorded register values (include/arm64.h).  The erratum tables
 * follow Linux: drivers/clocksource/arm_arch_timer.c ool_workarounds[]
 * (how each is matched) and arch/arm64/kernel/cpu_errata.c
 * erratum_1418040_list[]; which releases carry each and what it does to
 * the vDSO is the verdict's business (src/verdict/arm64.c,
 * docs/verdict-rules.md "arm64"). */
#include "arm64.h"
#include "util.h"

void arm64_midr_decode(uint32_t midr, struct arm64_midr *out)
{
	out->implementer = (uint8_t)(midr >> 24);
	out->variant = (uint8_t)((midr >> 20) & 0xf);
	out->architecture = (uint8_t)((midr >> 16) & 0xf);
	out->part = (uint16_t)((midr >> 4) & 0xfff);
	out->revision = (uint8_t)(midr & 0xf);
}

#define IMP_ARM 0x41
#define IMP_HISI 0x48
#define IMP_QCOM 0x51
#define IMP_FUJITSU 0x46
#define IMP_AMPERE 0xc0
#define IMP_APPLE 0x61

/* Parts named in reports; QEMU's own models among them (cortex-a53, -a57,
 * -a72, -a76, neoverse-n1, a64fx).  Part numbers: Linux's
 * arch/arm64/include/asm/cputype.h. */
static const struct {
	uint8_t imp;
	uint16_t part;
	const char *name;
} parts[] = {
	{IMP_ARM, 0xd03, "Arm Cortex-A53"},	  {IMP_ARM, 0xd04, "Arm Cortex-A35"},
	{IMP_ARM, 0xd05, "Arm Cortex-A55"},	  {IMP_ARM, 0xd07, "Arm Cortex-A57"},
	{IMP_ARM, 0xd08, "Arm Cortex-A72"},	  {IMP_ARM, 0xd09, "Arm Cortex-A73"},
	{IMP_ARM, 0xd0a, "Arm Cortex-A75"},	  {IMP_ARM, 0xd0b, "Arm Cortex-A76"},
	{IMP_ARM, 0xd0c, "Arm Neoverse-N1"},	  {IMP_ARM, 0xd0d, "Arm Cortex-A77"},
	{IMP_ARM, 0xd40, "Arm Neoverse-V1"},	  {IMP_ARM, 0xd49, "Arm Neoverse-N2"},
	{IMP_ARM, 0xd4f, "Arm Neoverse-V2"},	  {IMP_ARM, 0xd84, "Arm Neoverse-V3"},
	{IMP_ARM, 0xd8e, "Arm Neoverse-N3"},	  {IMP_HISI, 0xd01, "HiSilicon TSV110"},
	{IMP_QCOM, 0x804, "Qualcomm Kryo 4xx Gold"}, {IMP_FUJITSU, 0x001, "Fujitsu A64FX"},
	{IMP_AMPERE, 0xac3, "Ampere-1"},	  {IMP_AMPERE, 0xac4, "Ampere-1A"},
};

const char *arm64_midr_name(uint32_t midr)
{
	struct arm64_midr m;
	arm64_midr_decode(midr, &m);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i].imp == m.implementer && parts[i].part == m.part)
			return parts[i].name;
	return NULL;
}

static const char *const erratum_names[ARM64_ERRATA_COUNT] = {
	"Freescale erratum A-008585", "HiSilicon erratum 161010101", "ARM erratum 858921",
	"Allwinner erratum UNKNOWN1", "ARM erratum 1418040",
};
static const char *const erratum_codes[ARM64_ERRATA_COUNT] = {
	"fsl_a008585", "hisi_161010101", "arm_858921", "sun50i_unknown1", "arm_1418040",
};

const char *arm64_erratum_name(unsigned bit_index)
{
	return bit_index < ARM64_ERRATA_COUNT ? erratum_names[bit_index] : NULL;
}

const char *arm64_erratum_code(unsigned bit_index)
{
	return bit_index < ARM64_ERRATA_COUNT ? erratum_codes[bit_index] : NULL;
}

/* variant:revision as one number, so an rNpM range is one comparison
 * (Linux's MIDR_RANGE does the same on the MIDR's low bits). */
static unsigned rnpm(const struct arm64_midr *m)
{
	return (unsigned)m->variant << 4 | m->revision;
}

uint32_t arm64_errata_from_midr(uint32_t midr)
{
	struct arm64_midr m;
	uint32_t e = 0;

	arm64_midr_decode(midr, &m);
	/* 858921: MIDR_ALL_VERSIONS(MIDR_CORTEX_A73), a per-CPU
	 * (ate_match_local_cap_id) workaround. */
	if (m.implementer == IMP_ARM && m.part == 0xd09)
		e |= ARM64_ERRATUM_ARM_858921;
	/* 1418040 (with 1188873): Cortex-A76 and Neoverse-N1 r0p0..r3p1,
	 * Kryo4xx Gold rcpe..rfpf. */
	if (m.implementer == IMP_ARM && (m.part == 0xd0b || m.part == 0xd0c) && rnpm(&m) <= 0x31)
		e |= ARM64_ERRATUM_ARM_1418040;
	if (m.implementer == IMP_QCOM && m.part == 0x804 && rnpm(&m) >= 0xce && rnpm(&m) <= 0xff)
		e |= ARM64_ERRATUM_ARM_1418040;
	return e;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

uint32_t arm64_errata_from_dt_property(const char *name)
{
	/* The ate_match_dt() ids of ool_workarounds[]. */
	static const struct {
		const char *prop;
		uint32_t bit;
	} props[] = {
		{"fsl,erratum-a008585", ARM64_ERRATUM_FSL_A008585},
		{"hisilicon,erratum-161010101", ARM64_ERRATUM_HISI_161010101},
		{"allwinner,erratum-unknown1", ARM64_ERRATUM_SUN50I_UNKNOWN1},
	};
	if (!name)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(props); i++)
		if (str_eq(name, props[i].prop))
			return props[i].bit;
	return 0;
}

uint32_t arm64_errata_from_acpi_oem(const char oem_id[6], const char oem_table_id[8], uint32_t oem_revision)
{
	/* hisi_161010101_oem_info[]: HISI's HIP05, HIP06, HIP07, revision 0,
	 * compared with memcmp over the full padded fields. */
	static const char *const tables[] = {"HIP05   ", "HIP06   ", "HIP07   "};
	if (!oem_id || !oem_table_id || oem_revision != 0)
		return 0;
	for (size_t k = 0; k < 6; k++)
		if (oem_id[k] != "HISI  "[k])
			return 0;
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		size_t k = 0;
		while (k < 8 && oem_table_id[k] == tables[i][k])
			k++;
		if (k == 8)
			return ARM64_ERRATUM_HISI_161010101;
	}
	return 0;
}

void arm64_ecv_decode(uint64_t id_aa64mmfr0, struct arm64_ecv *out)
{
	out->level = (uint8_t)((id_aa64mmfr0 >> 60) & 0xf);
	out->cntvctss = out->level >= 1;
	out->cntpoff = out->level >= 2;
}

/* |a - b| * 10^6 / b, signed, without overflow for counter rates. */
static int64_t ppm_of(uint64_t measured, uint64_t ref)
{
	uint64_t d = measured > ref ? measured - ref : ref - measured;
	uint64_t u = mul_div_u64(d, 1000000, ref);
	/* mul_div_u64 saturates at UINT64_MAX: keep the sign's meaning. */
	int64_t p = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	return measured >= ref ? p : -p;
}

void arm64_cntfrq_judge(const uint64_t *per_cpu, size_t n, uint64_t dt_clock_frequency,
			uint64_t measured_hz, uint64_t measured_uncertainty_ppm,
			struct arm64_cntfrq_check *out)
{
	*out = (struct arm64_cntfrq_check){0};
	if (n == 0 || !per_cpu)
		return;
	out->hz = per_cpu[0];
	out->zero = per_cpu[0] == 0;
	for (size_t i = 1; i < n; i++)
		if (per_cpu[i] != per_cpu[0])
			out->differs_across_cpus = true;
	/* arch_timer_detect_rate(): a DT "clock-frequency" wins over the
	 * register (the binding's escape hatch for firmware that never set
	 * CNTFRQ); under ACPI the register is all there is. */
	out->firmware_overrides = dt_clock_frequency != 0;
	out->linux_hz = dt_clock_frequency ? dt_clock_frequency : per_cpu[0];
	if (measured_hz && out->linux_hz) {
		out->measured = true;
		out->measured_ppm = ppm_of(measured_hz, out->linux_hz);
		int64_t a = out->measured_ppm < 0 ? -out->measured_ppm : out->measured_ppm;
		out->measured_disagrees = (uint64_t)a > measured_uncertainty_ppm;
	}
}
