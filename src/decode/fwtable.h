/* What the ACPI and SMBIOS parsers share about reading firmware tables:
 * mapping a byte range through the caller's map callback without letting
 * the range wrap, and the 8-bit checksum both specifications use (every
 * byte of the structure, checksum byte included, sums to zero).  One copy,
 * so a fix to the bounds rule reaches both parsers. */
#ifndef CP_FWTABLE_H
#define CP_FWTABLE_H
#include "util.h"

/* Same shape as acpi_map_fn and smbios_map_fn: len bytes at a physical
 * address, NULL when that memory cannot be read. */
typedef const void *(*fw_map_fn)(void *ctx, uint64_t phys, uint32_t len);

/* The len bytes at phys, or NULL when len is 0, when phys + len - 1 wraps
 * past 2^64, or when map refuses them. */
const uint8_t *fw_map_bytes(fw_map_fn map, void *ctx, uint64_t phys, uint32_t len);

/* Sum of b[0..len) modulo 256: 0 when the checksum is right. */
uint8_t fw_byte_sum(const uint8_t *b, uint32_t len);
#endif
