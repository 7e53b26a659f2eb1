/* Direct kernel boot (PVH): from the 32-bit entry the VMM jumps to, into
 * long mode, then pvh_main().  Also the AP path (16 -> 32 -> 64 bit) and
 * the catch-all interrupt vectors.
 *
 * PVH entry state (Xen's hvm_start_info contract, which QEMU, Firecracker
 * and Cloud Hypervisor follow): 32-bit protected mode, flat segments,
 * paging off, interrupts off, %ebx = physical address of hvm_start_info,
 * no stack.  The image is linked at its load address (1 MiB, physical =
 * virtual), so absolute addresses work before and after paging. */

#define SEL_CODE64	0x08
#define SEL_DATA	0x10
#define SEL_CODE32	0x18

#define CR0_PE		0x00000001
#define CR0_ET		0x00000010
#define CR0_NE		0x00000020
#define CR0_PG		0x80000000
#define CR4_PAE		0x00000020
#include "msr.h"
#define EFER_LME	0x00000100

#define PTE_PRESENT	0x001
#define PTE_WRITE	0x002
#define PTE_PWT		0x008
#define PTE_PCD		0x010
#define PTE_LARGE	0x080
/* 2 MiB pages from 3 GiB up are uncached: see build_page_tables. */
#define FIRST_UC_PD_ENTRY 1536

#define BSP_STACK_BYTES	(64 * 1024)

/* Enter long mode with the shared page tables and jump to target.  CR0 is
 * written whole: an AP leaves INIT with CD and NW set (caches off), and the
 * PVH contract leaves every bit but PE/ET unspecified. */
.macro enter_long_mode target
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $pvh_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl $(CR0_PG | CR0_NE | CR0_ET | CR0_PE), %eax
	movl %eax, %cr0
	ljmp $SEL_CODE64, $\target
.endm

.macro load_data_segments
	movw $SEL_DATA, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
.endm

/* ------------------------------------------------------------------ BSP */
	.section .text.pvh_entry, "ax"
	.code32
	.globl pvh_start32
pvh_start32:
	/* The probe's first instruction: its TSC is where probe.elapsed_ms
	 * starts (issue 41).  The VMM's flat %ds reaches .data; %ebx (the
	 * start info) survives. */
	rdtsc
	movl %eax, pvh_entry_tsc
	movl %edx, pvh_entry_tsc + 4
	cli
	cld
	/* The VMM's GDT may live anywhere (QEMU: its option ROM); take ours
	 * before touching a segment register. */
	lgdt pvh_gdt_ptr
	ljmp $SEL_CODE32, $1f
1:	load_data_segments
	movl $pvh_bsp_stack_top, %esp

	/* Zero .bss (page tables and stacks live there).  %ebx survives. */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	shrl $2, %ecx
	xorl %eax, %eax
	rep stosl

	call build_page_tables
	enter_long_mode pvh_start64

/* Identity map of the first 4 GiB with 2 MiB pages: one PML4 entry, four
 * PDPT entries, four page directories.  RAM, the image and the ACPI tables
 * sit in the low 3 GiB and are write-back (PAT entry 0).  The top GiB is
 * where PC chipsets decode MMIO (IOAPIC 0xFEC00000, HPET 0xFED00000, LAPIC
 * 0xFEE00000, flash): PCD|PWT select PAT entry 3, UC, with the power-on
 * PAT.  Nothing else pins those ranges to UC: no firmware programmed the
 * MTRRs for us in every VMM, and a cached or speculative read of a
 * counter register would return stale time. */
build_page_tables:
	movl $pvh_pdpt, %eax
	orl $(PTE_PRESENT | PTE_WRITE), %eax
	movl %eax, pvh_pml4
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $12, %eax
	addl $pvh_pd, %eax
	orl $(PTE_PRESENT | PTE_WRITE), %eax
	movl %eax, pvh_pdpt(, %ecx, 8)
	incl %ecx
	cmpl $4, %ecx
	jb 2b
	xorl %ecx, %ecx
3:	movl %ecx, %eax
	shll $21, %eax
	orl $(PTE_PRESENT | PTE_WRITE | PTE_LARGE), %eax
	cmpl $FIRST_UC_PD_ENTRY, %ecx
	jb 4f
	orl $(PTE_PCD | PTE_PWT), %eax
