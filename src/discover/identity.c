/* The run's identity: a random id and the wall-clock start time.  The
 * decoding is pure (src/lib/identity.c); this file only gathers the raw
 * inputs from the firmware, the RTC and the CPU's generators (arch_api.h). */
#include "discover.h"
#include "arch_api.h"
#include "identity.h"

/* Intel's DRNG guide: RDRAND fails only when drained, and 10 retries make
 * a failure a sign of a broken generator; RDSEED may need more patience. */
#define RDRAND_RETRIES 10
#define RDSEED_RETRIES 100

static bool generator(bool seed, unsigned retries, uint64_t out[2])
{
	for (int k = 0; k < 2; k++) {
		unsigned tries = 0;
		while (!cpu_random64(seed, &out[k])) {
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
	if (c->rdseed && generator(true, RDSEED_RETRIES, id)) {
		r->identity.run_id_source = "rdseed";
	} else if (c->rdrand && generator(false, RDRAND_RETRIES, id)) {
		r->identity.run_id_source = "rdrand";
	} else {
		/* The TSC's low bits differ boot to boot even on a fixed host
		 * schedule; the RTC separates boots a second or more apart. */
		uint64_t words[4] = {
			r->start_tsc,
			tb_now(),
			have_time ? ((uint64_t)t->year << 40 | (uint64_t)t->month << 32 | (uint64_t)t->day << 24 |
				     (uint64_t)t->hour << 16 | (uint64_t)t->minute << 8 | t->second)
				  : 0,
			tb_now(),
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
		const char *why = rtc_read_now(&r->facts, &t);
		have_time = !why;
		basis = why ? why : "CMOS RTC (read as UTC)";
	}
	r->identity.started_utc_source = basis;
	if (have_time)
		utc_time_format(&t, r->identity.started_utc, sizeof r->identity.started_utc);
	choose_run_id(r, &t, have_time);
}
