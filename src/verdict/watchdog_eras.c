/* verdict_watchdog_eras(): the watchdog's figures and the TSC's standing
 * for every release the verdict judges, grouped into eras where nothing
 * the watchdog does differs.  The same prediction as by_kernel, so the
 * era boundaries are the verdict's own. */
#include "verdict_model.h"

/* Whether a TSC the watchdog keeps is what Linux reads: it outranks every
 * other usable source. */
static bool tsc_would_be_chosen(const struct model *m)
{
	for (int s = 0; s < VERDICT_SRC_COUNT; s++)
		if (s != VERDICT_SRC_TSC && m->reg[s] && rates_above(m, s, VERDICT_SRC_TSC))
			return false;
	return true;
}

static void era_of(const struct facts *f, const struct model *m, struct verdict_wd_era *e)
{
	memset(e, 0, sizeof *e);
	e->kver = m->kver;
	watchdog_figures(m, e);
	e->watchdog = m->watchdog >= 0 ? verdict_source_name(m->watchdog) : NULL;
	e->fallback = e->watchdog;
	if (!m->reg[VERDICT_SRC_TSC] || m->tsc_unstable) {
		e->not_watched = tsc_present(f) ? "tsc marked unstable at boot: never registered, never watched"
						: "no TSC";
		e->clocksource = chosen_name(m);
		return;
	}
	bool chosen = tsc_would_be_chosen(m);
	e->clocksource = chosen ? verdict_source_name(VERDICT_SRC_TSC) : chosen_name(m);
	if (!chosen)
		e->fallback = e->clocksource;
	if (m->tsc_reliable) {
		e->exempt = true;
		e->not_watched = "tsc_clocksource_reliable (TSC_RELIABLE): no clocksource watchdog";
	} else if (!m->tsc_must_verify) {
		e->exempt = true;
		e->not_watched = "check_system_tsc_reliable(): CONSTANT+NONSTOP+TSC_ADJUST on few nodes/packages, "
				 "no clocksource watchdog";
	} else if (m->watchdog < 0) {
		e->not_watched = "no clock to watch the TSC with";
	} else {
		e->watched = true;
	}
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && str_equal(a, b));
}

static bool same_era(const struct verdict_wd_era *a, const struct verdict_wd_era *b)
{
	return a->watched == b->watched && a->exempt == b->exempt && same_name(a->not_watched, b->not_watched) &&
	       same_name(a->watchdog, b->watchdog) && same_name(a->clocksource, b->clocksource) &&
	       same_name(a->fallback, b->fallback) && a->interval_ns == b->interval_ns && a->check == b->check &&
	       a->margin_ns == b->margin_ns && a->freq_shift == b->freq_shift &&
	       a->readback_check == b->readback_check && a->readback_bound_ns == b->readback_bound_ns &&
	       a->readback_skip_ns == b->readback_skip_ns && a->readout_retry_ns == b->readout_retry_ns &&
	       a->skip_long_interval == b->skip_long_interval && a->long_interval_ns == b->long_interval_ns;
}

unsigned verdict_watchdog_eras(const struct verdict_input *in, struct verdict_wd_era *out, unsigned cap)
{
	struct facts f;
	unsigned n = 0;
	size_t count = release_count();

	digest(&f, in);
	for (size_t i = 0; i < count; i++) {
		struct model m;
		struct verdict_wd_era e;
		unsigned kv = 0;
		const char *name = release_at(i, &kv);
		predict(&f, kv, NULL, &m);
		era_of(&f, &m, &e);
		const char *to = i + 1 < count ? name : NULL;
		if (n && same_era(&out[n - 1], &e)) {
			out[n - 1].to = to;
			continue;
		}
		if (n >= cap)
			break;
		e.from = name;
		e.to = to;
		out[n++] = e;
	}
	return n;
}
