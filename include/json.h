/* Streaming JSON writer into a caller-provided buffer.  One line, no raw
 * newlines (the report contract's CRC must survive CR/LF translation).
 * Commas are placed automatically; keys are given with each value inside
 * objects (pass key = NULL inside arrays).  Overflow is sticky: the writer
 * stops appending and json_ok() turns false, so a truncated report is
 * detected rather than emitted. */
#ifndef CP_JSON_H
#define CP_JSON_H
#include "util.h"

#define JSON_MAX_DEPTH 32

struct json {
	char *buf;
	size_t cap, len;
	bool overflow;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, char *buf, size_t cap);
bool json_ok(const struct json *j);

void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);

void json_string(struct json *j, const char *key, const char *value); /* NULL -> null */
void json_string_n(struct json *j, const char *key, const char *value, size_t n);
void json_u64(struct json *j, const char *key, uint64_t value);
void json_i64(struct json *j, const char *key, int64_t value);
void json_bool(struct json *j, const char *key, bool value);
void json_null(struct json *j, const char *key);
/* value / 10^decimals printed as a decimal number without floating point,
 * e.g. json_fixed(j, "ns", 12345, 3) -> "ns":12.345 */
void json_fixed(struct json *j, const char *key, int64_t value, unsigned decimals);
/* bytes as a base64 string (for raw table dumps) */
void json_base64(struct json *j, const char *key, const void *data, size_t n);
#endif
