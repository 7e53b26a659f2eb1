#include "json.h"

void json_init(struct json *j, char *buf, size_t cap)
{
	j->buf = buf;
	j->cap = cap;
	j->len = 0;
	j->overflow = cap == 0;
	j->depth = 0;
	j->need_comma[0] = false;
	if (cap)
		buf[0] = 0;
}

bool json_ok(const struct json *j) { return !j->overflow && j->depth == 0; }

static void put_char(struct json *j, char c)
{
	if (j->overflow)
		return;
	/* Keep one byte for the terminating NUL. */
	if (j->len + 1 >= j->cap) {
		j->overflow = true;
		return;
	}
	j->buf[j->len++] = c;
	j->buf[j->len] = 0;
}

static void put_raw(struct json *j, const char *s)
{
	while (*s)
		put_char(j, *s++);
}

static void put_u64(struct json *j, uint64_t v)
{
	char digits[20];
	size_t n = u64_to_decimal(v, digits);
	for (size_t i = 0; i < n; i++)
		put_char(j, digits[i]);
}

/* Bytes that need no escaping, copied as one run with one bounds check:
 * the report is ~40 KB of mostly plain text, and on a vCPU whose every
 * instruction is emulated the per-byte path cost seconds.  Returns how
 * many were copied (all of them, or the run's end); overflow as put_char. */
static size_t put_plain_run(struct json *j, const char *s, size_t n)
{
	size_t k = 0;
	while (k < n && (unsigned char)s[k] >= 0x20 && (unsigned char)s[k] < 0x7f && s[k] != '"' && s[k] != '\\')
		k++;
	if (!k || j->overflow)
		return k;
	if (j->len + k >= j->cap) {
		/* As put_char would: what fits, then overflow. */
		for (size_t i = 0; i < k; i++)
			put_char(j, s[i]);
		return k;
	}
	memcpy(j->buf + j->len, s, k);
	j->len += k;
	j->buf[j->len] = 0;
	return k;
}

static void put_escaped(struct json *j, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	put_char(j, '"');
	for (size_t i = 0; i < n; i++) {
		size_t run = put_plain_run(j, s + i, n - i);
		i += run;
		if (i >= n)
			break;
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': put_raw(j, "\\\""); break;
		case '\\': put_raw(j, "\\\\"); break;
		case '\n': put_raw(j, "\\n"); break;
		case '\r': put_raw(j, "\\r"); break;
		case '\t': put_raw(j, "\\t"); break;
		default:
			/* Control bytes and anything non-ASCII (firmware strings are
			 * not guaranteed UTF-8) become \u00XX so the output is always
			 * valid JSON and pure ASCII. */
			if (c < 0x20 || c >= 0x7f) {
				put_raw(j, "\\u00");
				put_char(j, hex[c >> 4]);
				put_char(j, hex[c & 15]);
			} else {
				put_char(j, (char)c);
			}
		}
	}
	put_char(j, '"');
}

/* Comma and key for the next value at the current depth. */
static void begin_value(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		put_char(j, ',');
	j->need_comma[j->depth] = true;
	if (key) {
		put_escaped(j, key, str_len(key));
		put_char(j, ':');
	}
}

static void open_container(struct json *j, const char *key, char c)
{
	begin_value(j, key);
	put_char(j, c);
	if (j->depth + 1 >= JSON_MAX_DEPTH) {
		j->overflow = true;
		return;
	}
	j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_container(struct json *j, char c)
{
	put_char(j, c);
	if (j->depth > 0)
		j->depth--;
	else
		j->overflow = true; /* unbalanced: make the error visible */
}

void json_object_begin(struct json *j, const char *key) { open_container(j, key, '{'); }
void json_object_end(struct json *j) { close_container(j, '}'); }
void json_array_begin(struct json *j, const char *key) { open_container(j, key, '['); }
void json_array_end(struct json *j) { close_container(j, ']'); }

void json_string(struct json *j, const char *key, const char *value)
{
	if (!value) {
		json_null(j, key);
		return;
	}
	json_string_n(j, key, value, str_len(value));
}

void json_string_n(struct json *j, const char *key, const char *value, size_t n)
{
	begin_value(j, key);
	put_escaped(j, value, n);
}

void json_u64(struct json *j, const char *key, uint64_t value)
{
	begin_value(j, key);
	put_u64(j, value);
}

void json_i64(struct json *j, const char *key, int64_t value)
{
	begin_value(j, key);
	if (value < 0) {
		put_char(j, '-');
		put_u64(j, (uint64_t)0 - (uint64_t)value);
	} else {
		put_u64(j, (uint64_t)value);
	}
}

void json_bool(struct json *j, const char *key, bool value)
{
	begin_value(j, key);
	put_raw(j, value ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	begin_value(j, key);
	put_raw(j, "null");
}

void json_fixed(struct json *j, const char *key, int64_t value, unsigned decimals)
{
	uint64_t scale = 1;
	for (unsigned i = 0; i < decimals && i < 19; i++)
		scale *= 10;
	begin_value(j, key);
	uint64_t mag = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
	if (value < 0)
		put_char(j, '-');
	put_u64(j, mag / scale);
	if (decimals) {
		put_char(j, '.');
		uint64_t frac = mag % scale;
		for (uint64_t div = scale / 10; div; div /= 10) {
			put_char(j, (char)('0' + frac / div));
			frac %= div;
		}
	}
}

void json_base64(struct json *j, const char *key, const void *data, size_t n)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const uint8_t *p = data;
	begin_value(j, key);
	put_char(j, '"');
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		put_char(j, alphabet[(v >> 18) & 63]);
		put_char(j, alphabet[(v >> 12) & 63]);
		put_char(j, i + 1 < n ? alphabet[(v >> 6) & 63] : '=');
		put_char(j, i + 2 < n ? alphabet[v & 63] : '=');
	}
	put_char(j, '"');
}
