/* What goes to the sink, in order: the summary a person reads first, the
 * framed report, a note on the file copy.  Pure: the sink is the boot
 * path's (src/console/sink.c); the unit tests hand in their own. */
#include "report.h"
#include "strbuf.h"

size_t report_deliver(struct run_results *r, char *buf, size_t cap, const struct sink *out)
{
	/* The summary needs no buffer: under low memory (-m 5M) everything
	 * was measured, and the summary is what a person still gets, with
	 * the error naming what could not be sent. */
	if (!buf) {
		char line[120];
		struct strbuf sb;
		sb_init(&sb, line, sizeof line);
		sb_str(&sb, "no memory for the ");
		sb_u64(&sb, cap >> 10);
		sb_str(&sb, " KiB report buffer: the framed JSON report is not sent, only this summary");
		results_error(r, "REPORT_NOT_SENT", line);
	}
	report_summary(r, out->line);
	if (!buf) {
		out->line("clockprobe: the framed report could not be sent (no memory for its buffer)", true);
		return 0;
	}
	size_t len = report_build_whole(r, buf, cap);
	if (!len) {
		out->line("clockprobe: report overflowed its buffer even without the raw dump", true);
		return 0;
	}
	out->report(buf, len);
	if (out->save) {
		const char *why = out->save("clockprobe-report.json", buf, len);
		char line[160];
		struct strbuf sb;
		sb_init(&sb, line, sizeof line);
		sb_str(&sb, why ? "clockprobe: report not saved to the boot volume: "
				: "clockprobe: report saved as \\clockprobe-report.json");
		if (why)
			sb_str(&sb, why);
		out->line(line, true);
	}
	return len;
}

void watch_record_deliver(const struct watch_result *w, char *buf, size_t cap, const struct sink *out)
{
	struct json j;
	json_init(&j, buf, cap);
	watch_json_record(&j, w);
	if (!json_ok(&j)) {
		/* Too many events for the buffer: the record still goes out, its
		 * seq kept, saying so, rather than leaving a gap. */
		json_init(&j, buf, cap);
		json_object_begin(&j, NULL);
		json_u64(&j, "seq", w->seq);
		json_string(&j, "run_id", w->run_id);
		json_string(&j, "error", "record overflowed its buffer");
		json_object_end(&j);
	}
	out->watch_record(w->seq, buf, j.len);
}
