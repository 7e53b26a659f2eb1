/* The GIC's pure logic (src/decode/arm64_gic.c) and the MADT's GIC
 * entries (src/decode/acpi_arm.c): on QEMU 7.2 virt's MADT
 * (tests/fixtures/arm64/qemu72-virt-smp4-madt.bin, GICv2) and on
 * redistributor frames laid out as QEMU's GICv3 lays them out
 * (hw/intc/arm_gicv3_common.c: GICR_TYPER = affinity << 32 | processor
 * number << 8 | Last << 4; GICR_PIDR2 0x3b), read through a fake MMIO
 * reader that refuses what the probe would refuse. */
#include "check.h"
#include "acpi_arm.h"
#include "arm64_gic.h"
#include <stdlib.h>

TEST(madt_gic_entries_of_qemu_virt_gicv2)
{
	size_t n;
	uint8_t *m = read_fixture("tests/fixtures/arm64/qemu72-virt-smp4-madt.bin", &n);
	struct acpi_madt_gic g;
	acpi_madt_gic_decode(m, (uint32_t)n, &g);
	/* hw/arm/virt.c: VIRT_GIC_DIST 0x08000000, VIRT_GIC_CPU 0x08010000. */
	CHECK_EQ_U64(g.gicd_count, 1);
	CHECK_EQ_U64(g.gicd_base, 0x08000000);
	CHECK_EQ_U64(g.version, 2);
	CHECK_EQ_U64(g.gicr_count, 0);
	struct acpi_madt_gicc c[4];
	uint32_t total;
	CHECK_EQ_U64(acpi_madt_gicc_list(m, (uint32_t)n, c, 4, &total), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_U64(c[i].gicc_base, 0x08010000);
		CHECK_EQ_U64(c[i].gicr_base, 0);
	}
	/* Cut inside the GICD entry (header 44 + 24): no GICD seen. */
	acpi_madt_gic_decode(m, 44 + 23, &g);
	CHECK_EQ_U64(g.gicd_count, 0);
	acpi_madt_gic_decode(NULL, 0, &g);
	CHECK_EQ_U64(g.gicd_count, 0);
	free(m);
}

/* -machine virt,gic-version=3 (tests/fixtures/arm64/qemu72-virt-gicv3-
 * smp4-madt.bin, from the probe's report): GICD version 3, no GICC
 * interface or redistributor bases, one GICR range (VIRT_GIC_REDIST). */
TEST(madt_gic_entries_of_qemu_virt_gicv3)
{
	size_t n;
	uint8_t *m = read_fixture("tests/fixtures/arm64/qemu72-virt-gicv3-smp4-madt.bin", &n);
	CHECK(!memcmp(m, "APIC", 4));
	struct acpi_madt_gic g;
	acpi_madt_gic_decode(m, (uint32_t)n, &g);
	CHECK_EQ_U64(g.gicd_count, 1);
	CHECK_EQ_U64(g.gicd_base, 0x08000000);
	CHECK_EQ_U64(g.version, 3);
	CHECK_EQ_U64(g.gicr_count, 1);
	CHECK_EQ_U64(g.gicr[0].base, 0x080a0000);
	CHECK_EQ_U64(g.gicr[0].length, 0xf60000);
	struct acpi_madt_gicc c[4];
	uint32_t total;
	CHECK_EQ_U64(acpi_madt_gicc_list(m, (uint32_t)n, c, 4, &total), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_U64(c[i].gicc_base, 0);
		CHECK_EQ_U64(c[i].gicr_base, 0);
		CHECK_EQ_U64(c[i].mpidr, (uint64_t)i);
	}
	free(m);
}

