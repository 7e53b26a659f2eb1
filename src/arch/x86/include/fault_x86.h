/* x86's guarded instructions, beside the generic ones of fault.h: the
 * same recovery (the guard's #UD/#GP/#PF handlers resume at the wrapper's
 * recovery label), for MSRs and the KVM hypercall.  Each returns
 * FAULT_NONE or the vector that was caught. */
#ifndef CP_FAULT_X86_H
#define CP_FAULT_X86_H
#include "fault.h"

int rdmsr_safe(uint32_t msr, uint64_t *value);
int wrmsr_safe(uint32_t msr, uint64_t value);
/* A KVM hypercall: VMMCALL when vmmcall (AMD), else VMCALL (Intel); *ret
 * receives RAX.  Only where CPUID shows KVM. */
int hypercall_safe(uint64_t nr, uint64_t a0, uint64_t a1, int vmmcall, uint64_t *ret);
#endif
