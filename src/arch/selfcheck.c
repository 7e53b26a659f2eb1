/* Proves on every run that the fault guard works before anything relies
 * on it: a read of a non-canonical address (#GP on every x86-64) and a
 * read of an MSR no CPU or hypervisor defines.  Both must come back as a
 * caught fault or a plain value, never as a dead VM. */
#include "fault.h"

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
}
