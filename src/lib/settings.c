#include "settings.h"
#include "arch_console.h"
#include "strbuf.h"

/* Sized so the whole default run stays within ~1.5 s of probe time under
 * TCG and a quick one suits a large CI matrix. */
static const struct {
	uint32_t samples, freq_window_ms, gaps_window_ms, source_budget_ms;
} mode_defaults[] = {
	[MODE_QUICK] = { 1024, 50, 50, 100 },
	[MODE_DEFAULT] = { 4096, 200, 250, 300 },
	[MODE_THOROUGH] = { 65536, 1000, 2000, 5000 },
};

#define SAMPLES_MIN 16
#define SAMPLES_MAX 1000000
#define WINDOW_MS_MAX 60000
#define WAIT_MAX_S 3600
#define PROBLEM_WORD_MAX 40
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

/* A mode is a set of defaults: fields a word named keep their value. */
static void apply_mode(struct settings *s, enum run_mode m)
{
	s->mode = m;
	if (!(s->explicit_mask & SETTINGS_EXPLICIT_SAMPLES))
		s->samples = mode_defaults[m].samples;
	if (!(s->explicit_mask & SETTINGS_EXPLICIT_FREQ_WINDOW))
		s->freq_window_ms = mode_defaults[m].freq_window_ms;
	if (!(s->explicit_mask & SETTINGS_EXPLICIT_GAPS_WINDOW))
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

void settings_problem(struct settings *s, const char *what, const char *word, size_t n)
{
	if (s->problem_count >= SETTINGS_MAX_PROBLEMS) {
		s->problems_dropped++;
		return;
	}
	struct strbuf sb;
	sb_init(&sb, s->problems[s->problem_count++], sizeof s->problems[0]);
	sb_str(&sb, what);
	if (n)
		sb_str(&sb, ": ");
	for (size_t i = 0; i < n && i < PROBLEM_WORD_MAX; i++)
		sb_char(&sb, word[i]);
	if (n > PROBLEM_WORD_MAX)
		sb_str(&sb, "...");
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

static bool parse_bool(const char *v, size_t n, bool has_value, bool *out)
{
	if (!has_value || word_is(v, n, "1") || word_is(v, n, "on") || word_is(v, n, "yes") || word_is(v, n, "true"))
		*out = true;
	else if (word_is(v, n, "0") || word_is(v, n, "off") || word_is(v, n, "no") || word_is(v, n, "false"))
		*out = false;
	else
		return false;
	return true;
}

static bool number_in(const char *v, size_t n, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return parse_number(v, n, out) && *out >= lo && *out <= hi;
}

/* ---- one handler per key: true when the value was applied ---- */

static bool set_mode(struct settings *s, const char *v, size_t n, bool has_value)
{
	static const enum run_mode modes[] = { MODE_QUICK, MODE_DEFAULT, MODE_THOROUGH };
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (word_is(v, n, settings_mode_name(modes[i]))) {
			apply_mode(s, modes[i]);
			return true;
		}
	return false;
}

static bool set_samples(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, SAMPLES_MIN, SAMPLES_MAX, &x))
		return false;
	s->samples = (uint32_t)x;
	s->explicit_mask |= SETTINGS_EXPLICIT_SAMPLES;
	return true;
}

static bool set_window(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 1, WINDOW_MS_MAX, &x))
		return false;
	s->freq_window_ms = (uint32_t)x;
	s->explicit_mask |= SETTINGS_EXPLICIT_FREQ_WINDOW;
	return true;
}

static bool set_gaps_window(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 1, WINDOW_MS_MAX, &x))
		return false;
	s->gaps_window_ms = (uint32_t)x;
	s->explicit_mask |= SETTINGS_EXPLICIT_GAPS_WINDOW;
	return true;
}

static bool set_xcpu_budget(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 1, 3600000, &x))
		return false;
	s->xcpu_budget_ms = (uint32_t)x;
	return true;
}

