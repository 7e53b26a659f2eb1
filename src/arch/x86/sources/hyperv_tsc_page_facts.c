/* The reference TSC page as prepare found it, for the report and the
 * verdict.  Pure (the hardware side is hyperv_tsc_page.c). */
#include "hyperv_tsc_page.h"
#include "results.h"

void hv_tsc_page_report_extra(struct json *j, const union source_facts *f)
{
	/* The snapshot: finish() has handed the page back by report time. */
	const struct hv_ref_tsc_page *p = &f->hv_tsc_page.snapshot;
	json_u64(j, "tsc_sequence", p->tsc_sequence);
	json_u64(j, "tsc_scale", p->tsc_scale);
	json_i64(j, "tsc_offset", p->tsc_offset);
	json_u64(j, "tsc_hz_from_scale", hv_tsc_hz_from_scale(p->tsc_scale));
	json_u64(j, "invalid_reads", f->hv_tsc_page.invalid_reads);
}

/* Present means granted by Hyper-V; valid, that its sequence was not 0
 * (an invalid page sends Linux to the MSR clocksource). */
void hv_tsc_page_verdict_facts(struct verdict_input *in, const struct source_result *s)
{
	if (s->status != SOURCE_ABSENT)
		in->hv_tsc_page_valid = s->status == SOURCE_OK ? VERDICT_YES : VERDICT_NO;
}
