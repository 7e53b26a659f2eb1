/* Guarded single instructions and the fault vector stubs.
 * Each guarded routine: the instruction at label *_insn may fault; the
 * handler then resumes at *_fixup with %eax = vector.  Registers follow the
 * SysV ABI (the probe's own convention). */
	.text
	.code64

/* int rdmsr_safe(uint32_t msr, uint64_t *value) */
	.globl rdmsr_safe, rdmsr_insn, rdmsr_fixup
rdmsr_safe:
	movl %edi, %ecx
rdmsr_insn:
	rdmsr
	shlq $32, %rdx
	orq %rdx, %rax
	movq %rax, (%rsi)
	xorl %eax, %eax
rdmsr_fixup:
	ret

/* int wrmsr_safe(uint32_t msr, uint64_t value) */
	.globl wrmsr_safe, wrmsr_insn, wrmsr_fixup
wrmsr_safe:
	movl %edi, %ecx
	movl %esi, %eax
	movq %rsi, %rdx
	shrq $32, %rdx
wrmsr_insn:
	wrmsr
	xorl %eax, %eax
wrmsr_fixup:
	ret

/* int mmio_read32_safe(uint64_t addr, uint32_t *value) */
	.globl mmio_read32_safe, mmio_read32_insn, mmio_read32_fixup
mmio_read32_safe:
mmio_read32_insn:
	movl (%rdi), %eax
	movl %eax, (%rsi)
	xorl %eax, %eax
mmio_read32_fixup:
	ret

/* int mmio_read64_safe(uint64_t addr, uint64_t *value) */
	.globl mmio_read64_safe, mmio_read64_insn, mmio_read64_fixup
mmio_read64_safe:
mmio_read64_insn:
	movq (%rdi), %rax
	movq %rax, (%rsi)
	xorl %eax, %eax
mmio_read64_fixup:
	ret

/* int mmio_write32_safe(uint64_t addr, uint32_t value) */
	.globl mmio_write32_safe, mmio_write32_insn, mmio_write32_fixup
mmio_write32_safe:
mmio_write32_insn:
	movl %esi, (%rdi)
	xorl %eax, %eax
mmio_write32_fixup:
	ret

/* int read_byte_safe(uint64_t addr, uint8_t *value) */
	.globl read_byte_safe, read_byte_insn, read_byte_fixup
read_byte_safe:
read_byte_insn:
	movb (%rdi), %al
	movb %al, (%rsi)
	xorl %eax, %eax
read_byte_fixup:
	ret

/* int hypercall_safe(uint64_t nr, uint64_t a0, uint64_t a1, int vmmcall, uint64_t *ret)
 * KVM's hypercall ABI (Documentation/virt/kvm/x86/hypercalls.rst): number
 * in RAX, arguments in RBX, RCX, RDX, RSI; result in RAX, every other
 * register preserved.  VMCALL (Intel) or VMMCALL (AMD); both #UD where no
 * hypervisor takes them. */
	.globl hypercall_safe, hypercall_vmcall_insn, hypercall_vmcall_fixup
	.globl hypercall_vmmcall_insn, hypercall_vmmcall_fixup
hypercall_safe:
	pushq %rbx
	movq %rdi, %rax
	movq %rsi, %rbx
	movl %ecx, %r9d
	movq %rdx, %rcx
	testl %r9d, %r9d
	jnz 1f
hypercall_vmcall_insn:
	vmcall
	jmp 2f
1:
hypercall_vmmcall_insn:
	vmmcall
2:
	movq %rax, (%r8)
	xorl %eax, %eax
hypercall_vmcall_fixup:
hypercall_vmmcall_fixup:
	popq %rbx
	ret

/* Vector stubs: give every frame the same shape (error code, vector). */
	.globl fault_stub_ud, fault_stub_gp, fault_stub_pf
fault_stub_ud:
	pushq $0
	pushq $6
	jmp fault_common
fault_stub_gp:
	pushq $13
	jmp fault_common
fault_stub_pf:
	pushq $14
	jmp fault_common

/* Frame seen by fault_dispatch (struct fault_frame in fault.c):
 * rbx rax rcx rdx rsi rdi r8 r9 r10 r11 | vector error rip cs rflags rsp ss */
fault_common:
	pushq %r11
	pushq %r10
	pushq %r9
	pushq %r8
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %rax
	pushq %rbx
	movq %rsp, %rdi
	/* Keep the stack 16-byte aligned for the C call. */
	movq %rsp, %rbx
	andq $-16, %rsp
	cld
	call fault_dispatch
	movq %rbx, %rsp
	popq %rbx
	popq %rax
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	popq %r8
	popq %r9
	popq %r10
	popq %r11
	addq $16, %rsp
	iretq
	.section .note.GNU-stack,"",@progbits
