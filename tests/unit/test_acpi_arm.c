/* The arm64 ACPI decoder (src/decode/acpi_arm.c) on the FADT and GTDT
 * QEMU 7.2's -machine virt gives AAVMF (tests/fixtures/arm64/qemu72-virt-
 * {fadt,gtdt}.bin, taken from the arm64 probe's report, arm64.acpi.*_raw),
 * and on those tables cut short or with their flags changed; and the
 * translation table walk (src/decode/arm64_pt.c) on tables built here. */
#include "check.h"
#include "acpi_arm.h"
#include "arm64.h"
#include "arm64_pt.h"
#include <stdlib.h>

TEST(fadt_of_qemu_virt_names_psci_over_hvc)
{
	size_t n;
	uint8_t *f = read_fixture("tests/fixtures/arm64/qemu72-virt-fadt.bin", &n);
	CHECK(!memcmp(f, "FACP", 4));
	struct acpi_arm_boot b;
	acpi_arm_boot_decode(f, (uint32_t)n, &b);
	CHECK(b.present);
	/* hw/arm/virt-acpi-build.c: PSCI_COMPLIANT | PSCI_USE_HVC without EL2/EL3. */
	CHECK_EQ_U64(b.flags, 3);
	CHECK(b.psci);
	CHECK_EQ_U64(b.conduit, ACPI_ARM_CONDUIT_HVC);
	CHECK_STR(acpi_arm_conduit_name(b.conduit), "hvc");
	CHECK(b.reason == NULL);
	free(f);
}

TEST(fadt_flags_choose_the_conduit)
{
	size_t n;
	uint8_t *f = read_fixture("tests/fixtures/arm64/qemu72-virt-fadt.bin", &n);
	struct acpi_arm_boot b;
	f[129] = 1; /* PSCI, no HVC: SMC (firmware at EL3) */
	acpi_arm_boot_decode(f, (uint32_t)n, &b);
	CHECK_EQ_U64(b.conduit, ACPI_ARM_CONDUIT_SMC);
	f[129] = 2; /* HVC set but not PSCI compliant: no conduit at all */
	acpi_arm_boot_decode(f, (uint32_t)n, &b);
	CHECK(!b.psci);
	CHECK_EQ_U64(b.conduit, ACPI_ARM_CONDUIT_NONE);
	CHECK(b.reason != NULL);
	/* A FADT that ends before ARM_BOOT_ARCH (ACPI 5.0 and older). */
	acpi_arm_boot_decode(f, 130, &b);
	CHECK(!b.present);
	CHECK_EQ_U64(b.conduit, ACPI_ARM_CONDUIT_NONE);
	acpi_arm_boot_decode(NULL, 0, &b);
	CHECK(!b.present);
	free(f);
}

TEST(gtdt_of_qemu_virt)
{
	size_t n;
	uint8_t *g = read_fixture("tests/fixtures/arm64/qemu72-virt-gtdt.bin", &n);
	struct acpi_gtdt_info t;
	acpi_gtdt_decode(g, (uint32_t)n, &t);
	CHECK(t.present);
	CHECK(!memcmp(t.oem_id, "BOCHS ", 6));
	CHECK(!memcmp(t.oem_table_id, "BXPC    ", 8));
	CHECK_EQ_U64(t.oem_revision, 1);
	/* virt's virtual timer is PPI 11, GSIV 27; no memory-mapped counter. */
	CHECK_EQ_U64(t.virtual_el1_gsiv, 27);
	CHECK_EQ_U64(t.cnt_control_base, UINT64_MAX);
	/* QEMU's ids match no erratum Linux keys on the GTDT. */
	CHECK_EQ_U64(arm64_errata_from_acpi_oem(t.oem_id, t.oem_table_id, t.oem_revision), 0);
	acpi_gtdt_decode(g, 95, &t);
	CHECK(!t.present);
	free(g);
}

/* ------------------------------------------------- translation walk */

/* Physical memory of the test: 4 KiB tables at 0x1000, 0x2000, ... */
static uint64_t mem[8][512];
static bool rd(void *ctx, uint64_t phys, uint64_t *v)
{
	(void)ctx;
	if (phys < 0x1000 || phys >= 0x1000 * 9 || (phys & 7))
		return false;
	*v = mem[(phys - 0x1000) / 0x1000][(phys & 0xfff) / 8];
	return true;
}

#define TCR_4K_T0SZ(n) ((uint64_t)(n))
/* MAIR: attr0 Device-nGnRnE (0x00), attr1 Normal write-back (0xff). */
#define MAIR 0xff00ull

