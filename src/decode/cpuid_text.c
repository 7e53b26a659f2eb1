/* The text form of CPUID records, one "leaf subleaf eax ebx ecx edx" line
 * each: written by the probe's dump mode, read back from test fixtures
 * (tests/fixtures/cpuid/).  No libc here, so both ways are by hand. */
#include "cpuid_internal.h"

static size_t put_hex(char *buf, size_t cap, size_t pos, uint32_t v, unsigned min_digits)
{
	static const char digits[] = "0123456789abcdef";
	unsigned n = 8;

	while (n > min_digits && ((v >> ((n - 1) * 4)) & 0xf) == 0)
		n--;
	for (unsigned i = n; i > 0; i--, pos++)
		if (pos + 1 < cap)
			buf[pos] = digits[(v >> ((i - 1) * 4)) & 0xf];
	return pos;
}

size_t cpuid_record_format(const struct cpuid_record *r, char *buf, size_t cap)
{
	const uint32_t fields[6] = { r->leaf, r->subleaf, r->eax, r->ebx, r->ecx, r->edx };
	size_t pos = 0;

	if (cap == 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (i) {
			if (pos + 1 < cap)
				buf[pos] = ' ';
			pos++;
		}
		pos = put_hex(buf, cap, pos, fields[i], i == 1 ? 1 : 8);
	}
	buf[MIN(pos, cap - 1)] = '\0';
	return MIN(pos, cap - 1);
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

struct line {
	const char *p, *end;
};

static void skip_blanks(struct line *l)
{
	while (l->p < l->end && is_blank(*l->p))
		l->p++;
}

static bool parse_hex32(struct line *l, uint32_t *value)
{
	unsigned digits = 0;

	if (l->end - l->p >= 2 && l->p[0] == '0' && (l->p[1] == 'x' || l->p[1] == 'X'))
		l->p += 2;
	*value = 0;
	while (l->p < l->end && hex_value(*l->p) >= 0) {
		if (++digits > 8)
			return false;
		*value = (*value << 4) | (uint32_t)hex_value(*l->p);
		l->p++;
	}
	return digits > 0;
}

static bool starts_with_n(const char *p, const char *end, const char *prefix)
{
	size_t n = str_len(prefix);

	return (size_t)(end - p) >= n && mem_equal(p, prefix, n);
}

static void parse_directive(struct cpuid_recording *rec, struct line l)
{
	l.p++;	/* '#' */
	skip_blanks(&l);
	if (!starts_with_n(l.p, l.end, "unrecorded:"))
		return;
	l.p += str_len("unrecorded:");
	skip_blanks(&l);
	if (starts_with_n(l.p, l.end, "zero"))
		rec->unrecorded = CPUID_UNRECORDED_ZERO;
	else if (starts_with_n(l.p, l.end, "clamp"))
		rec->unrecorded = CPUID_UNRECORDED_CLAMP;
}

/* One line: blank, comment, or six numbers (then optionally a comment). */
static bool parse_line(struct cpuid_recording *rec, struct cpuid_record *out, size_t cap,
		       struct line l)
{
	uint32_t v[6];

	if (l.end > l.p && l.end[-1] == '\r')
		l.end--;
	skip_blanks(&l);
	if (l.p == l.end)
		return true;
	if (*l.p == '#') {
		parse_directive(rec, l);
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		skip_blanks(&l);
		if (!parse_hex32(&l, &v[i]))
			return false;
		if (l.p < l.end && !is_blank(*l.p) && *l.p != '#')
			return false;
	}
	skip_blanks(&l);
	if (l.p < l.end && *l.p != '#')
		return false;
	if (rec->count >= cap)
		return false;
	out[rec->count++] = (struct cpuid_record){ v[0], v[1], v[2], v[3], v[4], v[5] };
	return true;
}

bool cpuid_recording_parse(struct cpuid_recording *rec, struct cpuid_record *out,
			   size_t cap, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	rec->records = out;
	rec->count = 0;
	rec->unrecorded = CPUID_UNRECORDED_CLAMP;
	while (p < end) {
		const char *eol = p;

		while (eol < end && *eol != '\n')
			eol++;
		if (!parse_line(rec, out, cap, (struct line){ p, eol }))
			return false;
		p = eol < end ? eol + 1 : end;
	}
	return true;
}
