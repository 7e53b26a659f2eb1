#include "idt.h"

void idt_build_guard(struct idt_gate dst[IDT_VECTORS], const struct idt_gate *fw, size_t fw_count,
		     const uint8_t *vector, const struct idt_gate *gate, size_t n)
{
	memset(dst, 0, IDT_VECTORS * sizeof *dst);
	if (fw_count > IDT_VECTORS)
		fw_count = IDT_VECTORS;
	if (fw && fw_count)
		memcpy(dst, fw, fw_count * sizeof *dst);
	for (size_t i = 0; i < n; i++)
		dst[vector[i]] = gate[i];
}

unsigned idt_vectors_kept(const struct idt_gate *a, const struct idt_gate *b, const uint8_t *vector, size_t n)
{
	unsigned kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += mem_equal(&a[vector[i]], &b[vector[i]], sizeof *a);
	return kept;
}
