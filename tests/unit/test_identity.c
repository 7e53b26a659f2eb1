/* Run identity: CMOS RTC decoding in every register format, time text,
 * entropy mixing, the SMBIOS UUID byte-order rule, label/resend settings. */
#include "check.h"
#include "identity.h"
#include "settings.h"
#include "smbios.h"

static const char *decode_text(const uint8_t raw[RTC_FIELDS], uint8_t b, char *out)
{
	struct utc_time t;
	const char *why = rtc_decode(raw, b, &t);
	if (!why)
		utc_time_format(&t, out, UTC_TIME_TEXT);
	return why;
}

/* The watch's wall-clock series: registers to Unix seconds.  Expected
 * values from Python's calendar.timegm. */
static uint64_t unix_of(const uint8_t raw[RTC_FIELDS], uint8_t b)
{
	struct utc_time t;
	const char *why = rtc_decode(raw, b, &t);
	CHECK(why == NULL);
	return why ? 0 : utc_time_unix_seconds(&t);
}

TEST(rtc_to_unix_seconds)
{
	static const struct {
		uint8_t raw[RTC_FIELDS], status_b;
		uint64_t unix_seconds;
	} cases[] = {
		/* QEMU's default, BCD 24-hour: 2026-11-30 23:49:11 */
		{ { 0x11, 0x49, 0x23, 0x30, 0x11, 0x26 }, RTC_B_24H, 1796082551 },
		/* binary, a leap day: 2024-02-29 12:00:00 */
		{ { 0, 0, 12, 29, 2, 24 }, RTC_B_24H | RTC_B_BINARY, 1709208000 },
		/* 2000-01-01 00:00:00, and the same midnight as 12 AM */
		{ { 0, 0, 0, 1, 1, 0 }, RTC_B_24H | RTC_B_BINARY, 946684800 },
		{ { 0, 0, 0x12, 1, 1, 0 }, 0, 946684800 },
		/* 12 PM is noon, 1 PM 13:00 */
		{ { 0, 0, 0x80 | 0x12, 1, 1, 0 }, 0, 946684800 + 12 * 3600 },
		{ { 0, 0, 0x80 | 0x01, 1, 1, 0 }, 0, 946684800 + 13 * 3600 },
		/* the two-digit year's window ends at 1970 and 2069 */
		{ { 0, 0, 0, 1, 1, 0x70 }, RTC_B_24H, 0 },
		{ { 0x59, 0x59, 0x23, 0x31, 0x12, 0x69 }, RTC_B_24H, 3155759999 },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++)
		CHECK_EQ_U64(unix_of(cases[i].raw, cases[i].status_b), cases[i].unix_seconds);
}

/* Every format status register B can select, and what no RTC (every port
 * 0xff) or a damaged one reads as: expected NULL text = refused. */
TEST(rtc_decode_cases)
{
	static const struct {
		const char *what;
		uint8_t raw[RTC_FIELDS], status_b;
		const char *text;
	} cases[] = {
		{ "BCD 24h", { 0x48, 0x33, 0x23, 0x30, 0x11, 0x26 }, RTC_B_24H, "2026-11-30T23:33:48Z" },
		{ "binary 24h", { 48, 33, 23, 30, 11, 26 }, RTC_B_24H | RTC_B_BINARY, "2026-11-30T23:33:48Z" },
		{ "BCD 12h PM", { 0x48, 0x33, 0x80 | 0x11, 0x30, 0x11, 0x26 }, 0, "2026-11-30T23:33:48Z" },
		{ "BCD 12 AM", { 0x48, 0x33, 0x12, 0x30, 0x11, 0x26 }, 0, "2026-11-30T00:33:48Z" },
		{ "BCD 12 PM", { 0x48, 0x33, 0x80 | 0x12, 0x30, 0x11, 0x26 }, 0, "2026-11-30T12:33:48Z" },
		{ "binary 12h PM, 1999", { 5, 4, 0x80 | 3, 1, 2, 99 }, RTC_B_BINARY, "1999-02-01T15:04:05Z" },
		{ "no RTC, B 0xff", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 0xff, NULL },
		{ "no RTC, B 0", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 0, NULL },
		{ "bad BCD digit", { 0x5a, 0x33, 0x23, 0x30, 0x11, 0x26 }, RTC_B_24H, NULL },
		{ "February 30", { 0, 0, 0, 0x30, 0x02, 0x24 }, RTC_B_24H, NULL },
		{ "hour 13 in 12h mode", { 0, 0, 0x13, 1, 1, 0x24 }, 0, NULL },
		{ "hour 0 in 12h mode", { 0, 0, 0x00, 1, 1, 0x24 }, 0, NULL },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		char text[UTC_TIME_TEXT] = "";
		const char *why = decode_text(cases[i].raw, cases[i].status_b, text);
		if (cases[i].text) {
			CHECK(why == NULL);
			CHECK_STR(text, cases[i].text);
		} else {
			CHECK(why != NULL);
		}
		if ((why == NULL) != (cases[i].text != NULL))
			fprintf(stderr, "  case: %s\n", cases[i].what);
	}
}

