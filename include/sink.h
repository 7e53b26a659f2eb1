/* Where a run's words go: the summary's lines (some for the screen too),
 * the framed report, a watch record's frame, and a copy on the boot
 * volume.  The boot path provides one (src/console/sink.c: the UART, the
 * firmware screen, the platform's file writer); pure code builds what it
 * hands over (src/report/deliver.c), so nothing that measures or talks to
 * a UART calls up into the report writer. */
#ifndef CP_SINK_H
#define CP_SINK_H
#include "util.h"

struct sink {
	/* One line of the summary; screen: for a person at the firmware
	 * screen too, not only the serial log. */
	void (*line)(const char *text, bool screen);
	/* The report contract's frame around one JSON line. */
	void (*report)(const char *json, size_t len);
	/* One watch record's frame (same CRC-32 and byte count rules). */
	void (*watch_record)(uint32_t seq, const char *json, size_t len);
	/* A copy on the boot volume: NULL when saved, else why not.  NULL
	 * member: this boot path has no volume to write (now). */
	const char *(*save)(const char *name, const void *data, size_t len);
};
#endif
