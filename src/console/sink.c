/* The console's sink: the summary to the serial log and (its screen
 * lines) the firmware screen, the framed JSON and watch records to the
 * UART only, the file copy through the platform. */
#include "console.h"

static void summary_line(const char *line, bool screen)
{
	if (screen)
		con_say(line);
	else
		con_log(line);
}

struct sink console_sink(const struct platform *p)
{
	return (struct sink){
		.line = summary_line,
		.report = con_emit_report,
		.watch_record = con_emit_watch_record,
		.save = p->write_file,
	};
}
