#ifndef CP_DISCOVER_H
#define CP_DISCOVER_H
#include "results.h"

/* CPUID, hypervisor, ACPI, SMBIOS, CPUs, VMware backdoor, a rough TSC
 * rate: the hardware side of discovery, feeding the pure decoders. */
void discover_platform(struct run_results *r);
/* SEV / SEV-ES / SNP (Secure TSC) and TDX into f->coco (coco.c); part of
 * discover_platform. */
void discover_confidential(struct probe_facts *f);
/* The dump setting: records every CPUID leaf into r->raw. */
void discover_capture_raw(struct run_results *r);
/* Picks and opens the UART: settings, else ACPI SPCR, else COM1. */
void discover_console(struct run_results *r);
/* Run id and start time (identity.c), after discover_platform. */
void discover_identity(struct run_results *r);
/* Identity map of physical memory, every page probed through the fault
 * guard first: a table pointer into nowhere becomes NULL, not a #PF. */
const void *phys_map_guarded(void *ctx, uint64_t phys, uint32_t len);
#endif