static bool set_dump(struct settings *s, const char *v, size_t n, bool has_value)
{
	return parse_bool(v, n, has_value, &s->dump);
}

static bool set_selftest(struct settings *s, const char *v, size_t n, bool has_value)
{
	return parse_bool(v, n, has_value, &s->selftest);
}

static bool set_gaps_all_cpus(struct settings *s, const char *v, size_t n, bool has_value)
{
	return parse_bool(v, n, has_value, &s->gaps_all_cpus);
}

static bool set_pairing(struct settings *s, const char *v, size_t n, bool has_value)
{
	if (word_is(v, n, "auto"))
		s->pairing = PAIRING_AUTO;
	else if (word_is(v, n, "bsp"))
		s->pairing = PAIRING_BSP;
	else if (word_is(v, n, "off"))
		s->pairing = PAIRING_OFF;
	else
		return false;
	return true;
}

static bool set_serial(struct settings *s, const char *v, size_t n, bool has_value)
{
	static const struct { const char *name; uint16_t port; } named[] = {
		CONSOLE_UART_NAMED
	};
	uint64_t port = 0;
	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		if (word_is(v, n, named[i].name))
			port = named[i].port;
	if (!port && !number_in(v, n, 1, 0xfff8, &port))
		return false;
	s->serial_port = (uint16_t)port;
	s->serial_from_settings = true;
	return true;
}

static bool set_wait(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 0, WAIT_MAX_S, &x))
		return false;
	s->wait_key_seconds = (int32_t)x;
	return true;
}

static bool set_resend(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 0, SETTINGS_RESEND_MAX_S, &x))
		return false;
	s->resend_seconds = (uint32_t)x;
	return true;
}

/* A long label is still applied, cut, and the cut is reported. */
static bool set_label(struct settings *s, const char *v, size_t n, bool has_value)
{
	size_t keep = n < SETTINGS_LABEL_MAX ? n : SETTINGS_LABEL_MAX;
	memcpy(s->label, v, keep);
	s->label[keep] = 0;
	s->label_truncated = n > SETTINGS_LABEL_MAX;
	if (s->label_truncated)
		settings_problem(s, "label cut to 64 bytes", v, n);
	return true;
}

static bool set_kernel(struct settings *s, const char *v, size_t n, bool has_value)
{
	return s->parse_kernel && s->parse_kernel(v, n, &s->linux_kernel);
}

static bool set_kernels(struct settings *s, const char *v, size_t n, bool has_value)
{
	if (!s->check_kernels || n > SETTINGS_KERNELS_MAX || !s->check_kernels(v, n))
		return false;
	memcpy(s->kernels, v, n);
	s->kernels[n] = 0;
	return true;
}

static bool set_windows(struct settings *s, const char *v, size_t n, bool has_value)
{
	return s->parse_windows && s->parse_windows(v, n, &s->windows_release);
}

static bool set_watch(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 0, WATCH_SECONDS_MAX, &x))
		return false;
	s->watch_seconds = (uint32_t)x;
	return true;
}

static bool set_interval(struct settings *s, const char *v, size_t n, bool has_value)
{
	uint64_t x;
	if (!number_in(v, n, 1, WATCH_INTERVAL_MAX_S, &x))
		return false;
	s->watch_interval_seconds = (uint32_t)x;
	return true;
}

#define BOOL_VALUES "on,off,yes,no,true,false,1,0"

/* The keys.  `bare` keys may stand alone (a flag, or a mode's name for
 * mode=); `refused` is the problem text when a value does not apply.
 * A new key is one row and one handler. */
