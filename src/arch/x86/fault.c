#include "fault.h"
#include "x86.h"
#include "util.h"

struct fault_frame {
	uint64_t rbx, rax, rcx, rdx, rsi, rdi, r8, r9, r10, r11;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};


extern char fault_stub_ud[], fault_stub_gp[], fault_stub_pf[];
#define GUARDED(name) extern char name##_insn[], name##_fixup[]
GUARDED(rdmsr);
GUARDED(wrmsr);
GUARDED(mmio_read32);
GUARDED(mmio_read64);
GUARDED(mmio_write32);
GUARDED(read_byte);
GUARDED(hypercall_vmcall);
GUARDED(hypercall_vmmcall);

static struct idt_gate guard_idt[IDT_VECTORS] __attribute__((aligned(16)));
static struct descriptor_table_ptr saved_idt;
static bool installed;
/* The guard table as installed: a gate that differs at removal was set by
 * firmware (through SIDT) while the guard was live, and belongs in the
 * firmware's own table. */
static struct idt_gate guard_idt_as_installed[IDT_VECTORS];
static volatile uint32_t caught;
static void (*fatal_handler)(int, uint64_t, uint64_t);
static uint32_t bsp_apic_id;
static struct ap_fault ap_faults[FAULT_MAX_AP_FAULTS];
static uint32_t ap_fault_count;

static uint32_t this_apic_id(void)
{
	uint32_t r[4];
	cpuid_raw(1, 0, r);
	return r[1] >> 24;
}

/* Resolved at run time with RIP-relative addresses, so the table needs no
 * relocations in either the PE (UEFI) or the static ELF (PVH) build. */
static uint64_t fixup_for(uint64_t rip)
{
	const struct {
		char *insn, *fixup;
	} table[] = {
		{ rdmsr_insn, rdmsr_fixup },
		{ wrmsr_insn, wrmsr_fixup },
		{ mmio_read32_insn, mmio_read32_fixup },
		{ mmio_read64_insn, mmio_read64_fixup },
		{ mmio_write32_insn, mmio_write32_fixup },
		{ read_byte_insn, read_byte_fixup },
		{ hypercall_vmcall_insn, hypercall_vmcall_fixup },
		{ hypercall_vmmcall_insn, hypercall_vmmcall_fixup },
	};
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (rip == (uint64_t)(uintptr_t)table[i].insn)
			return (uint64_t)(uintptr_t)table[i].fixup;
	return 0;
}

void fault_dispatch(struct fault_frame *f);
void fault_dispatch(struct fault_frame *f)
{
	uint64_t fixup = fixup_for(f->rip);
	if (fixup) {
		caught++;
		f->rip = fixup;
		f->rax = f->vector;
		return;
	}
	/* On an AP: no console, no firmware call (neither is MP-safe).
	 * Leave the fault for the BSP to report and park here; the BSP's
	 * cross-CPU phase sees this AP stop answering within its budget. */
	uint32_t id = this_apic_id();
	if (id != bsp_apic_id) {
		uint32_t slot = __atomic_fetch_add(&ap_fault_count, 1, __ATOMIC_ACQ_REL);
		if (slot < FAULT_MAX_AP_FAULTS) {
			ap_faults[slot].apic_id = id;
			ap_faults[slot].rip = f->rip;
			ap_faults[slot].error_code = f->error_code;
			__atomic_store_n(&ap_faults[slot].vector, (int)f->vector, __ATOMIC_RELEASE);
		}
		halt_forever();
	}
	if (fatal_handler)
		fatal_handler((int)f->vector, f->rip, f->error_code);
	halt_forever();
}

uint32_t fault_ap_faults(const struct ap_fault **list)
{
	*list = ap_faults;
	return __atomic_load_n(&ap_fault_count, __ATOMIC_ACQUIRE);
}

void fault_guard_install(void)
{
	if (installed)
		return;
	bsp_apic_id = this_apic_id();
	sidt(&saved_idt);
	size_t have = saved_idt.base ? ((size_t)saved_idt.limit + 1) / sizeof(struct idt_gate) : 0;
	/* The firmware's table with only our three fault vectors replaced:
	 * every other gate, #VE (20) and #VC (29) included, stays the
	 * firmware's (idt_build_guard, host-tested in test_idt). */
	static const uint8_t ours[] = { FAULT_UD, FAULT_GP, FAULT_PF };
	struct idt_gate gates[ARRAY_SIZE(ours)];
	idt_set_gate(&gates[0], fault_stub_ud);
	idt_set_gate(&gates[1], fault_stub_gp);
	idt_set_gate(&gates[2], fault_stub_pf);
	idt_build_guard(guard_idt, (const struct idt_gate *)(uintptr_t)saved_idt.base, have, ours, gates,
			ARRAY_SIZE(ours));
	memcpy(guard_idt_as_installed, guard_idt, sizeof guard_idt);
	fault_guard_load_on_this_cpu();
	installed = true;
}

void fault_guard_load_on_this_cpu(void)
{
	struct descriptor_table_ptr p = { sizeof guard_idt - 1, (uint64_t)(uintptr_t)guard_idt };
	lidt(&p);
}

void fault_guard_remove(void)
{
	if (!installed)
		return;
	if (saved_idt.base) {
		size_t have = ((size_t)saved_idt.limit + 1) / sizeof(struct idt_gate);
		struct idt_gate *fw = (struct idt_gate *)(uintptr_t)saved_idt.base;
		for (size_t v = 0; v < have && v < IDT_VECTORS; v++)
			if (!mem_equal(&guard_idt[v], &guard_idt_as_installed[v], sizeof guard_idt[v]))
				fw[v] = guard_idt[v];
		lidt(&saved_idt);
	}
	installed = false;
}

bool fault_guard_installed(void) { return installed; }

unsigned fault_guard_firmware_vectors_kept(const uint8_t *vector, unsigned n, unsigned *firmware_has)
{
	struct descriptor_table_ptr live;
	*firmware_has = 0;
	if (!installed || !saved_idt.base)
		return 0;
	/* Compare what is loaded now with the firmware's own table. */
	sidt(&live);
	size_t have = ((size_t)saved_idt.limit + 1) / sizeof(struct idt_gate);
	size_t live_have = ((size_t)live.limit + 1) / sizeof(struct idt_gate);
	const struct idt_gate *fw = (const struct idt_gate *)(uintptr_t)saved_idt.base;
	const struct idt_gate *now = (const struct idt_gate *)(uintptr_t)live.base;
	unsigned kept = 0;
	for (unsigned i = 0; i < n; i++) {
		if (vector[i] >= have)
			continue;
		(*firmware_has)++;
		if (vector[i] < live_have)
			kept += idt_vectors_kept(fw, now, &vector[i], 1);
	}
	return kept;
}
uint32_t fault_caught_count(void) { return caught; }

void fault_set_fatal_handler(void (*handler)(int, uint64_t, uint64_t))
{
	fatal_handler = handler;
}
