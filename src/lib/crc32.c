#include "crc32.h"

/* Bitwise rather than table-driven: the report is CRC'd once per run and a
 * table would be 1 KiB of data to get right by hand or at start-up. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}