/* A GICR entry appended: base and length little-endian at 4 and 12. */
TEST(madt_gicr_range_decoded)
{
	size_t n;
	uint8_t *m = read_fixture("tests/fixtures/arm64/qemu72-virt-smp4-madt.bin", &n);
	uint8_t *t = calloc(1, n + 16);
	memcpy(t, m, n);
	uint8_t gicr[16] = {0x0e, 16, 0, 0, 0x00, 0x00, 0x0a, 0x08, 0, 0, 0, 0, 0x00, 0x00, 0xf6, 0x00};
	memcpy(t + n, gicr, 16);
	struct acpi_madt_gic g;
	acpi_madt_gic_decode(t, (uint32_t)n + 16, &g);
	CHECK_EQ_U64(g.gicr_count, 1);
	CHECK_EQ_U64(g.gicr[0].base, 0x080a0000);
	CHECK_EQ_U64(g.gicr[0].length, 0xf60000);
	free(t);
	free(m);
}

TEST(version_from_madt_and_pidr2)
{
	unsigned v;
	CHECK_EQ_U64(gic_pidr2_arch_rev(0x2b), 2); /* QEMU's GICv2 GICD_PIDR2 */
	CHECK_EQ_U64(gic_pidr2_arch_rev(0x3b), 3); /* QEMU's GICv3 GICD/GICR_PIDR2 */
	CHECK(gic_version_check(2, 2, &v) == NULL);
	CHECK_EQ_U64(v, 2);
	CHECK(gic_version_check(3, 3, &v) == NULL);
	CHECK_EQ_U64(v, 3);
	CHECK(gic_version_check(4, 4, &v) == NULL);
	CHECK_EQ_U64(v, 3); /* GICv4 is driven as GICv3 */
	CHECK(gic_version_check(0, 3, &v) == NULL); /* unstated: the hardware's */
	CHECK_EQ_U64(v, 3);
	CHECK(gic_version_check(3, 2, &v) != NULL); /* disagree */
	CHECK_EQ_U64(v, 0);
	CHECK(gic_version_check(2, 0, &v) != NULL); /* nothing there (RAZ) */
	CHECK(gic_version_check(0, 0xf, &v) != NULL); /* all ones: no device */
	CHECK(gic_version_check(1, 1, &v) != NULL); /* GICv1 refused */
}

TEST(version_from_devicetree_and_pidr2)
{
	unsigned v = 9;
	CHECK(gic_dt_version_check(2, 2, &v) == NULL);
	CHECK_EQ_U64(v, 2);
	CHECK(gic_dt_version_check(3, 3, &v) == NULL);
	CHECK_EQ_U64(v, 3);
	/* arm,gic-v3 is GICv4's compatible too. */
	CHECK(gic_dt_version_check(3, 4, &v) == NULL);
	CHECK_EQ_U64(v, 3);
	CHECK_STR(gic_dt_version_check(2, 3, &v),
		  "the devicetree's GIC compatible and the distributor's PIDR2 ArchRev disagree");
	CHECK_EQ_U64(v, 0);
	CHECK_STR(gic_dt_version_check(3, 2, &v),
		  "the devicetree's GIC compatible and the distributor's PIDR2 ArchRev disagree");
	/* A GICv1 behind a GICv2 compatible (arm,pl390), or no GIC at all. */
	CHECK(gic_dt_version_check(2, 1, &v) != NULL);
	CHECK_EQ_U64(v, 0);
	CHECK(gic_dt_version_check(2, 0, &v) != NULL);
	CHECK(gic_dt_version_check(3, 5, &v) != NULL);
}

TEST(affinity_packed_as_gicr_typer)
{
	/* Recorded: the probe's GICv3 boot found CPU 0x80000001's
	 * redistributor at 0x080c0000 with GICR_TYPER 0x101000101 (affinity
	 * 1, CommonLPIAff, processor 1, PLPIS; not Last, no VLPIS). */
	CHECK_EQ_U64(0x101000101ull >> 32, gic_affinity_of_mpidr(0x80000001ull));
	CHECK_EQ_U64(gic_redist_stride(0x101000101ull), 0x20000);
	CHECK(!(0x101000101ull & GICR_TYPER_LAST));
	CHECK_EQ_U64(gic_affinity_of_mpidr(0x80000003ull), 3); /* U/MT bits dropped */
	CHECK_EQ_U64(gic_affinity_of_mpidr(0x0000000a00030201ull), 0x0a030201);
	CHECK_EQ_U64(gic_redist_stride(0), 0x20000);
	CHECK_EQ_U64(gic_redist_stride(GICR_TYPER_VLPIS), 0x40000);
}

