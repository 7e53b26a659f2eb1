/* A strict JSON recogniser (RFC 8259 grammar, ASCII only, bounded depth)
 * for the fuzz targets: true when text[0..n) is exactly one JSON value. */
#ifndef CP_FUZZ_JSON_CHECK_H
#define CP_FUZZ_JSON_CHECK_H
#include <stdbool.h>
#include <stddef.h>
bool json_check(const char *text, size_t n);
#endif
