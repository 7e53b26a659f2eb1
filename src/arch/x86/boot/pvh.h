/* What the direct-boot (PVH) files share; pvh_start.S is their entry. */
#ifndef CP_PVH_H
#define CP_PVH_H
#include "acpi.h"
#include "platform.h"

#define WAKE_VECTOR 0xf0
#define SPURIOUS_VECTOR 0xff

/* pvh_start.S */
extern char pvh_vector_stubs[], pvh_vector_return[];
void pvh_main(uint32_t start_info_phys) __attribute__((noreturn));
void pvh_ap_main(uint32_t index) __attribute__((noreturn));

/* pvh_idt.c */
void pvh_idt_install(void);
/* Also the first thing an AP does, before it can fault. */
void pvh_idt_load(void);
void pvh_unexpected_vector(const uint64_t *frame) __attribute__((noreturn));

/* pvh_smp.c */
void pvh_smp_boot(const struct acpi_madt_info *madt, uint32_t package_shift, struct platform *plat);
#endif
