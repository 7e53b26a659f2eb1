/* The report, the summary and the watch's records (src/report/): pure
 * functions of the results, host-tested (tests/unit/test_report.c,
 * test_deliver.c), handed out through the boot path's struct sink. */
#ifndef CP_REPORT_H
#define CP_REPORT_H
#include "results.h"
#include "sink.h"
#include "watch.h"

/* The human summary, then the JSON report built whole in buf[cap] and
 * framed, then a copy saved where the sink can (deliver.c).  Returns the
 * report's length, 0 when it could not be built whole (no buffer, or too
 * big even without the raw dump): the sink is told why. */
size_t report_deliver(struct run_results *r, char *buf, size_t cap, const struct sink *out);
/* One watch record built in buf[cap] and framed; a record too big for
 * the buffer still goes out, its seq kept, saying so. */
void watch_record_deliver(const struct watch_result *w, char *buf, size_t cap, const struct sink *out);

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

/* report_load.c: the summary's lines under load (the contention curve's
 * reach, whether the CPUs ran together, one line per contended source;
 * the timers). */
void report_load_summary(const struct run_results *r, void (*emit)(const char *line, bool screen));
/* report_timers.c: one line per LAPIC timer (latency, arming cost, or why not). */
void report_timers_summary(const struct run_results *r, void (*emit)(const char *line, bool screen));

/* watch_json.c: the record's one-line JSON (seq, run_id, offsets, drift,
 * events so far, watchdog replay so far), the report's "watch" member, and
 * one sentence on what Linux's watchdog would have done. */
void watch_json_record(struct json *j, const struct watch_result *w);
void watch_json_section(struct json *j, const struct watch_result *w);
void watch_watchdog_sentence(char *buf, size_t cap, const struct watch_result *w);
#endif
