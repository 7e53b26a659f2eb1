/* Proves on every run that the fault guard works before anything relies
 * on it: a read of a non-canonical address (#GP on every x86-64) and a
 * read of an MSR no CPU or hypervisor defines.  Both must come back as a
 * caught fault or a plain value, never as a dead VM.  And that the guard
 * left the firmware's #VE and #VC gates alone (a TDX or SEV-ES/SNP
 * guest's firmware handles every CPUID, MSR and port access through
 * them). */
#include "fault.h"
#include "fault_x86.h"
#include "idt.h"

/* Inside the architecturally reserved range no vendor documents; KVM and
 * bare metal raise #GP, while emulators may answer 0. */
#define BOGUS_MSR 0x4c0de000u
#define NONCANONICAL_ADDRESS 0x8000000000000000ull

void fault_selfcheck(struct fault_selfcheck *out)
{
	uint8_t byte;
	uint64_t value = 0;
	out->noncanonical_vector = read_byte_safe(NONCANONICAL_ADDRESS, &byte);
	out->bogus_msr = BOGUS_MSR;
	out->bogus_msr_vector = rdmsr_safe(BOGUS_MSR, &value);
	out->bogus_msr_value = value;
	static const uint8_t confidential_vectors[] = { IDT_VECTOR_VE, IDT_VECTOR_VC };
	out->ve_vc_kept = fault_guard_firmware_vectors_kept(confidential_vectors, ARRAY_SIZE(confidential_vectors),
							    &out->ve_vc_firmware_has);
}
