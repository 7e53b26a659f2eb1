/* The run's results, read the same way by every stage after measurement:
 * sources by id, each source's own facts, the TSC rate for ns, and the
 * errors list.  Pure: compiled into the host unit tests too. */
#include "results.h"

const struct source_result *results_source_ok(const struct run_results *r, enum source_id id)
{
	if ((unsigned)id >= r->source_count || r->sources[id].status != SOURCE_OK)
		return NULL;
	return &r->sources[id];
}

const char *results_source_name(const struct run_results *r, enum source_id id)
{
	return (unsigned)id < r->source_count && r->sources[id].src ? r->sources[id].src->name : "?";
}

const union source_facts *results_facts(const struct run_results *r, enum source_id id)
{
	static const union source_facts none;
	return (unsigned)id < r->source_count ? &r->sources[id].facts : &none;
}

uint64_t results_tsc_hz(const struct run_results *r)
{
	return r->freq.chosen_hz ? r->freq.chosen_hz : r->facts.tsc_hz_rough;
}

void results_error(struct run_results *r, const char *code, const char *message)
{
	if (r->error_count >= MAX_RUN_ERRORS) {
		r->errors_dropped++;
		return;
	}
	r->errors[r->error_count].code = code;
	str_copy(r->errors[r->error_count].message, sizeof r->errors[0].message, message);
	r->error_count++;
}
