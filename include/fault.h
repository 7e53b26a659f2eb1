/* Fault guard: accesses that may fault (an MSR the CPU lacks, MMIO at an
 * address a table gave us, an instruction CPUID did not promise) run through
 * these wrappers.  Our #UD/#GP/#PF handlers recognise the exact instruction
 * address of each wrapper and resume at its recovery label with the vector
 * number as the result, the way Linux's exception tables work.  Any other
 * fault is fatal: reported on the serial console, then the VM is left with
 * the "probe failed" exit value instead of hanging. */
#ifndef CP_FAULT_H
#define CP_FAULT_H
#include <stdint.h>
#include <stdbool.h>
#include "fault_names.h"

/* Installs the guard on the calling CPU: copies the current IDT (so the
 * firmware's own interrupt vectors keep working) and overrides the three
 * fault vectors. */
void fault_guard_install(void);
void fault_guard_remove(void);
bool fault_guard_installed(void);
/* Of the given vectors, how many the loaded table holds exactly as the
 * firmware's table does (*firmware_has: how many the firmware's table
 * covers at all).  The boot-time proof that #VE and #VC stay the
 * firmware's while the guard is live. */
unsigned fault_guard_firmware_vectors_kept(const uint8_t *vector, unsigned n, unsigned *firmware_has);
/* Loads the already-built guard IDT on another CPU (an AP). */
void fault_guard_load_on_this_cpu(void);

/* Each returns FAULT_NONE or the vector that was caught.  An arch adds
 * its own guarded instructions in its own header (x86: fault_x86.h). */
int mmio_read32_safe(uint64_t addr, uint32_t *value);
int mmio_read64_safe(uint64_t addr, uint64_t *value);
int mmio_write32_safe(uint64_t addr, uint32_t value);
int read_byte_safe(uint64_t addr, uint8_t *value);

/* Number of faults caught by the guard since boot (for the report). */
uint32_t fault_caught_count(void);

/* An unexpected fault on an AP (any CPU but the one that installed the
 * guard): recorded here, the AP parked with interrupts off.  The BSP
 * reports them (crosscpu.c); the fatal handler runs on the BSP only. */
#define FAULT_MAX_AP_FAULTS 8
struct ap_fault {
	int vector; /* 0 until the record is complete */
	uint32_t apic_id;
	uint64_t rip, error_code;
};
/* How many APs faulted (may exceed FAULT_MAX_AP_FAULTS); *list = records. */
uint32_t fault_ap_faults(const struct ap_fault **list);

/* Called for a fault no wrapper expected; must not return. */
void fault_set_fatal_handler(void (*handler)(int vector, uint64_t rip, uint64_t error_code));

/* Proof on every run that the guard works before anything relies on it
 * (selfcheck.c): a non-canonical read and a read of an MSR nobody
 * defines, each a caught fault or a plain value, never a dead VM; and
 * that the guard left the firmware's #VE and #VC gates alone. */
struct fault_selfcheck {
	int noncanonical_vector;   /* expected FAULT_GP */
	uint32_t bogus_msr;
	int bogus_msr_vector;      /* FAULT_GP on KVM/bare metal; TCG answers */
	uint64_t bogus_msr_value;
	/* #VE (20) and #VC (29): gates the firmware's table has, and how many
	 * of them the loaded (guard) table keeps identical. */
	unsigned ve_vc_firmware_has, ve_vc_kept;
};
void fault_selfcheck(struct fault_selfcheck *out);
#endif
