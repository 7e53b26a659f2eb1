/* The Arm Generic Interrupt Controller as the arm64 probe meets it: the
 * registers it uses (GICv2: Arm IHI 0048B; GICv3/4: Arm IHI 0069), and
 * the pure logic around them, over recorded register values: is a block
 * of registers the GIC version it is said to be (PIDR2's ArchRev), which
 * redistributor in a GICR range belongs to a CPU (GICR_TYPER's affinity
 * against MPIDR_EL1), what an acknowledged INTID is, and the interrupt
 * latencies' summary (src/decode/arm64_gic.c).  The probe's accesses are
 * in src/arch/arm64/gic.c; host tests feed these functions recorded
 * values (tests/unit/test_arm64_gic.c). */
#ifndef CP_ARM64_GIC_H
#define CP_ARM64_GIC_H
#include <stdbool.h>
#include <stdint.h>

/* GICv2 distributor (banked per CPU for INTIDs 0..31: the enable and
 * priority words of the PPIs are the CPU's own) and CPU interface. */
#define GICD_CTLR 0x000u
#define GICD_ISENABLER0 0x100u
#define GICD_ICENABLER0 0x180u
#define GICD_IPRIORITYR 0x400u
#define GICD_PIDR2_V2 0xfe8u	/* GICv1/v2: the ID block ends the 4 KiB page */
#define GICD_PIDR2_V3 0xffe8u	/* GICv3/4: it ends the 64 KiB frame */
#define GICC_CTLR 0x000u
#define GICC_PMR 0x004u
#define GICC_IAR 0x00cu
#define GICC_EOIR 0x010u
#define GICC_IIDR 0x0fcu
/* GICv3 redistributor: RD_base frame, then the SGI frame 64 KiB above. */
#define GICR_CTLR 0x000u
#define GICR_CTLR_RWP (1u << 3)
#define GICR_TYPER 0x008u	/* 64-bit, read as two 32-bit halves */
#define GICR_TYPER_VLPIS (1u << 1)
#define GICR_TYPER_LAST (1u << 4)
#define GICR_WAKER 0x014u
#define GICR_WAKER_SLEEP (1u << 1)	/* ProcessorSleep */
#define GICR_WAKER_CHILDREN (1u << 2)	/* ChildrenAsleep */
#define GICR_PIDR2 0xffe8u
#define GICR_SGI 0x10000u
#define GICR_IGROUPR0 0x080u	/* in the SGI frame, as the three below */
#define GICR_ISENABLER0 0x100u
#define GICR_ICENABLER0 0x180u
#define GICR_IPRIORITYR 0x400u
#define GICR_FRAME 0x10000u

#define GIC_INTID_SPURIOUS 1023u
#define GIC_INTID_VTIMER 27u	/* SBSA's EL1 virtual timer PPI, QEMU virt's too */

/* PIDR2[7:4], ArchRev: 1 GICv1, 2 GICv2, 3 GICv3, 4 GICv4. */
unsigned gic_pidr2_arch_rev(uint32_t pidr2);

/* The version to drive, from the MADT's GICD entry and the distributor's
 * PIDR2 ArchRev: *version 2 or 3 (GICv4 is driven as v3), and NULL; or a
 * named reason (not a GIC ArchRev, the two disagree, GICv1). */
const char *gic_version_check(uint8_t madt_version, unsigned arch_rev, unsigned *version);

/* The same from the devicetree's compatible (fdt.c's gic_version: 2 for
 * the GICv1/v2 family, 3 for arm,gic-v3, which GICv4 also carries) and
 * PIDR2's ArchRev: *version 2 or 3 and NULL, or why not. */
const char *gic_dt_version_check(unsigned dt_version, unsigned arch_rev, unsigned *version);

/* MPIDR_EL1's Aff3.Aff2.Aff1.Aff0 packed as GICR_TYPER[63:32] holds it. */
uint32_t gic_affinity_of_mpidr(uint64_t mpidr);

/* One redistributor's frames: 2 x 64 KiB, 4 with VLPIS (GICv4). */
uint64_t gic_redist_stride(uint64_t typer);

/* Reads a 32-bit register; false when it may not be read (the probe: its
 * page is not proven mapped as Device memory), with *why naming it. */
typedef bool (*gic_read32_fn)(void *ctx, uint64_t addr, uint32_t *v, const char **why);

struct gic_redist {
	bool found;
	uint64_t rd_base;	/* the CPU's RD_base frame */
	uint64_t typer;
	unsigned arch_rev;	/* its GICR_PIDR2 ArchRev */
	uint32_t frames;	/* redistributors read before it (or in all) */
	const char *reason;	/* why not found; NULL when found */
};

/* The redistributor of the CPU with this MPIDR in the range [base,
 * base + length): each frame's PIDR2 must say GICv3/4 and its TYPER is
 * matched on affinity; the walk stops at TYPER.Last, the range's end, or
 * a frame cap. */
void gic_redist_find(uint64_t base, uint64_t length, uint64_t mpidr, gic_read32_fn read, void *ctx,
		     struct gic_redist *out);
/* The same walk with the firmware's stride between redistributors (the
 * devicetree's redistributor-stride, for frames padded apart); stride 0:
 * each frame's own, from GICR_TYPER.VLPIS. */
void gic_redist_find_stride(uint64_t base, uint64_t length, uint64_t stride, uint64_t mpidr, gic_read32_fn read,
			    void *ctx, struct gic_redist *out);

/* The INTID an acknowledge read gave (GICC_IAR[9:0]: [12:10] is an SGI's
 * source CPU; ICC_IAR1_EL1[23:0]), and whether it is a special one
 * (1020..1023: nothing to acknowledge, no EOI). */
uint32_t gic_iar_intid(uint32_t iar, unsigned version);
bool gic_intid_special(uint32_t intid);

/* The byte lane of a priority word (IPRIORITYR, four INTIDs a word). */
uint8_t gic_prio_get(uint32_t word, uint32_t intid);
uint32_t gic_prio_set(uint32_t word, uint32_t intid, uint8_t prio);

/* Latencies in counter ticks (sorted in place): min, percentiles, max,
 * and the trimmed mean with its SE (x1000), as the firing's are. */
struct gic_lat {
	uint32_t n;
	uint64_t min, p50, p99, max;
	uint64_t mean_milli, se_milli;
};
void gic_lat_summarise(uint64_t *ticks, uint32_t n, struct gic_lat *out);
#endif
