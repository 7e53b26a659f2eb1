/* The interrupt descriptor table as data: the 16-byte x86-64 gate and the
 * pure half of the fault guard, which builds its table as a copy of the
 * firmware's with only its own vectors replaced.  Pure so the host tests
 * can prove that promise, vector by vector: a confidential guest's
 * firmware handles #VE (20, TDX) and #VC (29, SEV-ES/SNP) for every CPUID,
 * MSR and port access the probe makes, and the guard must leave those
 * gates exactly as the firmware set them. */
#ifndef CP_IDT_H
#define CP_IDT_H
#include "util.h"

#define IDT_VECTORS 256
#define IDT_VECTOR_VE 20 /* virtualization exception: TDX */
#define IDT_VECTOR_VC 29 /* VMM communication exception: SEV-ES/SNP */

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

/* dst[0..IDT_VECTORS) = the firmware's fw[0..fw_count) (zero beyond it),
 * then gate[i] at vector[i] for i < n; nothing else changes. */
void idt_build_guard(struct idt_gate dst[IDT_VECTORS], const struct idt_gate *fw, size_t fw_count,
		     const uint8_t *vector, const struct idt_gate *gate, size_t n);

/* How many of the given vectors hold the same gate in a and b. */
unsigned idt_vectors_kept(const struct idt_gate *a, const struct idt_gate *b, const uint8_t *vector, size_t n);
#endif
