/* Where PSCI CPU_ON starts another CPU (cpus.c): at EL1 with its MMU and
 * caches off and x0 = the context_id passed to CPU_ON, here the physical
 * (= virtual: UEFI's identity map) address of a struct a64_ap_boot, which
 * the boot CPU cleaned to the point of coherency so that these
 * non-cacheable loads see it.  The boot CPU's translation regime is loaded
 * (MAIR, TCR, TTBR0, and VBAR so that a fault lands in the firmware's
 * handler, not at address 0), the TLB is emptied of anything from before,
 * and only then is SCTLR written, turning the MMU and caches on: no
 * cacheable access happens before the tables that make it coherent with
 * the boot CPU are in place.  Then the stack, and the C entry with its
 * argument; it never returns (it powers the CPU off), and if it did the
 * CPU would wait here for ever, touching nothing. */
	.text
	.globl	a64_ap_entry
	.balign	64
a64_ap_entry:
	ldr	x1, [x0, #0]		/* mair */
	msr	mair_el1, x1
	ldr	x1, [x0, #8]		/* tcr */
	msr	tcr_el1, x1
	ldr	x1, [x0, #16]		/* ttbr0 */
	msr	ttbr0_el1, x1
	ldr	x1, [x0, #32]		/* vbar */
	msr	vbar_el1, x1
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	ldr	x1, [x0, #24]		/* sctlr */
	msr	sctlr_el1, x1
	isb
	ldr	x1, [x0, #40]		/* stack top */
	mov	sp, x1
	ldr	x2, [x0, #48]		/* C entry */
	ldr	x0, [x0, #56]		/* its argument */
	blr	x2
1:	wfe
	b	1b
	.section .note.GNU-stack,"",%progbits