static const struct setting_key {
	const char *name;
	bool (*apply)(struct settings *s, const char *v, size_t n, bool has_value);
	const char *refused;
	bool bare;
	/* The words the value may be, comma-separated, where it is one of a
	 * few (NULL for a number or free text): what a host tool suggests for
	 * a value the probe refuses (settings_key_values; test_settings.c
	 * checks that each is accepted). */
	const char *values;
} keys[] = {
	{ "mode", set_mode, "unknown mode", false, "quick,default,thorough" },
	{ "samples", set_samples, "samples must be 16..1000000", false, NULL },
	{ "window_ms", set_window, "window must be 1..60000 ms", false, NULL },
	{ "gaps_ms", set_gaps_window, "window must be 1..60000 ms", false, NULL },
	{ "xcpu_budget_ms", set_xcpu_budget, "xcpu_budget_ms must be 1..3600000", false, NULL },
	{ "dump", set_dump, "expected on/off", true, BOOL_VALUES },
	{ "selftest", set_selftest, "expected on/off", true, BOOL_VALUES },
	{ "gaps_all_cpus", set_gaps_all_cpus, "expected on/off", true, BOOL_VALUES },
	{ "pairing", set_pairing, "pairing must be auto, bsp or off", false, "auto,bsp,off" },
	{ "serial", set_serial, "serial must be com1..com4 or an I/O port", false, "com1,com2,com3,com4" },
	{ "wait", set_wait, "wait must be 0..3600 seconds", false, NULL },
	{ "resend", set_resend, "resend must be 0..3600 seconds", false, NULL },
	{ "label", set_label, "label needs a value", false, NULL },
	{ "kernel", set_kernel, "kernel must be a release 4.19..7.2", false, NULL },
	{ "kernels", set_kernels, "kernels must be lts, all or releases 4.19..7.2 (6.1,6.12)", false, NULL },
	{ "windows", set_windows, "windows must be vista, 2008, 7, 2008r2, 8, 8.1, 2012, 2012r2, 10, 2016, 2019, 2022, 11 or 2025", false, NULL },
	{ "watch", set_watch, "watch must be 0..604800 seconds", false, NULL },
	{ "interval", set_interval, "interval must be 1..3600 seconds", false, NULL },
};

size_t settings_key_count(void)
{
	return ARRAY_SIZE(keys);
}

const char *settings_key_name(size_t i)
{
	return i < ARRAY_SIZE(keys) ? keys[i].name : NULL;
}

const char *settings_key_values(size_t i)
{
	return i < ARRAY_SIZE(keys) ? keys[i].values : NULL;
}

bool settings_key_bare(size_t i)
{
	return i < ARRAY_SIZE(keys) && keys[i].bare;
}

static const struct setting_key *find_key(const char *w, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (word_is(w, n, keys[i].name))
			return &keys[i];
	return NULL;
}

/* The UEFI shell passes the image's own path as the first word. */
static bool looks_like_image_path(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] == '\\' || w[i] == '/')
			return true;
	return n > 4 && w[n - 4] == '.' && (w[n - 3] | 0x20) == 'e' && (w[n - 2] | 0x20) == 'f' &&
	       (w[n - 1] | 0x20) == 'i';
}

