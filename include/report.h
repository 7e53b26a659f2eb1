#ifndef CP_REPORT_H
#define CP_REPORT_H
#include "results.h"

/* Pure: the report is a function of the results (host-tested in
 * tests/unit/test_report.c); src/console/emit.c sends it out. */

/* Builds the JSON report, prints the human summary, emits the framed
 * report on the UART and writes it to the boot volume.  Returns false when
 * the report could not be built whole. */
bool report_emit(struct run_results *r);
/* The JSON report_emit built and framed (NULL before, or when it failed),
 * kept so a late console can be sent the very same bytes. */
const char *report_built(size_t *len);
/* The JSON document alone. */
bool report_build_json(struct json *j, const struct run_results *r);
/* The JSON document in buf[cap], whole: when the raw dump does not fit,
 * table data is left out (raw.raw_truncated counts it, error
 * RAW_TRUNCATED says so) and, failing that, the raw part entirely
 * (RAW_DROPPED).  Returns the length, 0 when even that did not fit. */
size_t report_build_whole(struct run_results *r, char *buf, size_t cap);
/* Raw table dumps left out under r->raw.data_budget. */
uint32_t report_raw_tables_omitted(const struct run_results *r);
/* The human summary, line by line through emit (screen gets a subset). */
void report_summary(const struct run_results *r, void (*emit)(const char *line, bool screen));
#endif
