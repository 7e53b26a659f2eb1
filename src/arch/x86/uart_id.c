#include "uart_id.h"
#include "ioports.h"

#define IER_RESERVED 0xf0
#define IIR_RESERVED 0x10  /* bit 5 is the 16750's 64-byte FIFO flag */
#define IIR_FIFO_BITS 0xc0
#define MCR_RESERVED 0xc0  /* bit 5 is the 16750's auto flow control */
#define LCR_DLAB 0x80
#define LSR_THRE 0x20
#define LSR_TEMT 0x40

bool uart_is_com_base(uint16_t base)
{
	return base == COM1_PORT || base == COM2_PORT || base == COM3_PORT || base == COM4_PORT;
}

const char *uart_port_refusal(uint16_t base)
{
	uint32_t last = (uint32_t)base + UART_PORT_SPAN - 1;
	if (uart_is_com_base(base))
		return NULL;
	if (!base)
		return "port 0 is no UART";
	if (last > 0xffff)
		return "its 8 registers run past port 0xFFFF";
	if (base < 0x100)
		return "it overlaps the chipset ports below 0x100 (reset, A20, debug exit)";
	if (base <= 0xcff && last >= 0xcf8)
		return "it overlaps ports 0xCF8-0xCFF (PCI configuration, reset control)";
	return NULL;
}

static bool iir_id_known(uint8_t iir)
{
	switch (iir & 0x0f) {
	case 0x1: /* no interrupt pending */
	case 0x6: /* receiver line status */
	case 0x4: /* received data available */
	case 0xc: /* character timeout (FIFO mode) */
	case 0x2: /* transmitter holding register empty */
	case 0x0: /* modem status */
		return true;
	default:
		return false;
	}
}

static const char *one_pass(const struct uart_reads *r)
{
	if (r->ier == 0xff || r->iir == 0xff || r->lcr == 0xff || r->mcr == 0xff || r->lsr == 0xff)
		return "its registers read 0xFF: nothing decodes the port";
	if (r->ier & IER_RESERVED)
		return "IER reserved bits 7:4 are set: not a 16550";
	if ((r->iir & IIR_RESERVED) || !iir_id_known(r->iir))
		return "IIR holds no 16550 interrupt identification";
	if ((r->iir & IIR_FIFO_BITS) != 0 && (r->iir & IIR_FIFO_BITS) != IIR_FIFO_BITS)
		return "IIR FIFO bits 7:6 are neither 00 nor 11";
	if (r->mcr & MCR_RESERVED)
		return "MCR reserved bits 7:6 are set: not a 16550";
	if (r->lcr & LCR_DLAB)
		return "LCR.DLAB is set: offsets 0-1 are the divisor latch";
	if ((r->lsr & LSR_TEMT) && !(r->lsr & LSR_THRE))
		return "LSR: transmitter empty without its holding register empty";
	if (!r->lsr_thre_seen)
		return "LSR never showed the transmit holding register empty";
	return NULL;
}

const char *uart_reads_refusal(const struct uart_reads *a, const struct uart_reads *b)
{
	const char *why = one_pass(a);
	if (!why)
		why = one_pass(b);
	if (why)
		return why;
	if (a->ier != b->ier || a->lcr != b->lcr || a->mcr != b->mcr || a->scr != b->scr)
		return "IER, LCR, MCR or SCR changed between two reads: not registers";
	return NULL;
}
