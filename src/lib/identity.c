/* See include/identity.h. */
#include "identity.h"
#include "strbuf.h"

static bool bcd_ok(uint8_t v)
{
	return (v & 0x0f) <= 9 && (v >> 4) <= 9;
}

static uint8_t from_bcd(uint8_t v)
{
	return (uint8_t)((v >> 4) * 10 + (v & 0x0f));
}

const char *rtc_decode(const uint8_t raw[RTC_FIELDS], uint8_t status_b, struct utc_time *out)
{
	uint8_t v[RTC_FIELDS];
	bool binary = status_b & RTC_B_BINARY;
	bool h24 = status_b & RTC_B_24H;
	/* In 12-hour mode bit 7 of the hour is PM in either number format. */
	bool pm = !h24 && (raw[RTC_HOUR] & 0x80);

	for (int i = 0; i < RTC_FIELDS; i++) {
		v[i] = raw[i];
		if (i == RTC_HOUR && !h24)
			v[i] &= 0x7f;
		if (!binary) {
			if (!bcd_ok(v[i]))
				return "RTC register is not valid BCD";
			v[i] = from_bcd(v[i]);
		}
	}
	if (!h24) {
		if (v[RTC_HOUR] < 1 || v[RTC_HOUR] > 12)
			return "RTC 12-hour value out of range";
		/* 12 AM is midnight, 12 PM noon. */
		v[RTC_HOUR] = (uint8_t)(v[RTC_HOUR] % 12 + (pm ? 12 : 0));
	}
	if (v[RTC_YEAR] > 99)
		return "RTC year out of range";
	out->year = v[RTC_YEAR] + (v[RTC_YEAR] < 70 ? 2000u : 1900u);
	out->month = v[RTC_MONTH];
	out->day = v[RTC_DAY];
	out->hour = v[RTC_HOUR];
	out->minute = v[RTC_MIN];
	out->second = v[RTC_SEC];
	return utc_time_valid(out) ? NULL : "RTC date or time out of range";
}

static bool leap_year(uint32_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

bool utc_time_valid(const struct utc_time *t)
{
	static const uint8_t days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (t->month < 1 || t->month > 12 || t->day < 1 || t->year < 1970 || t->year > 9999)
		return false;
	uint8_t limit = (uint8_t)(days[t->month - 1] + (t->month == 2 && leap_year(t->year)));
	/* Second 60 is a leap second, which UEFI's EFI_TIME allows too. */
	return t->day <= limit && t->hour <= 23 && t->minute <= 59 && t->second <= 60;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (the era/day-of-era method: a year starting in March puts the leap day
 * last, so each 400-year era has the same shape). */
static uint64_t days_from_civil(uint32_t y, uint32_t m, uint32_t d)
{
	y -= m <= 2;
	uint32_t era = y / 400;
	uint32_t yoe = y - era * 400;
	uint32_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	uint32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (uint64_t)era * 146097 + doe - 719468;
}

uint64_t utc_time_unix_seconds(const struct utc_time *t)
{
	return days_from_civil(t->year, t->month, t->day) * 86400 + t->hour * 3600u + t->minute * 60u + t->second;
}

static void two_digits(struct strbuf *sb, uint32_t v)
{
	sb_char(sb, (char)('0' + v / 10 % 10));
	sb_char(sb, (char)('0' + v % 10));
}

void utc_time_format(const struct utc_time *t, char *out, size_t cap)
{
	struct strbuf sb;
	sb_init(&sb, out, cap);
	two_digits(&sb, t->year / 100);
	two_digits(&sb, t->year);
	sb_char(&sb, '-');
	two_digits(&sb, t->month);
	sb_char(&sb, '-');
	two_digits(&sb, t->day);
	sb_char(&sb, 'T');
	two_digits(&sb, t->hour);
	sb_char(&sb, ':');
	two_digits(&sb, t->minute);
	sb_char(&sb, ':');
	two_digits(&sb, t->second);
	sb_char(&sb, 'Z');
}

/* The splitmix64 finalizer (Steele, Lea, Flood 2014): a bijection whose
 * every output bit depends on every input bit. */
static uint64_t finalize(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void identity_mix(const uint64_t *words, size_t n, uint64_t out[2])
{
	/* Two lanes from different starting points, so the halves differ. */
	uint64_t a = 0x9e3779b97f4a7c15ull, b = 0x6a09e667f3bcc909ull;
	for (size_t i = 0; i < n; i++) {
		a = finalize(a ^ words[i]);
		b = finalize(b + words[i] + a);
	}
	out[0] = a;
	out[1] = b;
}

void run_id_format(const uint64_t id[2], char *out, size_t cap)
{
	struct strbuf sb;
	sb_init(&sb, out, cap);
	sb_hex(&sb, id[0], 16);
	sb_hex(&sb, id[1], 16);
}
