/* KVM_HC_CLOCK_PAIRING (Linux Documentation/virt/kvm/x86/hypercalls.rst)
 * at the instruction level: one pairing through the fault guard, and the
 * same call as an argument-less operation for the engine (every measured
 * op takes no argument, so the harness around it is the same for all):
 * one for VMCALL (Intel), one for VMMCALL (AMD).  The host writes its
 * answer into the one page below, which is why it is here and not in the
 * caller's hands: the argument-less op has to name it.  Called only where
 * CPUID shows KVM and the guest's memory is not encrypted (the caller,
 * src/arch/x86/measure/kvm_pv.c, decides). */
#include "kvm_pv_measure.h"
#include "fault.h"
#include "fault_x86.h"

static struct kvm_clock_pairing pairing_area __attribute__((aligned(64)));

static int pair(int vmmcall, uint64_t *ret)
{
	return hypercall_safe(KVM_HC_CLOCK_PAIRING, (uint64_t)(uintptr_t)&pairing_area, KVM_CLOCK_PAIRING_WALLCLOCK,
			      vmmcall, ret);
}

int kvm_clock_pairing_once(int vmmcall, struct kvm_pairing_sample *out)
{
	int fault = pair(vmmcall, &out->ret);
	out->sec = pairing_area.sec;
	out->nsec = pairing_area.nsec;
	out->tsc = pairing_area.tsc;
	return fault;
}

/* Measured only after a first call proved the instruction does not fault. */
uint64_t kvm_clock_pairing_vmcall(void)
{
	uint64_t ret;
	pair(0, &ret);
	return ret;
}

uint64_t kvm_clock_pairing_vmmcall(void)
{
	uint64_t ret;
	pair(1, &ret);
	return ret;
}
