#include "check.h"
#include "settings.h"

TEST(settings_defaults_are_the_default_mode)
{
	struct settings s;
	settings_defaults(&s);
	CHECK_EQ_U64(s.mode, MODE_DEFAULT);
	CHECK_EQ_U64(s.samples, 4096);
	CHECK_EQ_U64(s.freq_window_ms, 200);
	CHECK_EQ_U64(s.gaps_window_ms, 250);
	CHECK(!s.dump);
	CHECK_EQ_I64(s.wait_key_seconds, -1);
}

TEST(settings_from_a_file_and_the_shell)
{
	struct settings s;
	settings_defaults(&s);
	/* \clockprobe.cfg with a comment, then UEFI shell load options that
	 * start with the image path. */
	settings_parse(&s, "# thorough run\nmode=thorough\r\n");
	settings_parse_load_options(&s, "FS0:\\EFI\\BOOT\\BOOTX64.EFI samples=0x800 dump serial=com2 wait=0 selftest=off");
	CHECK_EQ_U64(s.mode, MODE_THOROUGH);
	CHECK_EQ_U64(s.samples, 2048); /* explicit values win over the mode */
	CHECK_EQ_U64(s.freq_window_ms, 1000);
	CHECK(s.dump);
	CHECK(!s.selftest);
	CHECK_EQ_U64(s.serial_port, 0x2f8);
	CHECK(s.serial_from_settings);
	CHECK_EQ_I64(s.wait_key_seconds, 0);
	CHECK_EQ_U64(s.problem_count, 0);
}

TEST(settings_bad_values_are_named)
{
	struct settings s;
	settings_defaults(&s);
	settings_parse(&s, "mode=fast samples=3 samples=99999999999999999999 colour=blue dump=maybe window_ms=0");
	CHECK_EQ_U64(s.problem_count, 6);
	CHECK_STR(s.problems[0], "unknown mode: fast");
	CHECK(strstr(s.problems[3], "unknown setting: colour") != NULL);
	CHECK_EQ_U64(s.samples, 4096); /* bad values change nothing */
	CHECK_EQ_U64(s.mode, MODE_DEFAULT);
}

TEST(settings_problem_list_is_bounded_and_counts_the_rest)
{
	struct settings s;
	settings_defaults(&s);
	settings_parse(&s, "a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1 n=1 o=1 p=1 q=1 r=1 s=1");
	CHECK_EQ_U64(s.problem_count, SETTINGS_MAX_PROBLEMS);
	CHECK_EQ_U64(s.problems_dropped, 19 - SETTINGS_MAX_PROBLEMS);
}

/* mode= sets defaults; explicit values win wherever they stand. */
TEST(settings_mode_order_does_not_matter)
{
	struct settings a, b;
	settings_defaults(&a);
	settings_defaults(&b);
	settings_parse(&a, "samples=100 mode=quick window_ms=7");
	settings_parse(&b, "window_ms=7 mode=quick samples=100");
	CHECK_EQ_U64(a.samples, 100);
	CHECK_EQ_U64(b.samples, 100);
	CHECK_EQ_U64(a.freq_window_ms, 7);
	CHECK_EQ_U64(b.freq_window_ms, 7);
	CHECK_EQ_U64(a.gaps_window_ms, 50); /* not named: the mode's */
	CHECK_EQ_U64(a.mode, MODE_QUICK);
	CHECK_EQ_U64(b.mode, MODE_QUICK);
	CHECK_EQ_U64(a.problem_count + b.problem_count, 0);
	/* the same key twice: the later word */
	settings_parse(&a, "samples=200 samples=300");
	CHECK_EQ_U64(a.samples, 300);
}

TEST(settings_every_bare_word_is_accounted_for)
{
	struct settings s;
	settings_defaults(&s);
	settings_parse(&s, "dump quick smaples=100 dmup samples wiat=3");
	CHECK(s.dump);
	CHECK_EQ_U64(s.mode, MODE_QUICK);
	CHECK_EQ_U64(s.problem_count, 4);
	CHECK_STR(s.problems[0], "unknown setting: smaples");
	CHECK_STR(s.problems[1], "unknown word: dmup");
	CHECK_STR(s.problems[2], "setting needs a value: samples");
	CHECK_STR(s.problems[3], "unknown setting: wiat");
	/* a path is skipped only as the first word of load options */
	settings_defaults(&s);
	settings_parse(&s, "\\EFI\\BOOT\\BOOTX64.EFI");
	CHECK_EQ_U64(s.problem_count, 1);
	settings_defaults(&s);
	settings_parse_load_options(&s, "clockprobe.efi quick x.efi");
	CHECK_EQ_U64(s.problem_count, 1);
	CHECK_STR(s.problems[0], "unknown word: x.efi");
}

