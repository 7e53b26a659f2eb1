#include "check.h"
#include "uart_id.h"

/* Register values of QEMU's 16550 (hw/char/serial.c): after reset IER 0,
 * IIR 0x01 (no interrupt), LCR 0, MCR 0x08 (OUT2), LSR 0x60 (THRE|TEMT),
 * SCR 0; once firmware (or the probe) set it up: FIFOs on (IIR 0xC1), 8N1
 * (LCR 0x03), DTR|RTS|OUT2 (MCR 0x0B).  An I/O port nothing decodes reads
 * 0xFF in every register (QEMU's unassigned-port value, and a floating ISA
 * bus). */
static const struct uart_reads qemu_reset = { 0x00, 0x01, 0x00, 0x08, 0x60, 0x00, true };
static const struct uart_reads qemu_set_up = { 0x00, 0xc1, 0x03, 0x0b, 0x60, 0x00, true };
static const struct uart_reads nothing_there = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, true };

TEST(uart_com_bases_and_the_ports_never_taken)
{
	CHECK(uart_is_com_base(0x3f8) && uart_is_com_base(0x2f8) && uart_is_com_base(0x3e8) &&
	      uart_is_com_base(0x2e8));
	CHECK(!uart_is_com_base(0x3f0) && !uart_is_com_base(0x2a0));
	CHECK(uart_port_refusal(0x3f8) == NULL);
	CHECK(uart_port_refusal(0x2e8) == NULL);
	/* The cases: scratch at base + 7 would hit 0xF4 (isa-debug-exit),
	 * 0xCF9 (reset control), 0x92 (port A). */
	CHECK(uart_port_refusal(0xed) != NULL);
	CHECK(uart_port_refusal(0x8b) != NULL);
	CHECK(uart_port_refusal(0xcf2) != NULL);
	CHECK(uart_port_refusal(0xcf9) != NULL);
	CHECK(uart_port_refusal(0xcf8) != NULL);
	CHECK(uart_port_refusal(0xcff) != NULL);
	CHECK(uart_port_refusal(0xcf0) == NULL);	/* ends at 0xCF7 */
	CHECK(uart_port_refusal(0xcf1) != NULL);	/* its SCR would be 0xCF8 */
	CHECK(uart_port_refusal(0xd00) == NULL);
	CHECK(uart_port_refusal(0x0) != NULL);
	CHECK(uart_port_refusal(0xf8) != NULL);		/* 0xF8-0xFF: the FPU ports */
	CHECK(uart_port_refusal(0x100) == NULL);
	CHECK(uart_port_refusal(0xfff8) == NULL);	/* ends at 0xFFFF */
	CHECK(uart_port_refusal(0xfff9) != NULL);
	CHECK(uart_port_refusal(0xffff) != NULL);
}

TEST(uart_reads_of_a_16550_pass)
{
	CHECK(uart_reads_refusal(&qemu_reset, &qemu_reset) == NULL);
	CHECK(uart_reads_refusal(&qemu_set_up, &qemu_set_up) == NULL);
	/* A byte arriving between the passes moves IIR and LSR, not registers. */
	struct uart_reads rx = qemu_set_up;
	rx.iir = 0xc4;
	rx.lsr = 0x61;
	CHECK(uart_reads_refusal(&qemu_set_up, &rx) == NULL);
	/* A 16750 with its 64-byte FIFO and auto flow control on. */
	struct uart_reads u16750 = { 0x00, 0xe1, 0x03, 0x2b, 0x60, 0x00, true };
	CHECK(uart_reads_refusal(&u16750, &u16750) == NULL);
}

TEST(uart_reads_of_anything_else_are_refused)
{
	CHECK(uart_reads_refusal(&nothing_there, &nothing_there) != NULL);
	struct uart_reads r = qemu_set_up;
	r.ier = 0x10;
	CHECK(uart_reads_refusal(&r, &r) != NULL);
	r = qemu_set_up;
	r.iir = 0x03; /* no such interrupt id */
	CHECK(uart_reads_refusal(&r, &r) != NULL);
	r.iir = 0x41; /* FIFO bits 01 */
	CHECK(uart_reads_refusal(&r, &r) != NULL);
	r = qemu_set_up;
	r.mcr = 0x8b;
	CHECK(uart_reads_refusal(&r, &r) != NULL);
	r = qemu_set_up;
	r.lcr = 0x83; /* DLAB */
	CHECK(uart_reads_refusal(&r, &r) != NULL);
	r = qemu_set_up;
	r.lsr = 0x40; /* TEMT without THRE */
	CHECK(uart_reads_refusal(&r, &r) != NULL);
	/* A register that reads 0 everywhere (a page register, a status byte
	 * at rest) never shows THRE. */
	struct uart_reads zeros = { 0, 0, 0, 0, 0, 0, false };
	CHECK(uart_reads_refusal(&zeros, &zeros) != NULL);
	/* Moving "registers": a counter or status port, not a UART. */
	struct uart_reads a = qemu_set_up, b = qemu_set_up;
	b.scr = 1;
	CHECK(uart_reads_refusal(&a, &b) != NULL);
	b = qemu_set_up;
	b.lcr = 0x07;
	CHECK(uart_reads_refusal(&a, &b) != NULL);
	/* The second pass is judged too. */
	CHECK(uart_reads_refusal(&qemu_set_up, &nothing_there) != NULL);
}
