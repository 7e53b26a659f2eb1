/* Recursive descent over the RFC 8259 grammar.  Depth is bounded so a
 * hostile input cannot exhaust the stack of the fuzzer itself. */
#include "json_check.h"

struct rd {
	const char *s;
	size_t n, i;
	int depth;
};

static bool value(struct rd *r);

static void ws(struct rd *r)
{
	while (r->i < r->n && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
		r->i++;
}

static bool lit(struct rd *r, const char *w)
{
	size_t k = 0;
	while (w[k]) {
		if (r->i + k >= r->n || r->s[r->i + k] != w[k])
			return false;
		k++;
	}
	r->i += k;
	return true;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool string(struct rd *r)
{
	if (r->i >= r->n || r->s[r->i] != '"')
		return false;
	r->i++;
	while (r->i < r->n) {
		unsigned char c = (unsigned char)r->s[r->i++];
		if (c == '"')
			return true;
		if (c < 0x20 || c >= 0x7f)
			return false;
		if (c != '\\')
			continue;
		if (r->i >= r->n)
			return false;
		c = (unsigned char)r->s[r->i++];
		if (c == 'u') {
			for (int k = 0; k < 4; k++)
				if (r->i >= r->n || !is_hex(r->s[r->i++]))
					return false;
		} else if (!(c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't')) {
			return false;
		}
	}
	return false;
}

static bool digits(struct rd *r)
{
	size_t start = r->i;
	while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9')
		r->i++;
	return r->i > start;
}

static bool number(struct rd *r)
{
	if (r->i < r->n && r->s[r->i] == '-')
		r->i++;
	if (r->i < r->n && r->s[r->i] == '0')
		r->i++;
	else if (!digits(r))
		return false;
	if (r->i < r->n && r->s[r->i] == '.') {
		r->i++;
		if (!digits(r))
			return false;
	}
	if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
		r->i++;
		if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-'))
			r->i++;
		if (!digits(r))
			return false;
	}
	return true;
}

static bool container(struct rd *r, char open, char close, bool keyed)
{
	r->i++; /* the opening bracket */
	(void)open;
	if (++r->depth > 64)
		return false;
	ws(r);
	if (r->i < r->n && r->s[r->i] == close) {
		r->i++;
		r->depth--;
		return true;
	}
	for (;;) {
		ws(r);
		if (keyed) {
			if (!string(r))
				return false;
			ws(r);
			if (r->i >= r->n || r->s[r->i++] != ':')
				return false;
		}
		if (!value(r))
			return false;
		ws(r);
		if (r->i >= r->n)
			return false;
		char c = r->s[r->i++];
		if (c == close)
			break;
		if (c != ',')
			return false;
	}
	r->depth--;
	return true;
}

static bool value(struct rd *r)
{
	ws(r);
	if (r->i >= r->n)
		return false;
	switch (r->s[r->i]) {
	case '{': return container(r, '{', '}', true);
	case '[': return container(r, '[', ']', false);
	case '"': return string(r);
	case 't': return lit(r, "true");
	case 'f': return lit(r, "false");
	case 'n': return lit(r, "null");
	default: return number(r);
	}
}

bool json_check(const char *text, size_t n)
{
	struct rd r = { text, n, 0, 0 };
	if (!value(&r))
		return false;
	ws(&r);
	return r.i == r.n;
}