TEST(walk_finds_a_device_block_and_a_normal_page)
{
	memset(mem, 0, sizeof mem);
	/* T0SZ 16: 48-bit input, start at level 0 (table at 0x1000). */
	mem[0][0] = 0x2000 | 3;			/* L0[0] -> L1 at 0x2000 */
	mem[1][0] = 0x3000 | 3;			/* L1[0] -> L2 at 0x3000 */
	mem[2][72] = 0x09000000 | (0 << 2) | 1;	/* L2[72]: 2 MiB block at 0x09000000, attr 0 */
	mem[2][0] = 0x4000 | 3;			/* L2[0] -> L3 at 0x4000 */
	mem[3][5] = 0x5000 | (1 << 2) | 3;	/* L3[5]: page 0x5000, attr 1 */
	struct arm64_pt_walk w;
	arm64_pt_walk(TCR_4K_T0SZ(16), 0x1000, MAIR, true, 0x09000000, rd, NULL, &w);
	CHECK(w.mapped);
	CHECK_EQ_U64(w.level, 2);
	CHECK_EQ_U64(w.pa, 0x09000000);
	CHECK(w.device);
	arm64_pt_walk(TCR_4K_T0SZ(16), 0x1000, MAIR, true, 0x09010abc, rd, NULL, &w);
	CHECK(w.mapped);
	CHECK_EQ_U64(w.pa, 0x09010abc);
	arm64_pt_walk(TCR_4K_T0SZ(16), 0x1000, MAIR, true, 0x5008, rd, NULL, &w);
	CHECK(w.mapped);
	CHECK_EQ_U64(w.level, 3);
	CHECK_EQ_U64(w.pa, 0x5008);
	CHECK(!w.device);
	CHECK_EQ_U64(w.mair_attr, 0xff);
	/* Unmapped: an invalid L2 entry, and an invalid L3 entry. */
	arm64_pt_walk(TCR_4K_T0SZ(16), 0x1000, MAIR, true, 0x0a000000, rd, NULL, &w);
	CHECK(!w.mapped);
	CHECK(w.reason != NULL);
	arm64_pt_walk(TCR_4K_T0SZ(16), 0x1000, MAIR, true, 0x6000, rd, NULL, &w);
	CHECK(!w.mapped);
}

TEST(walk_starts_at_the_level_t0sz_gives_and_refuses_what_it_cannot_walk)
{
	memset(mem, 0, sizeof mem);
	/* T0SZ 25: 39-bit input, start at level 1 (table at 0x1000). */
	mem[0][1] = 0x40000000 | (1 << 2) | 1;	/* L1[1]: 1 GiB block at 1 GiB */
	struct arm64_pt_walk w;
	arm64_pt_walk(TCR_4K_T0SZ(25), 0x1000, MAIR, true, 0x40001234, rd, NULL, &w);
	CHECK(w.mapped);
	CHECK_EQ_U64(w.level, 1);
	CHECK_EQ_U64(w.pa, 0x40001234);
	/* Above the 39-bit input range. */
	arm64_pt_walk(TCR_4K_T0SZ(25), 0x1000, MAIR, true, 1ull << 40, rd, NULL, &w);
	CHECK(!w.mapped);
	/* A table outside readable memory. */
	arm64_pt_walk(TCR_4K_T0SZ(25), 0x100000, MAIR, true, 0x40001234, rd, NULL, &w);
	CHECK(!w.mapped);
	/* 64 KiB granule (TG0 = 0b01), EPD0: not walked. */
	arm64_pt_walk(TCR_4K_T0SZ(25) | 1u << 14, 0x1000, MAIR, true, 0x40001234, rd, NULL, &w);
	CHECK(!w.mapped);
	arm64_pt_walk(TCR_4K_T0SZ(25) | 1u << 7, 0x1000, MAIR, true, 0x40001234, rd, NULL, &w);
	CHECK(!w.mapped);
	/* A level-0 block is reserved with 4 KiB pages. */
	mem[0][0] = 0x0 | 1;
	arm64_pt_walk(TCR_4K_T0SZ(16), 0x1000, MAIR, true, 0x1234, rd, NULL, &w);
	CHECK(!w.mapped);
	/* MMU off: flat and Device. */
	arm64_pt_walk(0, 0, 0, false, 0x09000000, rd, NULL, &w);
	CHECK(w.mapped && w.device);
	CHECK_EQ_U64(w.pa, 0x09000000);
}

TEST(madt_gicc_of_qemu_virt_smp4)
{
	size_t n;
	uint8_t *m = read_fixture("tests/fixtures/arm64/qemu72-virt-smp4-madt.bin", &n);
	CHECK(!memcmp(m, "APIC", 4));
	struct acpi_madt_gicc g[8];
	uint32_t total = 0;
	uint32_t got = acpi_madt_gicc_list(m, (uint32_t)n, g, 8, &total);
	/* -smp 4: four GICC entries, MPIDRs 0..3 (Aff0), all enabled. */
	CHECK_EQ_U64(got, 4);
	CHECK_EQ_U64(total, 4);
	for (uint32_t i = 0; i < got; i++) {
		CHECK_EQ_U64(g[i].mpidr, i);
		CHECK_EQ_U64(g[i].uid, i);
		CHECK(g[i].flags & ACPI_GICC_ENABLED);
	}
	/* Fewer slots than entries: stored and counted apart. */
	got = acpi_madt_gicc_list(m, (uint32_t)n, g, 2, &total);
	CHECK_EQ_U64(got, 2);
	CHECK_EQ_U64(total, 4);
	/* An entry with length 0 ends the walk instead of looping. */
	m[45] = 0;
	got = acpi_madt_gicc_list(m, (uint32_t)n, g, 8, &total);
	CHECK_EQ_U64(total, 0);
	free(m);
}
