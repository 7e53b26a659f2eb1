/* libFuzzer target for the settings cut path (issue 25): a text cut by a
 * length limit (the direct-boot command line's 2,047 bytes, the UEFI load
 * options, the settings buffer) must apply exactly the words that the
 * limit kept whole -- never a word cut short ("samples=200000" kept as
 * "samples=200"), and name the one it dropped.
 *
 * Input: byte 0 picks the limit, the rest is the text (NUL becomes a
 * blank, as in a settings file).  The settings from settings_drop_cut_word
 * + settings_parse on the kept part, and from settings_decode_file into a
 * buffer of that size, are compared with a reference: the full text split
 * into tokens by the parser's own rules (written again here), the words
 * that end at or before the limit parsed alone. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"

#define TEXT_MAX 4096

static char full[TEXT_MAX + 1], kept[TEXT_MAX + 1], ref[2 * TEXT_MAX + 2], decoded[TEXT_MAX + 1];

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* The words of full[0..n) that end at or before limit, one per line. */
static void reference(size_t n, size_t limit)
{
	size_t i = 0, out = 0;
	while (i < n) {
		if (full[i] == '#') {
			while (i < n && full[i] != '\n')
				i++;
			continue;
		}
		if (blank(full[i])) {
			i++;
			continue;
		}
		size_t start = i;
		while (i < n && !blank(full[i]))
			i++;
		if (i <= limit) {
			memcpy(ref + out, full + start, i - start);
			out += i - start;
			ref[out++] = '\n';
		}
	}
	ref[out] = 0;
}

/* Every value a word can set lies before problem_count (settings.h). */
static void same_values(const struct settings *a, const struct settings *b)
{
	if (memcmp(a, b, offsetof(struct settings, problem_count)))
		abort();
}

static int dropped_named(const struct settings *s)
{
	for (uint32_t i = 0; i < s->problem_count; i++)
		if (!strncmp(s->problems[i], "word cut by that limit, dropped: ", 33))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > TEXT_MAX)
		return 0;
	size_t n = size - 1;
	for (size_t i = 0; i < n; i++)
		full[i] = data[i + 1] && data[i + 1] < 0x80 ? (char)data[i + 1] : ' ';
	full[n] = 0;
	size_t limit = n ? data[0] % (n + 1) : 0;

	struct settings want, got;
	reference(n, limit);
	settings_defaults(&want);
	settings_parse(&want, ref);

	/* The platforms' path: the kept bytes and the first one left out. */
	memcpy(kept, full, limit);
	kept[limit] = 0;
	settings_defaults(&got);
	size_t left = limit < n ? settings_drop_cut_word(&got, kept, limit, full[limit], "cut") : limit;
	if (left > limit || strlen(kept) != left)
		abort();
	settings_parse(&got, kept);
	same_values(&got, &want);
	/* A dropped word is named; nothing dropped, nothing named. */
	if ((left < limit) != dropped_named(&got))
		abort();

	/* The settings buffer's path: decode into limit + 1 bytes. */
	settings_defaults(&got);
	size_t m = settings_decode_file(&got, (const uint8_t *)full, n, decoded, limit + 1);
	if (m > limit || strlen(decoded) != m)
		abort();
	settings_parse(&got, decoded);
	same_values(&got, &want);
	return 0;
}
