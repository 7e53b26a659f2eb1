/* Where the report goes: the summary to the screen and the serial log, the
 * framed JSON to the UART only, a copy to the boot volume.  The report
 * itself is built from the results alone (src/report/). */
#include "console.h"
#include "report.h"
#include "strbuf.h"

static void summary_emit(const char *line, bool screen)
{
	if (screen)
		con_say(line);
	else
		con_log(line);
}

static char *buf;
static size_t built_len;

const char *report_built(size_t *len)
{
	*len = built_len;
	return built_len ? buf : NULL;
}

bool report_emit(struct run_results *r)
{
	const size_t cap = 4u << 20;
	struct platform *p = r->facts.plat;
	if (!buf)
		buf = p->alloc_pages ? p->alloc_pages(cap) : NULL;
	if (!buf) {
		con_say("clockprobe: cannot allocate the report buffer");
		return false;
	}
	report_summary(r, summary_emit);
	size_t len = report_build_whole(r, buf, cap);
	if (!len) {
		con_say("clockprobe: report overflowed its buffer even without the raw dump");
		return false;
	}
	built_len = len;
	con_emit_report(buf, len);
	if (p->write_file) {
		const char *why = p->write_file("clockprobe-report.json", buf, len);
		char line[160];
		struct strbuf sb;
		sb_init(&sb, line, sizeof line);
		sb_str(&sb, why ? "clockprobe: report not saved to the boot volume: " : "clockprobe: report saved as \\clockprobe-report.json");
		if (why)
			sb_str(&sb, why);
		con_say(line);
	}
	return true;
}
