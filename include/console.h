/* Where the probe's words go: the UART (everything), the firmware screen
 * (a short summary only: OVMF mirrors ConOut onto COM1, so anything sent
 * to both would appear twice in a serial log). */
#ifndef CP_CONSOLE_H
#define CP_CONSOLE_H
#include "uart.h"
#include "platform.h"
#include "sink.h"

struct console {
	struct uart uart;
	struct platform *plat;
};

/* console.c's: the run names the platform once (con_set_platform), the
 * UART is chosen first as COM1 and then by discovery (con_open_uart,
 * con_use_uart); nothing outside src/console/ writes it but these. */
extern struct console con;

static inline void con_set_platform(struct platform *plat) { con.plat = plat; }
/* uart_init on the console's own UART: it is used whatever the outcome
 * (the outcome's reason goes into the report's serial section). */
static inline bool con_open_uart(uint16_t base, const char *source) { return uart_init(&con.uart, base, source); }
/* A UART already found to answer (a copy is kept). */
static inline void con_use_uart(const struct uart *u) { con.uart = *u; }
/* The UART in use, for the report's serial section. */
static inline const struct uart *con_uart(void) { return &con.uart; }

/* A line for the serial log (CRLF appended). */
void con_log(const char *text);
/* A line for the serial log and the screen. */
void con_say(const char *text);
/* The report contract's frame around one JSON line, UART only. */
void con_emit_report(const char *json, size_t len);

/* The wait before power-off, for consoles that attach late (a named pipe,
 * virsh console, a cloud's serial log): for wait_s seconds, a key on the
 * screen's keyboard or a byte on the UART sends the framed report again,
 * byte for byte, and so does every resend_s seconds (0: only on a key).
 * report/len: the JSON the frame was built around; NULL sends nothing. */
void con_linger(uint32_t wait_s, uint32_t resend_s, uint64_t tsc_hz, const char *report, size_t len);
/* One watch record's frame (same CRC-32 and byte count rules), UART only. */
void con_emit_watch_record(uint32_t seq, const char *json, size_t len);
/* The console as the run's sink (sink.c), with the platform's file writer
 * as it is now (gone after ExitBootServices): built for each delivery. */
struct sink console_sink(const struct platform *p);
#endif
