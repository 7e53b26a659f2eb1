/* The walk of include/arm64_pt.h, for the translation regime UEFI sets up
 * on arm64 (UEFI spec 2.3.6.4: 4 KiB pages, identity map, TTBR0 only).
 * Other granules are named and not walked: the caller then leaves the
 * address alone.  The facts (Arm ARM D8.2-D8.3): TCR_EL1.T0SZ [5:0] gives
 * the input size 64 - T0SZ, TG0 [15:14] the granule (0b00 = 4 KiB), EPD0
 * [7] disables TTBR0 walks; a level 0..2 descriptor with bits [1:0] = 0b11
 * is a table (next table at [47:12]), 0b01 a block (levels 1 and 2,
 * output at [47:30] / [47:21]); at level 3, 0b11 is a page ([47:12]);
 * AttrIndx is [4:2], the index of a MAIR_EL1 byte; a MAIR byte whose top
 * nibble is 0 is Device memory. */
#include "arm64_pt.h"

#define ADDR_MASK 0x0000fffffffff000ull

void arm64_pt_walk(uint64_t tcr, uint64_t ttbr0, uint64_t mair, bool sctlr_m, uint64_t va,
		   arm64_pt_read_fn read, void *ctx, struct arm64_pt_walk *out)
{
	*out = (struct arm64_pt_walk){0};
	if (!sctlr_m) {
		/* MMU off: every access is Device-nGnRnE to the flat address. */
		out->mapped = true;
		out->pa = va;
		out->device = true;
		return;
	}
	unsigned t0sz = (unsigned)(tcr & 0x3f);
	unsigned tg0 = (unsigned)((tcr >> 14) & 3);
	if (tcr & (1u << 7)) {
		out->reason = "TCR_EL1.EPD0: TTBR0 walks are disabled";
		return;
	}
	if (tg0 != 0) {
		out->reason = "TCR_EL1.TG0 is not the 4 KiB granule: not walked";
		return;
	}
	if (t0sz < 16 || t0sz > 39) {
		out->reason = "TCR_EL1.T0SZ outside 16..39 (4 KiB granule, no LPA2): not walked";
		return;
	}
	unsigned va_bits = 64 - t0sz;
	if (va_bits < 64 && (va >> va_bits)) {
		out->reason = "the address is above TTBR0's input range";
		return;
	}
	unsigned level = va_bits > 39 ? 0 : va_bits > 30 ? 1 : 2;
	uint64_t table = ttbr0 & 0x0000fffffffffffeull; /* bit 0 is CnP */
	for (; level <= 3; level++) {
		unsigned shift = 39 - 9 * level;
		uint64_t index = (va >> shift) & 0x1ff;
		uint64_t d;
		if (!read(ctx, table + index * 8, &d)) {
			out->reason = "a translation table lies outside readable memory";
			return;
		}
		if (!(d & 1)) {
			out->reason = "no valid descriptor maps the address";
			return;
		}
		bool table_bit = d & 2;
		if (level < 3 && table_bit) {
			table = d & ADDR_MASK;
			continue;
		}
		if (level == 0 || (level == 3 && !table_bit)) {
			out->reason = "a reserved descriptor encoding";
			return;
		}
		uint64_t span = 1ull << shift;
		out->mapped = true;
		out->level = level;
		out->pa = (d & ADDR_MASK & ~(span - 1)) | (va & (span - 1));
		out->attr_index = (uint8_t)((d >> 2) & 7);
		out->mair_attr = (uint8_t)(mair >> (8 * out->attr_index));
		out->device = (out->mair_attr & 0xf0) == 0;
		return;
	}
}
