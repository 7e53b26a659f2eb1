/* Bounds and checksum helpers shared by acpi*.c and smbios.c; see
 * fwtable.h for why there is one copy. */
#include "fwtable.h"

const uint8_t *fw_map_bytes(fw_map_fn map, void *ctx, uint64_t phys, uint32_t len)
{
	if (len == 0 || phys + (len - 1) < phys)
		return NULL;
	return map(ctx, phys, len);
}

uint8_t fw_byte_sum(const uint8_t *b, uint32_t len)
{
	uint8_t sum = 0;

	for (uint32_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum;
}
