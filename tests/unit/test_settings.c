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
	settings_parse(&s, "# thorough run\nmode=thorough\r\n"
			   "FS0:\\EFI\\BOOT\\BOOTX64.EFI samples=0x800 dump serial=com2 wait=0 selftest=off");
	CHECK_EQ_U64(s.mode, MODE_THOROUGH);
	CHECK_EQ_U64(s.samples, 2048); /* later words win */
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

TEST(settings_problem_list_is_bounded)
{
	struct settings s;
	settings_defaults(&s);
	settings_parse(&s, "a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1");
	CHECK_EQ_U64(s.problem_count, SETTINGS_MAX_PROBLEMS);
}
