/* The run's identity: a random id and the wall-clock start time.  The
 * decoding is pure (src/lib/identity.c); this file only gathers the raw
 * inputs from the firmware, the CMOS RTC and the CPU's generators. */
#include "discover.h"
#include "x86.h"
#include "identity.h"
#include "cmos_rtc.h"

/* An update cycle lasts 244 us after UIP rises, at most ~2 ms in all;
 * the deadline and the spin cap sized from it end a missing RTC (every
 * port reads 0xff) quickly. */
#define RTC_UIP_WAIT_MS 10
#define RTC_READ_ATTEMPTS 3
/* Intel's DRNG guide: RDRAND fails only when drained, and 10 retries make
 * a failure a sign of a broken generator; RDSEED may need more patience. */
#define RDRAND_RETRIES 10
#define RDSEED_RETRIES 100

static bool rtc_wait_idle(const struct probe_facts *f)
{
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, RTC_UIP_WAIT_MS);
	/* The wait's own 10 ms at the spin cost: ends it should the TSC stop. */
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, RTC_UIP_WAIT_MS));
	for (uint64_t i = 0; i < cap && rdtsc() < deadline; i++) {
		if (!(cmos_rtc_read(RTC_REG_STATUS_A) & RTC_A_UPDATE_IN_PROGRESS))
			return true;
		cpu_relax();
	}
	return false;
}

/* An update can still start between the UIP check and the last read:
 * two equal reads in a row are a consistent time (as Linux does). */
static const char *rtc_read(const struct probe_facts *f, struct utc_time *t)
{
	uint8_t a[RTC_FIELDS], b[RTC_FIELDS];
	for (int attempt = 0; attempt < RTC_READ_ATTEMPTS; attempt++) {
		if (!rtc_wait_idle(f))
			return "the CMOS RTC stayed in its update cycle (no RTC at port 0x70?)";
		cmos_rtc_read_fields(a);
		uint8_t status_b = cmos_rtc_read(RTC_REG_STATUS_B);
		cmos_rtc_read_fields(b);
		if (mem_equal(a, b, sizeof a))
			return rtc_decode(a, status_b, t);
	}
	return "the CMOS RTC changed between every pair of reads";
}

static bool generator(bool (*fn)(uint64_t *), unsigned retries, uint64_t out[2])
{
	for (int k = 0; k < 2; k++) {
		unsigned tries = 0;
		while (!fn(&out[k])) {
			if (++tries > retries)
				return false;
			cpu_relax();
		}
	}
	return true;
}

static void choose_run_id(struct run_results *r, const struct utc_time *t, bool have_time)
{
	const struct cpu_info *c = &r->facts.cpu;
	uint64_t id[2];
	if (c->rdseed && generator(rdseed64, RDSEED_RETRIES, id)) {
		r->identity.run_id_source = "rdseed";
	} else if (c->rdrand && generator(rdrand64, RDRAND_RETRIES, id)) {
		r->identity.run_id_source = "rdrand";
	} else {
		/* The TSC's low bits differ boot to boot even on a fixed host
		 * schedule; the RTC separates boots a second or more apart. */
		uint64_t words[4] = {
			r->start_tsc,
			rdtsc(),
			have_time ? ((uint64_t)t->year << 40 | (uint64_t)t->month << 32 | (uint64_t)t->day << 24 |
				     (uint64_t)t->hour << 16 | (uint64_t)t->minute << 8 | t->second)
				  : 0,
			rdtsc(),
		};
		identity_mix(words, ARRAY_SIZE(words), id);
		r->identity.run_id_source = "tsc+rtc";
	}
	run_id_format(id, r->identity.run_id, sizeof r->identity.run_id);
}

void discover_identity(struct run_results *r)
{
	struct platform *p = r->facts.plat;
	struct utc_time t;
	bool have_time = false;
	const char *basis = NULL;
	if (p->get_time) {
		have_time = p->get_time(&t, &basis) && utc_time_valid(&t);
		if (!have_time)
			basis = "UEFI GetTime failed or gave an invalid time";
	} else {
		const char *why = rtc_read(&r->facts, &t);
		have_time = !why;
		basis = why ? why : "CMOS RTC (read as UTC)";
	}
	r->identity.started_utc_source = basis;
	if (have_time)
		utc_time_format(&t, r->identity.started_utc, sizeof r->identity.started_utc);
	choose_run_id(r, &t, have_time);
}
