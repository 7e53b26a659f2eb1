/* libFuzzer target for the JSON writer: whatever sequence of calls the
 * report makes, with whatever bytes firmware hands it, the text is either
 * flagged (json_ok false) or parses as JSON.  The input is a program: each
 * byte picks a call, the following bytes its arguments.  Keys are given
 * in objects and omitted in arrays, as the writer's contract says; the
 * checker below is a strict RFC 8259 recogniser (no library), which also
 * insists on pure ASCII output as include/json.h promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "json_check.h"

struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint8_t take_byte(struct cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)take_byte(c) << (8 * i);
	return v;
}

/* A string of up to 63 arbitrary bytes (NULs included for _n). */
static size_t take_bytes(struct cursor *c, char *out)
{
	size_t n = take_byte(c) & 63;
	if (n > c->left)
		n = c->left;
	memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	out[n] = 0;
	return n;
}

static char outbuf[1 << 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = { data, size };
	struct json j;
	bool in_array[JSON_MAX_DEPTH + 2] = { false };
	int depth = 0;
	char key[64], val[64];
	size_t cap = ((size_t)take_byte(&c) << 8 | take_byte(&c)) % sizeof outbuf;

	json_init(&j, outbuf, cap);
	json_object_begin(&j, NULL);
	depth = 1;
	while (c.left) {
		uint8_t op = take_byte(&c);
		const char *k = NULL;
		if (!in_array[depth]) {
			take_bytes(&c, key);
			k = key;
		}
		switch (op % 12) {
		case 0:
		case 1:
			if (depth < JSON_MAX_DEPTH + 1) {
				if (op % 12 == 0)
					json_object_begin(&j, k);
				else
					json_array_begin(&j, k);
				in_array[++depth] = op % 12 == 1;
			}
			break;
		case 2:
			if (depth > 1) {
				if (in_array[depth])
					json_array_end(&j);
				else
					json_object_end(&j);
				depth--;
			}
			break;
		case 3: take_bytes(&c, val); json_string(&j, k, val); break;
		case 4: { size_t n = take_bytes(&c, val); json_string_n(&j, k, val, n); break; }
		case 5: json_string(&j, k, NULL); break;
		case 6: json_u64(&j, k, take_u64(&c)); break;
		case 7: json_i64(&j, k, (int64_t)take_u64(&c)); break;
		case 8: json_bool(&j, k, take_byte(&c) & 1); break;
		case 9: json_null(&j, k); break;
		case 10: { int64_t v = (int64_t)take_u64(&c); json_fixed(&j, k, v, take_byte(&c) % 24); break; }
		case 11: { size_t n = take_bytes(&c, val); json_base64(&j, k, val, n); break; }
		}
	}
	while (depth > 0) {
		if (in_array[depth])
			json_array_end(&j);
		else
			json_object_end(&j);
		depth--;
	}
	if (j.len >= (cap ? cap : 1) && cap)
		abort(); /* wrote past what it was given */
	if (json_ok(&j) && !json_check(outbuf, j.len))
		abort();
	return 0;
}
