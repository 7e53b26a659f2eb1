/* 16550 UART by port I/O: works with or without firmware services, before
 * and after ExitBootServices, and in direct boot. */
#ifndef CP_UART_H
#define CP_UART_H
#include "util.h"

struct uart {
	uint16_t base;
	bool present;
	bool divisor_kept; /* the firmware had programmed a baud divisor */
	uint16_t divisor;
	unsigned fifo_bytes;
	const char *source; /* "COM1 default", "ACPI SPCR", "settings" */
	const char *identified_by; /* how base was known to be a UART's */
	const char *refusal;       /* why uart_init refused base, else NULL */
};

/* Checks that a UART answers at base -- on a COM1-COM4 base by the scratch
 * register round trip, elsewhere by reads alone and only outside the
 * chipset's ports (uart_id.h); on a refusal nothing was written and
 * u->refusal says why.  Keeps the firmware's divisor when one is set, else
 * programs 115200 8N1. */
bool uart_init(struct uart *u, uint16_t base, const char *source);
/* Writes bytes as given ('\n' is not translated: the caller decides). */
void uart_write(struct uart *u, const char *data, size_t n);
void uart_puts(struct uart *u, const char *s);
/* Takes one received byte if the UART holds one (never waits). */
bool uart_read_byte(struct uart *u, uint8_t *byte);
#endif