/* Fake redistributors: QEMU virt's GICv3 (or v4) frames for ncpu CPUs
 * from 0x080a0000; a read outside [0x080a0000, limit) is refused. */
struct fake_gicr {
	uint32_t ncpu;
	uint64_t stride, limit;
	uint32_t pidr2;
	uint32_t reads;
};
#define FAKE_BASE 0x080a0000ull

static bool fake_read(void *ctx, uint64_t addr, uint32_t *v, const char **why)
{
	struct fake_gicr *f = ctx;
	f->reads++;
	if (addr < FAKE_BASE || addr >= f->limit) {
		*why = "not proven";
		return false;
	}
	uint64_t cpu = (addr - FAKE_BASE) / f->stride, off = (addr - FAKE_BASE) % f->stride;
	*v = 0;
	if (cpu >= f->ncpu)
		return true; /* past the last: RAZ */
	uint64_t typer = cpu << 32 | cpu << 8 | (cpu + 1 == f->ncpu ? GICR_TYPER_LAST : 0) |
			 (f->stride == 0x40000 ? GICR_TYPER_VLPIS : 0);
	if (off == GICR_PIDR2)
		*v = f->pidr2;
	else if (off == GICR_TYPER)
		*v = (uint32_t)typer;
	else if (off == GICR_TYPER + 4)
		*v = (uint32_t)(typer >> 32);
	return true;
}

TEST(redistributor_found_by_affinity)
{
	struct fake_gicr f = {.ncpu = 4, .stride = 0x20000, .limit = FAKE_BASE + 0xf60000, .pidr2 = 0x3b};
	struct gic_redist r;
	gic_redist_find(FAKE_BASE, 0xf60000, 2, fake_read, &f, &r);
	CHECK(r.found);
	CHECK(r.reason == NULL);
	CHECK_EQ_U64(r.rd_base, FAKE_BASE + 2 * 0x20000);
	CHECK_EQ_U64(r.frames, 3);
	CHECK_EQ_U64(r.arch_rev, 3);
	CHECK_EQ_U64(r.typer >> 32, 2);
	/* GICv4 frames (VLPIS): 256 KiB apart. */
	f = (struct fake_gicr){.ncpu = 4, .stride = 0x40000, .limit = FAKE_BASE + 0xf60000, .pidr2 = 0x4b};
	gic_redist_find(FAKE_BASE, 0xf60000, 3, fake_read, &f, &r);
	CHECK(r.found);
	CHECK_EQ_U64(r.rd_base, FAKE_BASE + 3 * 0x40000);
	CHECK_EQ_U64(r.arch_rev, 4);
}

