/* The kernel releases the verdict judges, oldest first, the long-term lines
 * among them, and the kernel= set a user names (lts, all, or a list): the
 * table every other file of the module reads through these functions. */
#include "verdict_model.h"

/* Every mainline release from Debian 10's 4.19 to the newest (7.2 on
 * 2026-11-30): each is judged, and neighbours with the same outcome merge
 * into one range.  A long-term line stands for its newest stable release,
 * with the backports it carries (rule.backported). */
static const char *const releases[] = {
	"4.19", "4.20", "5.0",	"5.1",	"5.2",	"5.3",	"5.4",	"5.5",	"5.6",	"5.7",	"5.8",
	"5.9",	"5.10", "5.11", "5.12", "5.13", "5.14", "5.15", "5.16", "5.17", "5.18", "5.19",
	"6.0",	"6.1",	"6.2",	"6.3",	"6.4",	"6.5",	"6.6",	"6.7",	"6.8",	"6.9",	"6.10",
	"6.11", "6.12", "6.13", "6.14", "6.15", "6.16", "6.17", "6.18", "6.19", "7.0",	"7.1",
	"7.2",
};

static bool parse_kv(const char *t, size_t n, unsigned *kv)
{
	unsigned major = 0, minor = 0;
	size_t i = 0, digits = 0;

	for (; i < n && t[i] >= '0' && t[i] <= '9' && digits < 3; i++, digits++)
		major = major * 10 + (unsigned)(t[i] - '0');
	if (!digits || i >= n || t[i++] != '.')
		return false;
	for (digits = 0; i < n && t[i] >= '0' && t[i] <= '9' && digits < 3; i++, digits++)
		minor = minor * 10 + (unsigned)(t[i] - '0');
	if (!digits || i != n)
		return false;
	*kv = KV(major, minor);
	return true;
}

const char *release_name(unsigned kv)
{
	for (size_t i = 0; i < ARRAY_SIZE(releases); i++) {
		unsigned r;
		if (parse_kv(releases[i], str_len(releases[i]), &r) && r == kv)
			return releases[i];
	}
	return NULL;
}

size_t release_count(void)
{
	return ARRAY_SIZE(releases);
}

const char *release_at(size_t i, unsigned *kv)
{
	if (i >= ARRAY_SIZE(releases))
		return NULL;
	parse_kv(releases[i], str_len(releases[i]), kv);
	return releases[i];
}

bool verdict_kernel_parse(const char *text, size_t len, unsigned *kv)
{
	unsigned v;

	if (!text || !parse_kv(text, len, &v) || !release_name(v))
		return false;
	*kv = v;
	return true;
}

/* Long-term lines and kernel.org's projected end of life (year * 100 +
 * month) as its releases page gave them after the 2026 extension (6.12 and
 * 6.18 to Dec 2028, 6.6 and 6.1 to Dec 2027): a line is maintained on the
 * rules' date when its end of life is later.  4.19 and 5.4 are judged but
 * no longer maintained, so lts leaves them out. */
#define RULES_DATE 202611	/* 2026-11-30, the date of docs/verdict-rules.md */
static const struct {
	unsigned kv, eol;
} longterm_lines[] = {
	{ KV(4, 19), 202412 }, { KV(5, 4), 202512 },  { KV(5, 10), 202612 }, { KV(5, 15), 202612 },
	{ KV(6, 1), 202712 },  { KV(6, 6), 202712 },  { KV(6, 12), 202812 }, { KV(6, 18), 202812 },
};

size_t verdict_release_count(void)
{
	return ARRAY_SIZE(releases);
}

const char *verdict_release_name(size_t i)
{
	return i < ARRAY_SIZE(releases) ? releases[i] : NULL;
}

unsigned release_kv(size_t i)
{
	unsigned kv = 0;
	parse_kv(releases[i], str_len(releases[i]), &kv);
	return kv;
}

bool verdict_release_maintained_longterm(size_t i)
{
	if (i >= ARRAY_SIZE(releases))
		return false;
	for (size_t l = 0; l < ARRAY_SIZE(longterm_lines); l++)
		if (longterm_lines[l].kv == release_kv(i))
			return longterm_lines[l].eol > RULES_DATE;
	return false;
}

bool verdict_kernel_set_has(const struct verdict_kernel_set *k, size_t i)
{
	if (i >= ARRAY_SIZE(releases))
		return false;
	switch (k->kind) {
	case VERDICT_KERNELS_ALL:
		return true;
	case VERDICT_KERNELS_LIST:
		for (uint32_t j = 0; j < k->count && j < VERDICT_MAX_KERNEL_LIST; j++)
			if (k->list[j] == release_kv(i))
				return true;
		return false;
	default:
		return verdict_release_maintained_longterm(i) || i + 1 == ARRAY_SIZE(releases);
	}
}

const char *verdict_kernel_set_name(const struct verdict_kernel_set *k)
{
	return k->kind == VERDICT_KERNELS_ALL ? "all" : k->kind == VERDICT_KERNELS_LIST ? "list" : "lts";
}

bool verdict_kernel_set_valid(const char *text, size_t len)
{
	struct verdict_kernel_set k;
	return verdict_kernel_set_parse(text, len, &k);
}

bool verdict_kernel_set_parse(const char *text, size_t len, struct verdict_kernel_set *out)
{
	struct verdict_kernel_set k;

	memset(&k, 0, sizeof k);
	if (!text || !len)
		return false;
	if (len == 3 && (mem_equal(text, "lts", 3) || mem_equal(text, "all", 3))) {
		k.kind = text[0] == 'l' ? VERDICT_KERNELS_LTS : VERDICT_KERNELS_ALL;
		*out = k;
		return true;
	}
	k.kind = VERDICT_KERNELS_LIST;
	for (size_t at = 0; at <= len;) {
		size_t end = at;
		while (end < len && text[end] != ',')
			end++;
		unsigned kv;
		if (!verdict_kernel_parse(text + at, end - at, &kv) || k.count >= VERDICT_MAX_KERNEL_LIST)
			return false;
		/* ascending, once each: the headline reads them in order */
		uint32_t pos = 0;
		while (pos < k.count && k.list[pos] < kv)
			pos++;
		if (pos < k.count && k.list[pos] == kv)
			return false;
		for (uint32_t j = k.count; j > pos; j--)
			k.list[j] = k.list[j - 1];
		k.list[pos] = kv;
		k.count++;
		at = end + 1;
	}
	*out = k;
	return true;
}
