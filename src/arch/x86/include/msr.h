/* Model-specific register numbers, all in one place, with the names Linux
 * gives them (arch/x86/include/asm/msr-index.h, hyperv-tlfs.h,
 * kvm_para.h).  Any access that may fault goes through rdmsr_safe /
 * wrmsr_safe (fault.h).  Plain numbers: the PVH entry code includes this
 * from assembly. */
#ifndef CP_MSR_H
#define CP_MSR_H

#define MSR_IA32_TSC 0x00000010           /* the TSC itself (writable) */
#define MSR_IA32_APICBASE 0x0000001b
#define MSR_SMI_COUNT 0x00000034          /* Intel: SMIs taken since reset, read-only */
#define MSR_IA32_TSC_ADJUST 0x0000003b
#define MSR_IA32_TSC_DEADLINE 0x000006e0  /* the LAPIC timer's TSC-deadline (CPUID.1:ECX[24]) */
#define MSR_X2APIC_BASE 0x00000800        /* x2APIC register r at 0x800 + (xAPIC offset >> 4) */
#define MSR_EFER 0xc0000080

/* AMD family 10h+: bit 1 makes LFENCE dispatch-serializing. */
#define MSR_AMD64_DE_CFG 0xc0011029
#define MSR_AMD64_DE_CFG_LFENCE_SERIALIZE 0x2

/* KVM paravirtual clock (Documentation/virt/kvm/x86/msr.rst). */
#define MSR_KVM_SYSTEM_TIME 0x00000012
#define MSR_KVM_SYSTEM_TIME_NEW 0x4b564d01

/* Hyper-V synthetic MSRs (TLFS). */
#define HV_X64_MSR_TIME_REF_COUNT 0x40000020
#define HV_X64_MSR_REFERENCE_TSC 0x40000021
#define HV_X64_MSR_TSC_FREQUENCY 0x40000022

#endif