static void decode_and_parse(struct settings *s, const uint8_t *raw, size_t n)
{
	static char text[SETTINGS_FILE_MAX + 1];
	settings_decode_file(s, raw, n, text, sizeof text);
	settings_parse(s, text);
}

TEST(settings_file_utf16_with_bom_either_order)
{
	static const uint8_t le[] = { 0xff, 0xfe, 's', 0, 'a', 0, 'm', 0, 'p', 0, 'l', 0, 'e', 0, 's', 0, '=', 0,
				      '9', 0, '9', 0, '\r', 0, '\n', 0, 'd', 0, 'u', 0, 'm', 0, 'p', 0 };
	static const uint8_t be[] = { 0xfe, 0xff, 0, 'w', 0, 'a', 0, 'i', 0, 't', 0, '=', 0, '5' };
	struct settings s;
	settings_defaults(&s);
	decode_and_parse(&s, le, sizeof le);
	CHECK_EQ_U64(s.samples, 99);
	CHECK(s.dump);
	decode_and_parse(&s, be, sizeof be);
	CHECK_EQ_I64(s.wait_key_seconds, 5);
	CHECK_EQ_U64(s.problem_count, 0);
}

TEST(settings_file_utf8_bom_nul_and_non_ascii)
{
	static const uint8_t bom[] = { 0xef, 0xbb, 0xbf, 'd', 'u', 'm', 'p' };
	static const uint8_t nul[] = { 's', 0, 'a', 0 };
	static const uint8_t accent[] = { 'm', 'o', 'd', 'e', '=', 'q', 0xc3, 0xbc, 'i', 'c', 'k' };
	struct settings s;
	settings_defaults(&s);
	decode_and_parse(&s, bom, sizeof bom);
	CHECK(s.dump);
	CHECK_EQ_U64(s.problem_count, 0);
	decode_and_parse(&s, nul, sizeof nul);
	CHECK(s.problem_count >= 1);
	CHECK(strstr(s.problems[0], "NUL byte") != NULL);
	settings_defaults(&s);
	decode_and_parse(&s, accent, sizeof accent);
	CHECK_EQ_U64(s.problem_count, 1);
	CHECK_STR(s.problems[0], "unknown mode: q??ick");
}

/* Read whole or not at all: a cut could turn window_ms=1000 into 10. */
TEST(settings_file_oversize_is_refused_whole)
{
	static uint8_t big[SETTINGS_FILE_MAX + 1];
	static char text[SETTINGS_FILE_MAX + 1];
	struct settings s;
	memset(big, ' ', sizeof big);
	memcpy(big + sizeof big - 14, "window_ms=1000", 14);
	settings_defaults(&s);
	CHECK_EQ_U64(settings_decode_file(&s, big, sizeof big, text, sizeof text), 0);
	CHECK_EQ_U64(s.problem_count, 1);
	CHECK(strstr(s.problems[0], "over 65536 bytes") != NULL);
	/* exactly the limit is read, the last word included */
	settings_defaults(&s);
	CHECK_EQ_U64(settings_decode_file(&s, big + 1, SETTINGS_FILE_MAX, text, sizeof text), SETTINGS_FILE_MAX);
	settings_parse(&s, text);
	CHECK_EQ_U64(s.freq_window_ms, 1000);
	CHECK_EQ_U64(s.problem_count, 0);
	/* a buffer too small is named, not silent */
	settings_defaults(&s);
	settings_decode_file(&s, big, 100, text, 10);
	CHECK_EQ_U64(s.problem_count, 1);
}

/* Issue 25: a command line cut at its 2,047 bytes inside its last word
 * applied "samples=200" for samples=200000.  The cut word is dropped and
 * named; a cut between words loses nothing that was kept. */
