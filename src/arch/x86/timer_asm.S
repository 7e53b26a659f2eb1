/* The timer stage's interrupt handler (src/arch/x86/measure/timers.c).  Its first
 * work is the time stamp: two pushes make room for RDTSC, nothing else
 * comes before it, so the latency a shot reports runs from the timer's
 * due time to this instruction.  Then the C side (EOI, the count) with
 * every caller-saved register kept, and back. */
	.text
	.code64
	.globl timer_irq_stub
timer_irq_stub:
	pushq %rax
	pushq %rdx
	rdtsc
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, timer_irq_tsc(%rip)
	pushq %rcx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %rbx
	movq %rsp, %rbx
	andq $-16, %rsp
	cld
	call timer_irq_c
	movq %rbx, %rsp
	popq %rbx
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rcx
	popq %rdx
	popq %rax
	iretq

	.bss
	.balign 8
	.globl timer_irq_tsc
	.hidden timer_irq_tsc
timer_irq_tsc:
	.quad 0
	.section .note.GNU-stack,"",@progbits
