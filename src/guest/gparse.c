/* Clocksource names, /proc/cpuinfo flags and numbers in kernel text.
 * Pure (see gparse.h). */
#include "gparse.h"

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool cs_name_valid(const char *s, size_t n)
{
	if (n == 0 || n >= GUEST_CS_NAME)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
			  c == '_' || c == '-' || c == '.';
		if (!ok)
			return false;
	}
	return true;
}

static void copy_n(char *dst, size_t cap, const char *src, size_t n)
{
	size_t k = MIN(n, cap - 1);
	memcpy(dst, src, k);
	dst[k] = 0;
}

void cs_list_parse(struct cs_list *out, const char *text, size_t len)
{
	memset(out, 0, sizeof *out);
	size_t i = 0;
	while (i < len) {
		while (i < len && is_blank(text[i]))
			i++;
		size_t start = i;
		while (i < len && !is_blank(text[i]))
			i++;
		size_t n = i - start;
		if (!n)
			continue;
		if (!cs_name_valid(text + start, n))
			out->invalid++;
		else if (out->n < GUEST_CS_MAX)
			copy_n(out->name[out->n++], GUEST_CS_NAME, text + start, n);
		else
			out->dropped++;
	}
}

bool cs_current_parse(char out[GUEST_CS_NAME], const char *text, size_t len)
{
	struct cs_list l;
	cs_list_parse(&l, text, len);
	out[0] = 0;
	if (l.n != 1 || l.invalid || l.dropped)
		return false;
	str_copy(out, GUEST_CS_NAME, l.name[0]);
	return true;
}

bool cs_list_has(const struct cs_list *l, const char *name)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (str_equal(l->name[i], name))
			return true;
	return false;
}

const char *const cpu_flag_names[CPUF_COUNT] = {
	[CPUF_TSC] = "tsc",
	[CPUF_CONSTANT_TSC] = "constant_tsc",
	[CPUF_NONSTOP_TSC] = "nonstop_tsc",
	[CPUF_TSC_KNOWN_FREQ] = "tsc_known_freq",
	[CPUF_TSC_RELIABLE] = "tsc_reliable",
	[CPUF_TSC_ADJUST] = "tsc_adjust",
	[CPUF_RDTSCP] = "rdtscp",
	[CPUF_TSC_DEADLINE_TIMER] = "tsc_deadline_timer",
	[CPUF_HYPERVISOR] = "hypervisor",
};

static bool word_is(const char *w, size_t n, const char *name)
{
	return str_len(name) == n && mem_equal(w, name, n);
}

/* The line's key ("flags", "processor") before the ':' with its padding
 * of tabs and blanks. */
static bool key_is(const char *line, size_t n, const char *key, size_t *value_at)
{
	size_t k = str_len(key);
	if (n < k || !mem_equal(line, key, k))
		return false;
	size_t i = k;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= n || line[i] != ':')
		return false;
	*value_at = i + 1;
	return true;
}

static uint32_t flags_of(const char *v, size_t n, bool out[CPUF_COUNT])
{
	uint32_t mask = 0;
	for (int f = 0; f < CPUF_COUNT; f++)
		out[f] = false;
	size_t i = 0;
	while (i < n) {
		while (i < n && is_blank(v[i]))
			i++;
		size_t s = i;
		while (i < n && !is_blank(v[i]))
			i++;
		for (int f = 0; f < CPUF_COUNT; f++)
			if (i > s && word_is(v + s, i - s, cpu_flag_names[f])) {
				out[f] = true;
				mask |= 1u << f;
			}
	}
	return mask;
}

void cpuinfo_parse(struct cpuinfo_facts *out, const char *text, size_t len)
{
	memset(out, 0, sizeof *out);
	uint32_t first = 0;
	size_t i = 0;
	while (i < len) {
		size_t s = i;
		while (i < len && text[i] != '\n')
			i++;
		const char *line = text + s;
		size_t n = i - s, at;
		i++;
		if (key_is(line, n, "processor", &at)) {
			out->processors++;
		} else if (key_is(line, n, "flags", &at)) {
			bool f[CPUF_COUNT];
			uint32_t mask = flags_of(line + at, n - at, f);
			if (!out->flags_found) {
				out->flags_found = true;
				first = mask;
				for (int k = 0; k < CPUF_COUNT; k++)
					out->flag[k] = f[k];
			} else {
				out->flags_differ |= mask ^ first;
			}
		}
	}
}

bool parse_u64(const char *s, size_t n, uint64_t *v, size_t *used)
{
	uint64_t x = 0;
	size_t i = 0;
	for (; i < n && is_digit(s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (!i)
		return false;
	*v = x;
	if (used)
		*used = i;
	return true;
}

bool parse_mhz_to_khz(const char *s, size_t n, uint64_t *khz)
{
	uint64_t mhz, frac = 0;
	size_t used;
	if (!parse_u64(s, n, &mhz, &used) || mhz > UINT64_MAX / 1000 - 1000)
		return false;
	if (used < n && s[used] == '.') {
		size_t k = used + 1, digits = 0;
		for (; k < n && is_digit(s[k]) && digits < 3; k++, digits++)
			frac = frac * 10 + (uint64_t)(s[k] - '0');
		if (!digits)
			return false;
		for (; digits < 3; digits++)
			frac *= 10;
	}
	*khz = mhz * 1000 + frac;
	return true;
}