4:	movl %eax, pvh_pd(, %ecx, 8)
	/* high dword stays 0 from the .bss clear */
	incl %ecx
	cmpl $2048, %ecx
	jb 3b
	ret

	.code64
pvh_start64:
	movl $pvh_bsp_stack_top, %esp
	movl %ebx, %edi
	call pvh_main
5:	cli
	hlt
	jmp 5b

/* ------------------------------------------------------------------- APs */
/* Real-mode trampoline, copied to AP_TRAMPOLINE_PHYS (SIPI vector 0x08):
 * CS = 0x0800, IP = 0.  Only this part runs below 1 MiB; it switches to
 * protected mode and jumps into the image. */
	.section .text, "ax"
	.code16
	.globl pvh_trampoline_start, pvh_trampoline_end
pvh_trampoline_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl (tramp_gdt_ptr - pvh_trampoline_start)
	movl $(CR0_NE | CR0_ET | CR0_PE), %eax
	movl %eax, %cr0
	ljmpl $SEL_CODE32, $pvh_ap_start32
	.p2align 2
tramp_gdt_ptr:
	.word pvh_gdt_end - pvh_gdt - 1
	.long pvh_gdt
pvh_trampoline_end:

	.code32
pvh_ap_start32:
	load_data_segments
	enter_long_mode pvh_ap_start64

	.code64
/* Each AP takes the next stack slot by arrival order; one that arrives
 * beyond the slots the BSP prepared parks for good. */
pvh_ap_start64:
	movl $1, %eax
	lock xaddl %eax, pvh_ap_arrivals
	cmpl pvh_ap_stack_count, %eax
	jae 6f
	movl %eax, %edi
	leal 1(%eax), %eax
	imulq pvh_ap_stack_bytes, %rax
	addq pvh_ap_stack_base, %rax
	movq %rax, %rsp
	call pvh_ap_main
6:	cli
	hlt
	jmp 6b

/* ------------------------------------------------------------- vectors */
/* 256 stubs, 16 bytes apart, so pvh.c can point gate v at stubs + 16 * v.
 * Each makes the same frame: vector, error code (0 where the CPU pushes
 * none), then the CPU's rip, cs, rflags, rsp, ss. */
	.p2align 4
	.globl pvh_vector_stubs
pvh_vector_stubs:
	vector = 0
	.rept 256
	.p2align 4
	.if vector != 8 && (vector < 10 || vector > 14) && vector != 17 && vector != 21 && vector != 29 && vector != 30
	pushq $0
	.endif
	pushq $vector
	jmp pvh_vector_common
	vector = vector + 1
	.endr

pvh_vector_common:
	movq %rsp, %rdi
	andq $-16, %rsp
	call pvh_unexpected_vector
7:	cli
	hlt
	jmp 7b

/* The AP wake-up IPI and the APIC's spurious vector: the AP loop does the
 * EOI itself after hlt returns, so the handler only has to come back. */
	.globl pvh_vector_return
pvh_vector_return:
	iretq

/* ------------------------------------------------------------------ data */
	.section .rodata, "a"
	.p2align 3
	.globl pvh_gdt, pvh_gdt_end
pvh_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: flat data */
	.quad 0x00cf9a000000ffff	/* 0x18: flat 32-bit code */
pvh_gdt_end:
pvh_gdt_ptr:
	.word pvh_gdt_end - pvh_gdt - 1
	.quad pvh_gdt

	.section .bss, "aw", @nobits
	.p2align 12
	.globl pvh_pml4, pvh_pdpt, pvh_pd
pvh_pml4:
	.skip 4096
pvh_pdpt:
	.skip 4096
pvh_pd:
	.skip 4 * 4096
	.p2align 4
	.skip BSP_STACK_BYTES
pvh_bsp_stack_top:

/* Xen ELF note XEN_ELFNOTE_PHYS32_ENTRY (18): the 32-bit physical entry.
 * QEMU finds the descriptor at namesz rounded up to the PT_NOTE segment's
 * alignment, so the section stays 4-byte aligned. */
	.section .note.pvh, "a", @note
	.p2align 2
	.long 4			/* namesz */
	.long 4			/* descsz */
	.long 18		/* type */
	.asciz "Xen"
	.long pvh_start32

/* Written at the entry, before .bss is cleared: .data. */
	.section .data
	.p2align 3
	.globl pvh_entry_tsc
pvh_entry_tsc:
	.quad 0

	.section .note.GNU-stack, "", @progbits