TEST(redistributor_walk_stops_where_it_must)
{
	struct fake_gicr f = {.ncpu = 4, .stride = 0x20000, .limit = FAKE_BASE + 0xf60000, .pidr2 = 0x3b};
	struct gic_redist r;
	/* An MPIDR no frame has: stops at Last, four frames read. */
	gic_redist_find(FAKE_BASE, 0xf60000, 7, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_EQ_U64(r.frames, 4);
	CHECK(r.reason != NULL);
	/* Not a redistributor's PIDR2: nothing believed. */
	f.pidr2 = 0x2b;
	gic_redist_find(FAKE_BASE, 0xf60000, 0, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_EQ_U64(r.frames, 0);
	/* The reader refuses (page not proven): its reason passes through. */
	f.pidr2 = 0x3b;
	f.limit = FAKE_BASE + 0x20000;
	gic_redist_find(FAKE_BASE, 0xf60000, 1, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_STR(r.reason, "not proven");
	/* A range shorter than one redistributor, or none, reads nothing. */
	f.reads = 0;
	gic_redist_find(FAKE_BASE, 0x10000, 0, fake_read, &f, &r);
	CHECK(!r.found);
	gic_redist_find(0, 0xf60000, 0, fake_read, &f, &r);
	CHECK(!r.found);
	gic_redist_find(~0ull - 0xffff, 0x40000, 0, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_EQ_U64(f.reads, 0);
	/* A range ending before Last: the walk stops at its end. */
	f.limit = FAKE_BASE + 0xf60000;
	gic_redist_find(FAKE_BASE, 2 * 0x20000, 3, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_EQ_U64(r.frames, 2);
}

TEST(redistributor_stride_from_the_firmware)
{
	/* Redistributors padded 512 KiB apart (a devicetree's
	 * redistributor-stride): TYPER's own stride would land between them. */
	struct fake_gicr f = {.ncpu = 4, .stride = 0x80000, .limit = FAKE_BASE + 0x200000, .pidr2 = 0x3b};
	struct gic_redist r;
	gic_redist_find(FAKE_BASE, 0x200000, 2, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_STR(r.reason, "a frame in the GICR range does not read GICv3/4's GICR_PIDR2 ArchRev");
	gic_redist_find_stride(FAKE_BASE, 0x200000, 0x80000, 2, fake_read, &f, &r);
	CHECK(r.found);
	CHECK_EQ_U64(r.rd_base, FAKE_BASE + 2 * 0x80000);
	CHECK_EQ_U64(r.frames, 3);
	/* Stride 0 is TYPER's, as gic_redist_find. */
	f = (struct fake_gicr){.ncpu = 4, .stride = 0x20000, .limit = FAKE_BASE + 0xf60000, .pidr2 = 0x3b};
	gic_redist_find_stride(FAKE_BASE, 0xf60000, 0, 3, fake_read, &f, &r);
	CHECK(r.found);
	CHECK_EQ_U64(r.rd_base, FAKE_BASE + 3 * 0x20000);
	/* Shorter than a redistributor, or not whole frames: nothing read. */
	f.reads = 0;
	gic_redist_find_stride(FAKE_BASE, 0xf60000, 0x10000, 0, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_STR(r.reason, "the redistributor stride is not a whole number of 64 KiB frames, two or more");
	gic_redist_find_stride(FAKE_BASE, 0xf60000, 0x28000, 0, fake_read, &f, &r);
	CHECK(!r.found);
	CHECK_EQ_U64(f.reads, 0);
}

TEST(acknowledge_and_priority_decoding)
{
	/* GICv2 GICC_IAR: an SGI's source CPU in [12:10] is not its INTID. */
	CHECK_EQ_U64(gic_iar_intid(0x41b, 2), 27);
	CHECK_EQ_U64(gic_iar_intid(0x3ff, 2), GIC_INTID_SPURIOUS);
	CHECK_EQ_U64(gic_iar_intid(0x1b, 3), 27);
	CHECK_EQ_U64(gic_iar_intid(0x2001, 3), 0x2001); /* an LPI */
	CHECK(gic_intid_special(1023) && gic_intid_special(1020));
	CHECK(!gic_intid_special(27) && !gic_intid_special(1019) && !gic_intid_special(1024));
	/* INTID 27: byte 3 of IPRIORITYR word 6. */
	CHECK_EQ_U64(gic_prio_get(0xa0000000u, 27), 0xa0);
	CHECK_EQ_U64(gic_prio_set(0x11223344u, 27, 0x80), 0x80223344u);
	CHECK_EQ_U64(gic_prio_set(0x11223344u, 25, 0x80), 0x11228044u);
}

TEST(latency_summary)
{
	struct gic_lat s;
	gic_lat_summarise(NULL, 0, &s);
	CHECK_EQ_U64(s.n, 0);
	uint64_t v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)(99 - i) * 2 + 10; /* 10..208, reversed */
	gic_lat_summarise(v, 100, &s);
	CHECK_EQ_U64(s.min, 10);
	CHECK_EQ_U64(s.max, 208);
	CHECK(s.min <= s.p50 && s.p50 <= s.p99 && s.p99 <= s.max);
	CHECK_EQ_U64(v[0], 10); /* sorted in place */
	/* Symmetric samples: the trimmed mean is the middle, 109. */
	CHECK_EQ_U64(s.mean_milli, 109000);
	CHECK(s.se_milli > 0);
}