TEST(settings_word_cut_by_a_length_limit_is_dropped_not_applied)
{
	static char line[2048];
	struct settings s;
	size_t pad = 2047 - strlen("samples=200");
	memset(line, ' ', pad);
	memcpy(line + 2, "mode=quick", 10);
	memcpy(line + pad, "samples=200", 11);
	line[2047] = 0;
	settings_defaults(&s);
	size_t n = settings_drop_cut_word(&s, line, 2047, '0', "command line longer than 2047 bytes");
	CHECK_EQ_U64(n, pad);
	settings_parse(&s, line);
	CHECK_EQ_U64(s.mode, MODE_QUICK);
	CHECK_EQ_U64(s.samples, 1024); /* quick's, not 200 */
	CHECK_EQ_U64(s.problem_count, 2);
	CHECK_STR(s.problems[0], "command line longer than 2047 bytes");
	CHECK_STR(s.problems[1], "word cut by that limit, dropped: samples=200");

	/* The limit fell on a space: the last word is whole and applied. */
	memcpy(line + pad, "samples=200", 11);
	line[2047] = 0;
	settings_defaults(&s);
	CHECK_EQ_U64(settings_drop_cut_word(&s, line, 2047, ' ', "cut"), 2047);
	settings_parse(&s, line);
	CHECK_EQ_U64(s.samples, 200);
	CHECK_EQ_U64(s.problem_count, 1);

	/* The kept text ended in a blank: nothing of a word was kept. */
	char tail[] = "samples=300 ";
	settings_defaults(&s);
	CHECK_EQ_U64(settings_drop_cut_word(&s, tail, strlen(tail), 'w', "cut"), strlen(tail));
	settings_parse(&s, tail);
	CHECK_EQ_U64(s.samples, 300);

	/* A comment cut short is only a shorter comment. */
	char comment[] = "samples=300\n# a long remark";
	settings_defaults(&s);
	CHECK_EQ_U64(settings_drop_cut_word(&s, comment, strlen(comment), 'x', "cut"), strlen(comment));
	settings_parse(&s, comment);
	CHECK_EQ_U64(s.samples, 300);
	CHECK_EQ_U64(s.problem_count, 1);

	/* A '#' inside a word does not start a comment (parse_words' rule). */
	char hash[] = "label=a#b";
	settings_defaults(&s);
	CHECK_EQ_U64(settings_drop_cut_word(&s, hash, strlen(hash), 'c', "cut"), 0);
	settings_parse(&s, hash);
	CHECK_STR(s.label, "");
	CHECK_STR(s.problems[1], "word cut by that limit, dropped: label=a#b");
}

/* The settings buffer: the word the buffer cut is dropped too. */
TEST(settings_text_buffer_cut_drops_the_cut_word)
{
	static const char file[] = "wait=5 samples=123456";
	char text[17]; /* holds "wait=5 samples=1" */
	struct settings s;
	settings_defaults(&s);
	size_t n = settings_decode_file(&s, (const uint8_t *)file, sizeof file - 1, text, sizeof text);
	CHECK_EQ_U64(n, 7);
	CHECK_STR(text, "wait=5 ");
	settings_parse(&s, text);
	CHECK_EQ_U64(s.wait_key_seconds, 5);
	CHECK_EQ_U64(s.samples, 4096);
	CHECK_EQ_U64(s.problem_count, 2);
	CHECK_STR(s.problems[1], "word cut by that limit, dropped: samples=1");
}

/* The key list a host tool checks words against (settings_key_*): every
 * key is one the parse knows, and every value a key lists is one its
 * handler takes -- a list that drifted from its handler would suggest a
 * word the probe refuses. */
TEST(settings_key_list_matches_the_parse)
{
	CHECK(settings_key_count() >= 17);
	CHECK(settings_key_name(settings_key_count()) == NULL);
	size_t listed = 0;
	for (size_t i = 0; i < settings_key_count(); i++) {
		const char *name = settings_key_name(i);
		const char *values = settings_key_values(i);
		char word[128];
		struct settings s;
		/* A value nobody would list: refused by every key with a list. */
		settings_defaults(&s);
		snprintf(word, sizeof word, "%s=zz", name);
		settings_parse(&s, word);
		if (values)
			CHECK_EQ_U64(s.problem_count, 1);
		/* The key alone: a flag where bare, else "needs a value". */
		settings_defaults(&s);
		settings_parse(&s, name);
		CHECK_EQ_U64(s.problem_count, settings_key_bare(i) ? 0 : 1);
		for (const char *v = values; v && *v;) {
			size_t n = strcspn(v, ",");
			settings_defaults(&s);
			snprintf(word, sizeof word, "%s=%.*s", name, (int)n, v);
			settings_parse(&s, word);
			CHECK_EQ_U64(s.problem_count, 0);
			listed++;
			v += n + (v[n] == ',');
		}
	}
	CHECK(listed >= 10);
}

TEST(settings_xcpu_budget)
{
	struct settings s;
	settings_defaults(&s);
	CHECK_EQ_U64(s.xcpu_budget_ms, 0); /* 0: the mode's budget */
	settings_parse(&s, "xcpu_budget_ms=1");
	CHECK_EQ_U64(s.xcpu_budget_ms, 1);
	CHECK_EQ_U64(s.problem_count, 0);
	settings_parse(&s, "xcpu_budget_ms=0 xcpu_budget_ms=3600001 xcpu_budget_ms");
	CHECK_EQ_U64(s.problem_count, 3);
	CHECK(strstr(s.problems[0], "xcpu_budget_ms must be 1..3600000") != NULL);
	CHECK_EQ_U64(s.xcpu_budget_ms, 1); /* bad values change nothing */
}