TEST(utc_calendar_rules)
{
	struct utc_time t = { 2024, 2, 29, 0, 0, 0 };
	CHECK(utc_time_valid(&t));
	t.year = 2100; /* not a leap year */
	CHECK(!utc_time_valid(&t));
	t.year = 2000;
	CHECK(utc_time_valid(&t));
	t = (struct utc_time){ 2026, 12, 31, 23, 59, 60 }; /* leap second */
	CHECK(utc_time_valid(&t));
	t.month = 13;
	CHECK(!utc_time_valid(&t));
}

TEST(mix_spreads_every_input)
{
	uint64_t a[2], b[2], c[2];
	uint64_t w1[2] = { 123456789, 42 }, w2[2] = { 123456788, 42 };
	identity_mix(w1, 2, a);
	identity_mix(w2, 2, b);
	identity_mix(w1, 2, c);
	CHECK(a[0] == c[0] && a[1] == c[1]);
	CHECK(a[0] != b[0] && a[1] != b[1]);
	CHECK(a[0] != a[1]);
	/* One flipped input bit flips about half the output bits. */
	int flipped = __builtin_popcountll(a[0] ^ b[0]) + __builtin_popcountll(a[1] ^ b[1]);
	CHECK(flipped > 40 && flipped < 88);
	char text[RUN_ID_TEXT];
	uint64_t id[2] = { 0x0123456789abcdefull, 0xfull };
	run_id_format(id, text, sizeof text);
	CHECK_STR(text, "0123456789abcdef000000000000000f");
}

/* QEMU -uuid 12345678-9abc-def0-1122-334455667788 stores the first three
 * fields little-endian in its SMBIOS 2.8 table. */
TEST(smbios_uuid_byte_order)
{
	static const uint8_t raw[16] = { 0x78, 0x56, 0x34, 0x12, 0xbc, 0x9a, 0xf0, 0xde,
					 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	char text[SMBIOS_UUID_TEXT];
	CHECK(smbios_uuid_format(raw, 2, 8, text) == NULL);
	CHECK_STR(text, "12345678-9abc-def0-1122-334455667788");
	CHECK(smbios_uuid_format(raw, 3, 0, text) == NULL);
	CHECK_STR(text, "12345678-9abc-def0-1122-334455667788");
	/* Before 2.6 the bytes print as stored. */
	CHECK(smbios_uuid_format(raw, 2, 5, text) == NULL);
	CHECK_STR(text, "78563412-bc9a-f0de-1122-334455667788");
	uint8_t zeros[16] = { 0 }, ones[16];
	memset(ones, 0xff, sizeof ones);
	CHECK(smbios_uuid_format(zeros, 2, 8, text) != NULL);
	CHECK_STR(text, "");
	CHECK(smbios_uuid_format(ones, 2, 8, text) != NULL);
}

TEST(settings_label_and_resend)
{
	struct settings s;
	settings_defaults(&s);
	CHECK_STR(s.label, "");
	CHECK_EQ_U64(s.resend_seconds, 0);
	settings_parse(&s, "label=rack7/host\"3\" resend=5");
	CHECK_STR(s.label, "rack7/host\"3\"");
	CHECK_EQ_U64(s.resend_seconds, 5);
	CHECK_EQ_U64(s.problem_count, 0);
	settings_parse(&s, "resend=3601 label=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaXYZ");
	CHECK_EQ_U64(s.resend_seconds, 5);
	CHECK_EQ_U64(str_len(s.label), SETTINGS_LABEL_MAX);
	CHECK_EQ_U64(s.problem_count, 2);
}
