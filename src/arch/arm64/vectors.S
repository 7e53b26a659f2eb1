/* The probe's own EL1 exception vector table, installed in VBAR_EL1 only
 * on the CPU that takes the virtual timer's interrupt (gic.c), only for
 * that measurement, and only while the CPU runs at EL1 with SP_EL1
 * (SPSel 1: gic.c checks it), so only the "current EL with SPx" group
 * sees real traffic.  The firmware's table stays on every other CPU.
 *
 * IRQ: the counter is stamped first (ISB then MRS CNTVCT_EL0, after only
 * the one store that frees a register), then every register the AAPCS64
 * lets a C call clobber is saved, with ELR/SPSR, and gic.c's
 * a64_gic_irq_c(stamp) acknowledges, masks the timer and ends the
 * interrupt.  When it returns non-zero the interrupted code resumes with
 * IRQs masked (SPSR.I set): one interrupt per shot's window, so a stray
 * level interrupt cannot storm.
 *
 * Everything else (a synchronous exception: an undefined system register,
 * an abort; an FIQ, an SError, an IRQ on SP0 or from a lower EL) is not
 * returned to: a fault in the window would otherwise repeat for ever.
 * When a64_gic_guarded() is running it is recorded (ESR, ELR, FAR) and
 * a64_gic_guarded() returns 1 to its caller, with the callee-saved
 * registers and SP it entered with and every interrupt masked; with no
 * guard armed the CPU parks in WFE, and the boot CPU's deadline gives it
 * up (cpus.c), as it would a CPU that never answered. */
	.text

/* a64_gic_guarded(fn, arg): calls fn(arg); 0 when it returned, 1 when an
 * exception ended it (a64_gic_guard holds what was taken).  Not nested:
 * one CPU, one guard. */
	.globl	a64_gic_guarded
	.hidden	a64_gic_guarded
	.balign	16
a64_gic_guarded:
	adrp	x9, a64_gic_guard
	add	x9, x9, :lo12:a64_gic_guard
	stp	x19, x20, [x9, #0]
	stp	x21, x22, [x9, #16]
	stp	x23, x24, [x9, #32]
	stp	x25, x26, [x9, #48]
	stp	x27, x28, [x9, #64]
	stp	x29, x30, [x9, #80]
	mov	x10, sp
	str	x10, [x9, #96]
	mov	x10, #1
	str	x10, [x9, #104]		/* armed */
	mov	x10, x0
	mov	x0, x1
	blr	x10
	adrp	x9, a64_gic_guard
	add	x9, x9, :lo12:a64_gic_guard
	str	xzr, [x9, #104]
	ldr	x30, [x9, #88]
	mov	x0, #0
	ret

/* An exception not returned to; x1 = its kind (1 synchronous, 2 other). */
guard_unwind:
	adrp	x9, a64_gic_guard
	add	x9, x9, :lo12:a64_gic_guard
	ldr	x10, [x9, #104]
	cbz	x10, park
	str	xzr, [x9, #104]
	mrs	x10, esr_el1
	str	x10, [x9, #112]
	mrs	x10, elr_el1
	str	x10, [x9, #120]
	mrs	x10, far_el1
	str	x10, [x9, #128]
	str	x1, [x9, #136]
	ldp	x19, x20, [x9, #0]
	ldp	x21, x22, [x9, #16]
	ldp	x23, x24, [x9, #32]
	ldp	x25, x26, [x9, #48]
	ldp	x27, x28, [x9, #64]
	ldp	x29, x30, [x9, #80]
	ldr	x10, [x9, #96]
	mov	sp, x10
	/* "Return" from a64_gic_guarded with 1: EL1h, D A I F masked. */
	msr	elr_el1, x30
	mov	x10, #0x3c5
	msr	spsr_el1, x10
	mov	x0, #1
	eret
park:
	wfe
	b	park

sync_entry:
	mov	x1, #1
	b	guard_unwind
other_entry:
	mov	x1, #2
	b	guard_unwind

irq_entry:
	sub	sp, sp, #192
	stp	x0, x1, [sp, #0]
	isb
	mrs	x0, S3_3_C14_C0_2	/* CNTVCT_EL0: the handler's stamp */
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x29, [sp, #144]
	mrs	x1, elr_el1
	mrs	x2, spsr_el1
	stp	x30, x1, [sp, #160]
	str	x2, [sp, #176]
	bl	a64_gic_irq_c
	ldr	x2, [sp, #176]
	cbz	x0, 1f
	orr	x2, x2, #(1 << 7)	/* SPSR.I: back with IRQs masked */
1:	msr	spsr_el1, x2
	ldp	x30, x1, [sp, #160]
	msr	elr_el1, x1
	ldp	x18, x29, [sp, #144]
	ldp	x16, x17, [sp, #128]
	ldp	x14, x15, [sp, #112]
	ldp	x12, x13, [sp, #96]
	ldp	x10, x11, [sp, #80]
	ldp	x8, x9, [sp, #64]
	ldp	x6, x7, [sp, #48]
	ldp	x4, x5, [sp, #32]
	ldp	x2, x3, [sp, #16]
	ldp	x0, x1, [sp, #0]
	add	sp, sp, #192
	eret

/* VBAR_EL1 needs 2 KiB alignment; each entry is 128 bytes. */
	.balign	2048
	.globl	a64_gic_vectors
	.hidden	a64_gic_vectors
a64_gic_vectors:
	/* current EL, SP0: not used by the probe */
	b	sync_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	/* current EL, SPx: where the probe runs */
	b	sync_entry
	.balign	128
	b	irq_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	/* lower EL, AArch64 and AArch32: nothing runs there */
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry
	.balign	128
	b	other_entry

	.bss
	.balign	16
	.globl	a64_gic_guard
	.hidden	a64_gic_guard
a64_gic_guard:
	.zero	144
	.section .note.GNU-stack,"",%progbits
