#include "crc32.h"

/* Four bits a step through a 16-entry table: a byte costs two lookups
 * instead of eight shift-and-xor rounds.  The report (~40 KB) is CRC'd on
 * the way out, and on a vCPU whose every instruction is emulated (a
 * nested KVM of the PVM kind) the bitwise loop took seconds.  T[n] is n
 * run through four rounds of the bitwise loop (polynomial 0xEDB88320);
 * tests/unit/test_json.c checks the result against zlib's figures. */
static const uint32_t nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t crc32_update(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nibble[crc & 15];
		crc = (crc >> 4) ^ nibble[crc & 15];
	}
	return ~crc;
}
