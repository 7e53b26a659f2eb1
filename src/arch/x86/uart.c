#include "uart.h"
#include "uart_id.h"
#include "x86.h"

#define LSR_THRE 0x20
#define LSR_DATA_READY 0x01
#define LCR_DLAB 0x80
#define UART_FIFO_BYTES 16
/* At 9600 baud a 16-byte FIFO drains in ~17 ms; polls cost ~1 us, so this
 * bound is far beyond any live UART and still ends a dead one quickly. */
#define THRE_POLL_LIMIT 2000000

/* One pass of reads for uart_reads_refusal: registers only, never the
 * receive buffer (offset 0 would take a byte) nor MSR (reading clears its
 * delta bits); LSR is read until THRE shows, at most UART_LSR_READS times. */
static void read_registers(uint16_t base, struct uart_reads *r)
{
	r->ier = inb(base + UART_IER);
	r->iir = inb(base + UART_IIR);
	r->lcr = inb(base + UART_LCR);
	r->mcr = inb(base + UART_MCR);
	r->scr = inb(base + UART_SCR);
	r->lsr_thre_seen = false;
	for (unsigned i = 0; i < UART_LSR_READS && !r->lsr_thre_seen; i++) {
		r->lsr = inb(base + UART_LSR);
		r->lsr_thre_seen = (r->lsr & LSR_THRE) != 0;
	}
}

/* COM1-COM4: the scratch register round trip (writes at base + 7, which
 * on these bases is the UART's own scratch register). */
static bool scratch_answers(uint16_t base)
{
	uint8_t saved = inb(base + UART_SCR);
	outb(base + UART_SCR, 0x5a);
	bool answers = inb(base + UART_SCR) == 0x5a;
	outb(base + UART_SCR, 0xa5);
	answers = answers && inb(base + UART_SCR) == 0xa5;
	outb(base + UART_SCR, saved);
	return answers;
}

bool uart_init(struct uart *u, uint16_t base, const char *source)
{
	u->base = base;
	u->source = source;
	u->present = false;
	u->identified_by = NULL;
	/* Nothing is written to a port before it is known to be a UART's:
	 * a COM base by its scratch register, any other only when outside
	 * the chipset's ports and its registers, read, are a 16550's. */
	u->refusal = uart_port_refusal(base);
	if (u->refusal)
		return false;
	if (uart_is_com_base(base)) {
		if (!scratch_answers(base)) {
			u->refusal = "no UART answers at this COM base (scratch register)";
			return false;
		}
		u->identified_by = "scratch register round trip at a COM1-COM4 base";
	} else {
		struct uart_reads first, second;
		read_registers(base, &first);
		read_registers(base, &second);
		u->refusal = uart_reads_refusal(&first, &second);
		if (u->refusal)
			return false;
		u->identified_by = "16550 registers read (nothing written before): not a COM1-COM4 base";
	}

	uint8_t lcr = inb(base + UART_LCR);
	outb(base + UART_LCR, lcr | LCR_DLAB);
	u->divisor = (uint16_t)(inb(base + UART_DLL) | (inb(base + UART_DLM) << 8));
	outb(base + UART_LCR, lcr & ~LCR_DLAB);
	u->divisor_kept = u->divisor != 0;
	if (!u->divisor_kept) {
		u->divisor = 1; /* 115200 baud */
		outb(base + UART_IER, 0);
		outb(base + UART_LCR, LCR_DLAB);
		outb(base + UART_DLL, 1);
		outb(base + UART_DLM, 0);
		outb(base + UART_LCR, 0x03); /* 8N1 */
		outb(base + UART_FCR, 0x07); /* enable and clear FIFOs */
		outb(base + UART_MCR, 0x03); /* DTR, RTS */
	}
	/* Enabling the FIFO keeps the baud rate; a 16450 (no FIFO) answers
	 * IIR bits 7:6 != 11 and then gets one byte per status check.  A UART
	 * the firmware set up keeps its queued bytes (no FIFO clear). */
	outb(base + UART_FCR, u->divisor_kept ? 0x01 : 0x07);
	u->fifo_bytes = (inb(base + UART_IIR) & 0xc0) == 0xc0 ? UART_FIFO_BYTES : 1;
	u->present = true;
	return true;
}

/* One status check per FIFO-full of bytes: each port access is a VM exit
 * under KVM, so polling per byte would double the cost of the log. */
void uart_write(struct uart *u, const char *data, size_t n)
{
	if (!u->present)
		return;
	size_t i = 0;
	while (i < n) {
		uint32_t polls = 0;
		while (!(inb(u->base + UART_LSR) & LSR_THRE)) {
			if (++polls > THRE_POLL_LIMIT) {
				u->present = false; /* stuck transmitter: stop, don't hang */
				return;
			}
			cpu_relax();
		}
		for (unsigned k = 0; k < u->fifo_bytes && i < n; k++)
			outb(u->base + UART_THR, (uint8_t)data[i++]);
	}
}

void uart_puts(struct uart *u, const char *s)
{
	uart_write(u, s, str_len(s));
}

bool uart_read_byte(struct uart *u, uint8_t *byte)
{
	if (!u->present || !(inb(u->base + UART_LSR) & LSR_DATA_READY))
		return false;
	*byte = inb(u->base + UART_THR); /* the receive buffer shares offset 0 */
	return true;
}
