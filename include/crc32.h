#ifndef CP_CRC32_H
#define CP_CRC32_H
#include "util.h"
/* The zlib/IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320, initial and
 * final XOR 0xFFFFFFFF), as the report contract names it.  Pass the previous
 * result to continue a running CRC; start with 0. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t n);
#endif
