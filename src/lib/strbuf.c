#include "strbuf.h"

void sb_init(struct strbuf *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->cap = cap;
	sb->len = 0;
	sb->truncated = cap == 0;
	if (cap)
		buf[0] = 0;
}

void sb_char(struct strbuf *sb, char c)
{
	if (sb->len + 1 >= sb->cap) {
		sb->truncated = true;
		return;
	}
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = 0;
}

/* sb_char's rule (a byte fits while len + 1 < cap) in one pass: the
 * verdict and the report build thousands of lines through here, and on a
 * vCPU whose every instruction is emulated each one counts. */
void sb_str(struct strbuf *sb, const char *s)
{
	if (!s)
		s = "(null)";
	if (!sb->cap) {
		sb->truncated |= *s != 0;
		return;
	}
	size_t room = sb->len + 1 < sb->cap ? sb->cap - 1 - sb->len : 0;
	char *d = sb->buf + sb->len;
	size_t i = 0;
	while (i < room && s[i]) {
		d[i] = s[i];
		i++;
	}
	sb->len += i;
	if (i)
		sb->buf[sb->len] = 0;
	if (s[i])
		sb->truncated = true;
}

void sb_shown(struct strbuf *sb, const char *s)
{
	if (!s)
		s = "(null)";
	for (; *s; s++) {
		uint8_t c = (uint8_t)*s;
		if (c >= 0x20 && c < 0x7f) {
			sb_char(sb, (char)c);
		} else {
			sb_str(sb, "\\x");
			sb_hex(sb, c, 2);
		}
	}
}

void sb_u64(struct strbuf *sb, uint64_t v)
{
	char digits[20];
	size_t n = u64_to_decimal(v, digits);
	for (size_t i = 0; i < n; i++)
		sb_char(sb, digits[i]);
}

void sb_i64(struct strbuf *sb, int64_t v)
{
	if (v < 0) {
		sb_char(sb, '-');
		sb_u64(sb, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(sb, (uint64_t)v);
	}
}

void sb_fixed(struct strbuf *sb, int64_t v, unsigned decimals)
{
	uint64_t scale = 1;
	for (unsigned i = 0; i < decimals && i < 19; i++)
		scale *= 10;
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	if (v < 0)
		sb_char(sb, '-');
	sb_u64(sb, mag / scale);
	if (!decimals)
		return;
	sb_char(sb, '.');
	uint64_t frac = mag % scale;
	for (uint64_t div = scale / 10; div; div /= 10) {
		sb_char(sb, (char)('0' + frac / div));
		frac %= div;
	}
}

void sb_hex(struct strbuf *sb, uint64_t v, unsigned min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	unsigned n = 0;
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v && n < 16);
	while (n < min_digits && n < 16)
		tmp[n++] = '0';
	while (n)
		sb_char(sb, tmp[--n]);
}

void sb_hex0x(struct strbuf *sb, uint64_t v)
{
	sb_str(sb, "0x");
	sb_hex(sb, v, 1);
}

void sb_pad_to(struct strbuf *sb, size_t column)
{
	size_t line_start = sb->len;
	while (line_start && sb->buf[line_start - 1] != '\n')
		line_start--;
	while (sb->len - line_start < column && !sb->truncated)
		sb_char(sb, ' ');
}

/* A duration or cost in words, one rule for every such figure (the
 * verdict's lines and the summary alike) so the same quantity never shows
 * in two units or two precisions: one decimal below 10 ns, whole ns below
 * 10 us, us with one decimal below 10 ms, ms with one below 1 s, then s
 * with three (as the watch sentence gives its times); rounded, never cut
 * (47999 ns is "48.0 us").
 * ASCII "us": the serial console and a UEFI text screen may not draw a
 * micro sign. */
void sb_ns(struct strbuf *sb, uint64_t ns_milli)
{
	if (ns_milli < 9950) {
		sb_fixed(sb, (int64_t)((ns_milli + 50) / 100), 1);
		sb_str(sb, " ns");
	} else if (ns_milli < 9999500) {
		sb_u64(sb, (ns_milli + 500) / 1000);
		sb_str(sb, " ns");
	} else if (ns_milli < 9999950000ull) {
		sb_fixed(sb, (int64_t)((ns_milli + 50000) / 100000), 1);
		sb_str(sb, " us");
	} else if (ns_milli < 999950000000ull) {
		sb_fixed(sb, (int64_t)((ns_milli + 50000000) / 100000000), 1);
		sb_str(sb, " ms");
	} else {
		sb_fixed(sb, (int64_t)((ns_milli + 500000000) / 1000000000), 3);
		sb_str(sb, " s");
	}
}
