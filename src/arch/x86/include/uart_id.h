/* Which I/O port the probe may drive as its serial console (issue 25).
 *
 * A table (the ACPI SPCR) or a setting (serial=0x...) names a port, and
 * setting a UART up writes to it: the scratch-register round trip at
 * base + 7, the line control, the FIFO control.  A port the firmware names
 * can be anything: base 0xCF2 puts "scratch" on 0xCF9, the reset control
 * register (the machine resets); 0xED puts it on 0xF4, QEMU's
 * isa-debug-exit (QEMU exits); 0x8B on 0x92, port A (fast reset/A20).  So
 * a named port is taken only when
 *   - it is one of the COM1-COM4 bases, where PCs decode a 16550 and
 *     nothing else (the scratch round trip then proves it answers), or
 *   - it lies outside the legacy chipset ports (below 0x100, and the PCI
 *     configuration ports 0xCF8-0xCFF) and its registers, read and never
 *     written, are what a 16550 returns (uart_reads_refusal) -- then it is
 *     set up without the scratch round trip.
 * Pure: the reads are taken by src/arch/x86/uart.c and judged here. */
#ifndef CP_UART_ID_H
#define CP_UART_ID_H
#include "util.h"

#define UART_PORT_SPAN 8 /* a 16550 decodes base .. base + 7 */

/* Port offsets (PC16550D data sheet, table II). */
#define UART_THR 0 /* write: transmit; read: receive (RBR) */
#define UART_DLL 0 /* with LCR.DLAB: divisor latch */
#define UART_DLM 1
#define UART_IER 1
#define UART_FCR 2 /* write only */
#define UART_IIR 2 /* read only */
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define UART_MSR 6
#define UART_SCR 7

bool uart_is_com_base(uint16_t base);

/* NULL when a UART at base may be considered at all, else why not (static
 * text): zero, a range past port 0xFFFF, or one that overlaps the legacy
 * chipset ports (DMA, PIC, PIT, keyboard controller, CMOS, POST, port A,
 * APM/SMI command, the FPU and isa-debug-exit below 0x100; the PCI
 * configuration ports and the reset control register at 0xCF8-0xCFF),
 * where a write can reset, power off or stop the machine. */
const char *uart_port_refusal(uint16_t base);

/* One pass of register reads at a candidate base, in this order; LSR is
 * read up to UART_LSR_READS times and lsr_thre_seen says whether the
 * transmitter-empty bit showed in any (a transmitting UART clears it for
 * a while; a register that is not a UART's shows the same bits each time). */
struct uart_reads {
	uint8_t ier, iir, lcr, mcr, lsr, scr;
	bool lsr_thre_seen;
};
#define UART_LSR_READS 1024

/* NULL when two passes of reads are what a 16550 (or 16450/16750)
 * returns, else why not (static text):
 *   - no register reads 0xFF (nothing decodes the port: the bus floats);
 *   - IER bits 7:4, IIR bit 4, MCR bits 7:6 read 0 (reserved bits);
 *   - IIR bits 3:0 name an interrupt the chip has (1 none, 6, 4, 0xC, 2, 0)
 *     and IIR bits 7:6 are 00 or 11 (FIFOs off or on);
 *   - LCR.DLAB is clear (else offsets 0 and 1 are the divisor latch);
 *   - LSR shows the transmitter holding register empty within
 *     UART_LSR_READS reads, and never TEMT without THRE;
 *   - IER, LCR, MCR and SCR read the same in both passes (registers, not
 *     status that moves). */
const char *uart_reads_refusal(const struct uart_reads *a, const struct uart_reads *b);
#endif
