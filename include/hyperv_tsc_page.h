/* Hyper-V's reference TSC page (src/arch/x86/sources/hyperv_tsc_page.c, the
 * hardware; hyperv_tsc_page_facts.c, its JSON and verdict input, pure). */
#ifndef CP_HYPERV_TSC_PAGE_H
#define CP_HYPERV_TSC_PAGE_H
#include "pvclock.h"

struct hv_tsc_page_facts {
	struct hv_ref_tsc_page snapshot; /* the page as prepare found it */
	uint32_t invalid_reads;
};

struct json;
union source_facts;
struct source_result;
struct verdict_input;
/* The page's fields in its sources[] entry; for the verdict, whether the
 * page was valid (sequence not 0) when present. */
void hv_tsc_page_report_extra(struct json *j, const union source_facts *f);
void hv_tsc_page_verdict_facts(struct verdict_input *in, const struct source_result *s);
#endif
