/* What tells one report from another: a random run id, the wall-clock time
 * the probe started, and the decoding behind them.  The pure parts (CMOS
 * RTC decoding, time formatting, entropy mixing) are host-tested in
 * tests/unit/test_identity.c; src/discover/identity.c gathers the inputs. */
#ifndef CP_IDENTITY_H
#define CP_IDENTITY_H
#include "util.h"

struct utc_time {
	uint32_t year;
	uint8_t month, day, hour, minute, second;
};

/* CMOS RTC registers 0x00 (seconds), 0x02, 0x04, 0x07, 0x08, 0x09 (year)
 * in that order, as read. */
enum { RTC_SEC, RTC_MIN, RTC_HOUR, RTC_DAY, RTC_MONTH, RTC_YEAR, RTC_FIELDS };
/* Status register B bits (MC146818): binary instead of BCD, 24-hour. */
#define RTC_B_BINARY 0x04
#define RTC_B_24H 0x02
/* Registers read on their own: the second (for edges), status A and B. */
#define RTC_REG_SECONDS 0x00
#define RTC_REG_STATUS_A 0x0a
#define RTC_REG_STATUS_B 0x0b
/* Status register A bit 7: an update cycle is running (up to ~2 ms). */
#define RTC_A_UPDATE_IN_PROGRESS 0x80

/* Decodes the raw registers under status register B's format.  The RTC
 * keeps two year digits; without the FADT's century register the window
 * 1970..2069 applies, as Linux's mc146818_get_time() does.  NULL on
 * success, else why the values are not a time. */
const char *rtc_decode(const uint8_t raw[RTC_FIELDS], uint8_t status_b, struct utc_time *out);

/* Calendar sanity: months 1..12, days within the month, leap years. */
bool utc_time_valid(const struct utc_time *t);

/* Seconds since 1970-01-01T00:00:00Z of a valid time (leap seconds, as
 * everywhere in Unix time, are not counted): the watch measures elapsed
 * wall time as a difference of two of these. */
uint64_t utc_time_unix_seconds(const struct utc_time *t);

/* "YYYY-MM-DDTHH:MM:SSZ" (RFC 3339); cap must be >= UTC_TIME_TEXT. */
#define UTC_TIME_TEXT 21
void utc_time_format(const struct utc_time *t, char *out, size_t cap);

/* 128 bits from n words of weak entropy (TSC, RTC, ...): each word is
 * folded through a 64-bit finalizer so every input bit moves every output
 * bit.  Not cryptographic; it only has to make two boots' ids differ. */
void identity_mix(const uint64_t *words, size_t n, uint64_t out[2]);

/* 32 lowercase hex digits of hi then lo. */
#define RUN_ID_TEXT 33
void run_id_format(const uint64_t id[2], char *out, size_t cap);
#endif
