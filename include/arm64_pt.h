/* A stage-1 translation table walk (VMSAv8-64, 4 KiB granule, TTBR0),
 * as a pure function over a caller's reader: whether a virtual address is
 * mapped, to what, and with which memory type (src/decode/arm64_pt.c).
 * The arm64 probe asks it whether the SPCR's UART page is mapped before
 * it touches it (an unmapped access is a synchronous abort, which UEFI
 * halts on); host tests walk tables built in memory. */
#ifndef CP_ARM64_PT_H
#define CP_ARM64_PT_H
#include <stdbool.h>
#include <stdint.h>

/* Reads the 8-byte descriptor at a physical address; false when that
 * memory may not be read (the probe: not RAM in the UEFI memory map). */
typedef bool (*arm64_pt_read_fn)(void *ctx, uint64_t phys, uint64_t *value);

struct arm64_pt_walk {
	bool mapped;
	const char *reason;	/* why not mapped (or not walked); NULL when mapped */
	unsigned level;		/* the level of the block or page that maps it */
	uint64_t pa;		/* the address it translates to */
	uint8_t attr_index;	/* AttrIndx */
	uint8_t mair_attr;	/* MAIR's byte for it */
	bool device;		/* MAIR attr 0b0000xx00: Device memory */
};

/* tcr, ttbr0, mair: the EL1 registers as read; sctlr_m: SCTLR_EL1.M. */
void arm64_pt_walk(uint64_t tcr, uint64_t ttbr0, uint64_t mair, bool sctlr_m, uint64_t va,
		   arm64_pt_read_fn read, void *ctx, struct arm64_pt_walk *out);
#endif
