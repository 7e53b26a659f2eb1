#include "settings.h"
#include "ioports.h"
#include "strbuf.h"

/* Sized so the whole default run stays within ~1.5 s of probe time under
 * TCG and a quick one suits a large CI matrix. */
static const struct {
	uint32_t samples, freq_window_ms, gaps_window_ms, source_budget_ms;
} mode_defaults[] = {
	[MODE_QUICK] = { 1024, 50, 50, 300 },
	[MODE_DEFAULT] = { 4096, 200, 250, 300 },
	[MODE_THOROUGH] = { 65536, 1000, 2000, 5000 },
};

#define SAMPLES_MIN 16
#define SAMPLES_MAX 1000000
#define WINDOW_MS_MAX 60000
#define WATCH_INTERVAL_DEFAULT_S 10
/* A week: a maintenance window and then some; the interval a whole hour. */
#define WATCH_SECONDS_MAX 604800
#define WATCH_INTERVAL_MAX_S 3600

const char *settings_mode_name(enum run_mode m)
{
	switch (m) {
	case MODE_QUICK: return "quick";
	case MODE_THOROUGH: return "thorough";
	default: return "default";
	}
}

static void apply_mode(struct settings *s, enum run_mode m)
{
	s->mode = m;
	s->samples = mode_defaults[m].samples;
	s->freq_window_ms = mode_defaults[m].freq_window_ms;
	s->gaps_window_ms = mode_defaults[m].gaps_window_ms;
	s->source_budget_ms = mode_defaults[m].source_budget_ms;
}

void settings_defaults(struct settings *s)
{
	memset(s, 0, sizeof *s);
	apply_mode(s, MODE_DEFAULT);
	s->serial_port = 0;
	s->wait_key_seconds = -1;
	s->watch_interval_seconds = WATCH_INTERVAL_DEFAULT_S;
}

static void problem(struct settings *s, const char *what, const char *word, size_t n)
{
	if (s->problem_count >= SETTINGS_MAX_PROBLEMS)
		return;
	struct strbuf sb;
	sb_init(&sb, s->problems[s->problem_count++], sizeof s->problems[0]);
	sb_str(&sb, what);
	sb_str(&sb, ": ");
	for (size_t i = 0; i < n && i < 40; i++)
		sb_char(&sb, word[i]);
}

static bool parse_number(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;
	unsigned base = 10;
	size_t i = 0;
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		unsigned d;
		char c = v[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		if (x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	*out = x;
	return true;
}

static bool word_is(const char *w, size_t n, const char *lit)
{
	size_t l = str_len(lit);
	return n == l && mem_equal(w, lit, n);
}

static bool parse_bool(const char *v, size_t n, bool *out)
{
	if (n == 0 || word_is(v, n, "1") || word_is(v, n, "on") || word_is(v, n, "yes") || word_is(v, n, "true"))
		*out = true;
	else if (word_is(v, n, "0") || word_is(v, n, "off") || word_is(v, n, "no") || word_is(v, n, "false"))
		*out = false;
	else
		return false;
	return true;
}

static void apply(struct settings *s, const char *key, size_t kn, const char *val, size_t vn, bool has_value)
{
	uint64_t num;
	bool flag;
	if (word_is(key, kn, "mode")) {
		if (word_is(val, vn, "quick"))
			apply_mode(s, MODE_QUICK);
		else if (word_is(val, vn, "default"))
			apply_mode(s, MODE_DEFAULT);
		else if (word_is(val, vn, "thorough"))
			apply_mode(s, MODE_THOROUGH);
		else
			problem(s, "unknown mode", val, vn);
	} else if (word_is(key, kn, "samples")) {
		if (parse_number(val, vn, &num) && num >= SAMPLES_MIN && num <= SAMPLES_MAX)
			s->samples = (uint32_t)num;
		else
			problem(s, "samples must be 16..1000000", val, vn);
	} else if (word_is(key, kn, "window_ms") || word_is(key, kn, "gaps_ms")) {
		if (parse_number(val, vn, &num) && num >= 1 && num <= WINDOW_MS_MAX) {
			if (key[0] == 'w')
				s->freq_window_ms = (uint32_t)num;
			else
				s->gaps_window_ms = (uint32_t)num;
		} else {
			problem(s, "window must be 1..60000 ms", val, vn);
		}
	} else if (word_is(key, kn, "dump") || word_is(key, kn, "selftest") || word_is(key, kn, "gaps_all_cpus")) {
		if (!parse_bool(val, has_value ? vn : 0, &flag)) {
			problem(s, "expected on/off", val, vn);
			return;
		}
		if (key[0] == 'd')
			s->dump = flag;
		else if (key[0] == 's')
			s->selftest = flag;
		else
			s->gaps_all_cpus = flag;
	} else if (word_is(key, kn, "serial")) {
		if (word_is(val, vn, "com1"))
			num = COM1_PORT;
		else if (word_is(val, vn, "com2"))
			num = COM2_PORT;
		else if (word_is(val, vn, "com3"))
			num = COM3_PORT;
		else if (word_is(val, vn, "com4"))
			num = COM4_PORT;
		else if (!parse_number(val, vn, &num) || num == 0 || num > 0xfff8) {
			problem(s, "serial must be com1..com4 or an I/O port", val, vn);
			return;
		}
		s->serial_port = (uint16_t)num;
		s->serial_from_settings = true;
	} else if (word_is(key, kn, "wait")) {
		if (parse_number(val, vn, &num) && num <= 3600)
			s->wait_key_seconds = (int32_t)num;
		else
			problem(s, "wait must be 0..3600 seconds", val, vn);
	} else if (word_is(key, kn, "watch")) {
		if (parse_number(val, vn, &num) && num <= WATCH_SECONDS_MAX)
			s->watch_seconds = (uint32_t)num;
		else
			problem(s, "watch must be 0..604800 seconds", val, vn);
	} else if (word_is(key, kn, "interval")) {
		if (parse_number(val, vn, &num) && num >= 1 && num <= WATCH_INTERVAL_MAX_S)
			s->watch_interval_seconds = (uint32_t)num;
		else
			problem(s, "interval must be 1..3600 seconds", val, vn);
	} else {
		problem(s, "unknown setting", key, kn);
	}
}

void settings_parse(struct settings *s, const char *text)
{
	const char *p = text;
	/* Bounded by the text's length: every iteration consumes a byte. */
	while (*p) {
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			p++;
			continue;
		}
		const char *word = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		size_t n = (size_t)(p - word);
		size_t eq = 0;
		while (eq < n && word[eq] != '=')
			eq++;
		/* Bare words are the image path from the UEFI shell or flags. */
		if (eq == n) {
			if (word_is(word, n, "dump") || word_is(word, n, "selftest") || word_is(word, n, "gaps_all_cpus"))
				apply(s, word, n, "", 0, false);
			else if (word_is(word, n, "quick") || word_is(word, n, "thorough"))
				apply(s, "mode", 4, word, n, true);
			continue;
		}
		apply(s, word, eq, word + eq + 1, n - eq - 1, true);
	}
}
