/* libFuzzer target for the settings: the \clockprobe.cfg decoder (UTF-8,
 * UTF-16 either order, NULs, oversize) and the word parser, then the
 * promises of include/settings.h checked on the result: every value in its
 * range, the problem list bounded and counted, and the order rule (the
 * same words with mode= moved to the front give the same values). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"
#include "verdict.h"

static char text[SETTINGS_FILE_MAX + 1];
static char moved[SETTINGS_FILE_MAX + 16];

static void check_ranges(const struct settings *s)
{
	if (s->samples < 16 || s->samples > 1000000 || s->freq_window_ms < 1 || s->freq_window_ms > 60000 ||
	    s->gaps_window_ms < 1 || s->gaps_window_ms > 60000 || s->wait_key_seconds < -1 ||
	    s->wait_key_seconds > 3600 || s->problem_count > SETTINGS_MAX_PROBLEMS ||
	    (s->problems_dropped && s->problem_count != SETTINGS_MAX_PROBLEMS) ||
	    (s->serial_from_settings && (s->serial_port == 0 || s->serial_port > 0xfff8)))
		abort();
	for (uint32_t i = 0; i < s->problem_count; i++)
		if (strnlen(s->problems[i], sizeof s->problems[i]) == sizeof s->problems[i])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings a, b;
	settings_defaults(&a);
	a.parse_kernel = verdict_kernel_parse;
	a.parse_windows = verdict_windows_parse;
	size_t n = settings_decode_file(&a, data, size, text, sizeof text);
	if (n > SETTINGS_FILE_MAX || text[n] || strlen(text) != n)
		abort();
	settings_parse(&a, text);
	check_ranges(&a);

	/* Order rule: "mode=X <the rest>" and "<the rest> mode=X" agree on
	 * every value the mode could have reset. */
	settings_defaults(&b);
	b.parse_kernel = verdict_kernel_parse;
	b.parse_windows = verdict_windows_parse;
	settings_parse(&b, text);
	settings_parse(&b, "mode=quick");
	struct settings c;
	settings_defaults(&c);
	c.parse_kernel = verdict_kernel_parse;
	c.parse_windows = verdict_windows_parse;
	memcpy(moved, "mode=quick\n", 11);
	memcpy(moved + 11, text, n + 1);
	settings_parse(&c, moved);
	check_ranges(&b);
	check_ranges(&c);
	/* a later mode= in text itself wins in c, not in b: compare only
	 * when text names no mode */
	if (!strstr(text, "mode=") && !strstr(text, "quick") && !strstr(text, "default") &&
	    !strstr(text, "thorough") &&
	    (b.samples != c.samples || b.freq_window_ms != c.freq_window_ms ||
	     b.gaps_window_ms != c.gaps_window_ms || b.mode != c.mode))
		abort();
	settings_defaults(&b);
	b.parse_kernel = verdict_kernel_parse;
	b.parse_windows = verdict_windows_parse;
	settings_parse_load_options(&b, text);
	check_ranges(&b);
	return 0;
}
