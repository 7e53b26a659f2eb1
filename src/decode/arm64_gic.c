/* The GIC's pure logic (include/arm64_gic.h): version proof, the
 * redistributor walk, acknowledge decoding and the latency summary. */
#include "arm64_gic.h"
#include "cost_stats.h"
#include "stats.h"

/* A GICR range walked past this many redistributors is not believed:
 * GICR_TYPER.Last must have ended it (GICv3 allows 2^16 CPUs, but a range
 * that long is a broken table, and each frame read is an MMIO access). */
#define REDIST_FRAME_CAP 512u

unsigned gic_pidr2_arch_rev(uint32_t pidr2)
{
	return (pidr2 >> 4) & 0xfu;
}

const char *gic_version_check(uint8_t madt_version, unsigned arch_rev, unsigned *version)
{
	*version = 0;
	if (arch_rev < 1 || arch_rev > 4)
		return "the distributor's PIDR2 ArchRev is not a GIC version (1..4): not a GIC";
	/* MADT version 0 means "discover it from the hardware". */
	if (madt_version && madt_version != arch_rev)
		return "the MADT's GIC version and the distributor's PIDR2 ArchRev disagree";
	if (arch_rev == 1)
		return "GICv1: not supported (no GICC_IIDR, no banked priority guarantees)";
	*version = arch_rev == 2 ? 2 : 3;
	return NULL;
}

const char *gic_dt_version_check(unsigned dt_version, unsigned arch_rev, unsigned *version)
{
	const char *why = gic_version_check(0, arch_rev, version);
	if (why)
		return why;
	/* arm,gic-v3 covers GICv3 and v4 (both driven as 3); the GICv2
	 * compatibles cover v1 too, which gic_version_check refused above. */
	if (*version != (dt_version == 3 ? 3u : 2u)) {
		*version = 0;
		return "the devicetree's GIC compatible and the distributor's PIDR2 ArchRev disagree";
	}
	return NULL;
}

uint32_t gic_affinity_of_mpidr(uint64_t mpidr)
{
	return (uint32_t)((mpidr >> 32 & 0xffu) << 24 | (mpidr & 0xffffffu));
}

uint64_t gic_redist_stride(uint64_t typer)
{
	return typer & GICR_TYPER_VLPIS ? 4u * GICR_FRAME : 2u * GICR_FRAME;
}

void gic_redist_find(uint64_t base, uint64_t length, uint64_t mpidr, gic_read32_fn read, void *ctx,
		     struct gic_redist *out)
{
	gic_redist_find_stride(base, length, 0, mpidr, read, ctx, out);
}

void gic_redist_find_stride(uint64_t base, uint64_t length, uint64_t stride, uint64_t mpidr, gic_read32_fn read,
			    void *ctx, struct gic_redist *out)
{
	*out = (struct gic_redist){.reason = "no redistributor in the range has the CPU's affinity"};
	uint32_t want = gic_affinity_of_mpidr(mpidr);
	if (!base || length < 2u * GICR_FRAME || base + length < base) {
		out->reason = "the GICR range is empty, too short for one redistributor, or wraps";
		return;
	}
	/* A stated stride shorter than RD_base and SGI frames would put one
	 * redistributor's registers inside the next's. */
	if (stride && (stride < 2u * GICR_FRAME || stride % GICR_FRAME)) {
		out->reason = "the redistributor stride is not a whole number of 64 KiB frames, two or more";
		return;
	}
	uint64_t off = 0;
	while (off + 2u * GICR_FRAME <= length && out->frames < REDIST_FRAME_CAP) {
		uint64_t rd = base + off;
		uint32_t pidr2 = 0, lo = 0, hi = 0;
		const char *why = NULL;
		if (!read(ctx, rd + GICR_PIDR2, &pidr2, &why) || !read(ctx, rd + GICR_TYPER, &lo, &why) ||
		    !read(ctx, rd + GICR_TYPER + 4, &hi, &why)) {
			out->reason = why ? why : "a redistributor register could not be read";
			return;
		}
		unsigned rev = gic_pidr2_arch_rev(pidr2);
		if (rev != 3 && rev != 4) {
			/* Whatever is there, it is not a redistributor: nothing
			 * past it is believed either. */
			out->reason = "a frame in the GICR range does not read GICv3/4's GICR_PIDR2 ArchRev";
			return;
		}
		uint64_t typer = lo | (uint64_t)hi << 32;
		out->frames++;
		if (hi == want) {
			out->found = true;
			out->rd_base = rd;
			out->typer = typer;
			out->arch_rev = rev;
			out->reason = NULL;
			return;
		}
		if (typer & GICR_TYPER_LAST)
			return;
		off += stride ? stride : gic_redist_stride(typer);
	}
}

uint32_t gic_iar_intid(uint32_t iar, unsigned version)
{
	return version == 2 ? iar & 0x3ffu : iar & 0xffffffu;
}

bool gic_intid_special(uint32_t intid)
{
	return intid >= 1020u && intid <= 1023u;
}

uint8_t gic_prio_get(uint32_t word, uint32_t intid)
{
	return (uint8_t)(word >> (8u * (intid & 3u)));
}

uint32_t gic_prio_set(uint32_t word, uint32_t intid, uint8_t prio)
{
	unsigned sh = 8u * (intid & 3u);
	return (word & ~(0xffu << sh)) | (uint32_t)prio << sh;
}

void gic_lat_summarise(uint64_t *ticks, uint32_t n, struct gic_lat *out)
{
	*out = (struct gic_lat){.n = n};
	if (!n)
		return;
	stats_sort_u64(ticks, n);
	out->min = ticks[0];
	out->p50 = stats_percentile_sorted(ticks, n, STATS_P50);
	out->p99 = stats_percentile_sorted(ticks, n, STATS_P99);
	out->max = ticks[n - 1];
	stats_trimmed_mean_se(ticks, n, cost_batch_cut(n), &out->mean_milli, &out->se_milli);
}
