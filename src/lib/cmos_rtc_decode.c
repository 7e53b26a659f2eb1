#include "cmos_rtc.h"

static bool bcd_ok(uint8_t v) { return (v & 0x0f) <= 9 && (v >> 4) <= 9; }
static unsigned bcd(uint8_t v) { return (unsigned)(v >> 4) * 10 + (v & 0x0f); }

static bool field(uint8_t v, bool binary, unsigned lo, unsigned hi, unsigned *out)
{
	if (!binary && !bcd_ok(v))
		return false;
	*out = binary ? v : bcd(v);
	return *out >= lo && *out <= hi;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (the era/day-of-era method: a year starting in March puts the leap day
 * last, so each 400-year era has the same shape). */
static uint64_t days_from_civil(unsigned y, unsigned m, unsigned d)
{
	y -= m <= 2;
	unsigned era = y / 400;
	unsigned yoe = y - era * 400;
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (uint64_t)era * 146097 + doe - 719468;
}

bool cmos_rtc_decode(const struct cmos_rtc_raw *raw, uint64_t *unix_seconds, const char **why)
{
	bool binary = raw->status_b & CMOS_RTC_B_BINARY;
	unsigned sec, min, hour, day, mon, year;
	*why = NULL;
	if (!field(raw->seconds, binary, 0, 59, &sec))
		*why = "seconds out of range";
	else if (!field(raw->minutes, binary, 0, 59, &min))
		*why = "minutes out of range";
	else if (!field(raw->day, binary, 1, 31, &day))
		*why = "day out of range";
	else if (!field(raw->month, binary, 1, 12, &mon))
		*why = "month out of range";
	else if (!field(raw->year, binary, 0, 99, &year))
		*why = "year out of range";
	if (*why)
		return false;
	if (raw->status_b & CMOS_RTC_B_24H) {
		if (!field(raw->hours, binary, 0, 23, &hour)) {
			*why = "hours out of range";
			return false;
		}
	} else {
		/* 12-hour mode: 12 AM is midnight, bit 7 marks PM. */
		bool pm = raw->hours & 0x80;
		if (!field(raw->hours & 0x7f, binary, 1, 12, &hour)) {
			*why = "hours out of range (12-hour mode)";
			return false;
		}
		hour = hour % 12 + (pm ? 12 : 0);
	}
	*unix_seconds = days_from_civil(2000 + year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
	return true;
}
