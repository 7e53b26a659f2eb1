/* Where the probe's words go: the UART (everything), the firmware screen
 * (a short summary only: OVMF mirrors ConOut onto COM1, so anything sent
 * to both would appear twice in a serial log). */
#ifndef CP_CONSOLE_H
#define CP_CONSOLE_H
#include "uart.h"
#include "platform.h"

struct console {
	struct uart uart;
	struct platform *plat;
};

extern struct console con;

/* A line for the serial log (CRLF appended). */
void con_log(const char *text);
/* A line for the serial log and the screen. */
void con_say(const char *text);
/* The report contract's frame around one JSON line, UART only. */
void con_emit_report(const char *json, size_t len);
/* One watch record's frame (same CRC-32 and byte count rules), UART only. */
void con_emit_watch_record(uint32_t seq, const char *json, size_t len);
#endif