static void apply_word(struct settings *s, const char *word, size_t n, bool first)
{
	size_t eq = 0;
	while (eq < n && word[eq] != '=')
		eq++;
	if (eq == n) {
		const struct setting_key *k = find_key(word, n);
		if (k && k->bare)
			k->apply(s, "", 0, false);
		else if (word_is(word, n, "quick") || word_is(word, n, "default") || word_is(word, n, "thorough"))
			set_mode(s, word, n, true);
		else if (!(first && looks_like_image_path(word, n)))
			settings_problem(s, k ? "setting needs a value" : "unknown word", word, n);
		return;
	}
	const struct setting_key *k = find_key(word, eq);
	if (!k) {
		settings_problem(s, "unknown setting", word, eq);
		return;
	}
	if (!k->apply(s, word + eq + 1, n - eq - 1, true))
		settings_problem(s, k->refused, word + eq + 1, n - eq - 1);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void parse_words(struct settings *s, const char *text, bool image_path_first)
{
	const char *p = text;
	bool first = image_path_first;
	/* Bounded by the text's length: every iteration consumes a byte. */
	while (*p) {
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (is_blank(*p)) {
			p++;
			continue;
		}
		const char *word = p;
		while (*p && !is_blank(*p))
			p++;
		apply_word(s, word, (size_t)(p - word), first);
		first = false;
	}
}

void settings_parse(struct settings *s, const char *text)
{
	parse_words(s, text, false);
}

/* Where the last token of text starts, walked exactly as parse_words
 * walks it; *in_comment: that token is a comment, not a word. */
static size_t last_token(const char *text, size_t len, bool *in_comment)
{
	size_t i = 0, start = len;
	*in_comment = false;
	while (i < len) {
		if (text[i] == '#') {
			start = i;
			*in_comment = true;
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (is_blank(text[i])) {
			i++;
			continue;
		}
		start = i;
		*in_comment = false;
		while (i < len && !is_blank(text[i]))
			i++;
	}
	return start;
}

size_t settings_drop_cut_word(struct settings *s, char *text, size_t len, char next, const char *what)
{
	settings_problem(s, what, "", 0);
	if (!len || !next || is_blank(next) || is_blank(text[len - 1]))
		return len; /* the cut fell between words: every word is whole */
	bool in_comment;
	size_t start = last_token(text, len, &in_comment);
	if (start >= len || in_comment)
		return len;
	/* "samples=200000" cut to "samples=200" must not be applied. */
	settings_problem(s, "word cut by that limit, dropped", text + start, len - start);
	text[start] = 0;
	return start;
}

void settings_parse_load_options(struct settings *s, const char *text)
{
	parse_words(s, text, true);
}

/* ---- \clockprobe.cfg bytes to text ---- */

struct text_out {
	char *buf;
	size_t cap, len;
	bool cut;
	char next; /* the first character that did not fit */
};

/* Non-ASCII becomes '?': no setting holds it, so the word it is in is
 * reported as unknown, and the report stays ASCII. */
static void put_char(struct text_out *t, uint32_t c)
{
	char ch = c < 0x80 ? (char)c : '?';
	if (t->len + 1 < t->cap) {
		t->buf[t->len++] = ch;
	} else if (!t->cut) {
		t->cut = true;
		t->next = ch;
	}
}

static void decode_utf16(const uint8_t *b, size_t n, bool big_endian, struct text_out *t)
{
	for (size_t i = 0; i + 1 < n; i += 2) {
		uint32_t u = big_endian ? (uint32_t)b[i] << 8 | b[i + 1] : (uint32_t)b[i + 1] << 8 | b[i];
		/* A NUL in a UTF-16 file is a character like any other that
		 * cannot be in a setting: it separates words, it ends nothing. */
		put_char(t, u ? u : ' ');
	}
}

size_t settings_decode_file(struct settings *s, const uint8_t *raw, size_t n, char *out, size_t cap)
{
	struct text_out t = { out, cap, 0, false, 0 };
	if (!cap)
		return 0;
	out[0] = 0;
	if (n > SETTINGS_FILE_MAX) {
		settings_problem(s, "settings file over 65536 bytes, not read", "", 0);
		return 0;
	}
	if (n >= 2 && ((raw[0] == 0xff && raw[1] == 0xfe) || (raw[0] == 0xfe && raw[1] == 0xff))) {
		if (n % 2)
			settings_problem(s, "UTF-16 settings file of odd length", "", 0);
		decode_utf16(raw + 2, n - 2, raw[0] == 0xfe, &t);
	} else {
		size_t i = n >= 3 && raw[0] == 0xef && raw[1] == 0xbb && raw[2] == 0xbf ? 3 : 0;
		bool nul_seen = false;
		for (; i < n; i++) {
			if (!raw[i] && !nul_seen) {
				nul_seen = true;
				settings_problem(s, "NUL byte in settings file (UTF-16 needs a BOM)", "", 0);
			}
			put_char(&t, raw[i] ? raw[i] : ' ');
		}
	}
	out[t.len] = 0;
	if (t.cut)
		t.len = settings_drop_cut_word(s, out, t.len, t.next, "settings text longer than its buffer, cut");
	return t.len;
}
