/* The direct-boot build's interrupt table: every vector gets a stub, and
 * one the fault guard does not own ends in a message and a "probe failed"
 * exit instead of a silent triple fault.  Shared by the BSP (pvh.c) and
 * the APs (pvh_smp.c). */
#include "pvh.h"
#include "x86.h"
#include "ioports.h"

static struct idt_gate idt[256] __attribute__((aligned(16)));

/* ------------------------------------------------------ fatal vectors */

static void com1_write(const char *s)
{
	for (; *s; s++) {
		for (uint32_t polls = 0; polls < 100000 && !(inb(COM1_PORT + 5) & 0x20); polls++)
			cpu_relax();
		outb(COM1_PORT, (uint8_t)*s);
	}
}

static void com1_hex(uint64_t v)
{
	char digits[17];
	for (int i = 15; i >= 0; i--, v >>= 4)
		digits[i] = "0123456789abcdef"[v & 15];
	digits[16] = 0;
	com1_write(digits);
}

/* Any vector the fault guard does not own (#DF, NMI, #MC, a stray
 * interrupt) ends here instead of triple-faulting silently: say which,
 * leave through isa-debug-exit with "probe failed", else halt. */
void pvh_unexpected_vector(const uint64_t *frame)
{
	com1_write("\r\nclockprobe: FATAL unexpected vector 0x");
	com1_hex(frame[0]);
	com1_write(" error 0x");
	com1_hex(frame[1]);
	com1_write(" at rip 0x");
	com1_hex(frame[2]);
	com1_write("\r\n");
	/* As the run leaves (src/run/leave.c): only under a hypervisor and
	 * where isa-debug-exit answers (it reads 0x00, nothing there 0xFF). */
	uint32_t id[4];
	cpuid_raw(1, 0, id);
	if ((id[2] & (1u << 31)) && inb(DEBUG_EXIT_PORT) == 0x00)
		outb(DEBUG_EXIT_PORT, DEBUG_EXIT_PROBE_FAILED);
	halt_forever();
	__builtin_unreachable();
}

/* Every vector gets a handler; fault_guard_install later copies this
 * table and overrides #UD/#GP/#PF. */
void pvh_idt_install(void)
{
	for (unsigned v = 0; v < ARRAY_SIZE(idt); v++)
		idt_set_gate(&idt[v], pvh_vector_stubs + 16 * v);
	idt_set_gate(&idt[WAKE_VECTOR], pvh_vector_return);
	idt_set_gate(&idt[SPURIOUS_VECTOR], pvh_vector_return);
	pvh_idt_load();
}

/* Also the first thing an AP does (pvh_smp.c), before it can fault. */
void pvh_idt_load(void)
{
	struct descriptor_table_ptr p = { sizeof idt - 1, (uint64_t)(uintptr_t)idt };
	lidt(&p);
}

