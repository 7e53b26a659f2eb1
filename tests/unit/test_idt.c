/* The fault guard's table (src/arch/x86/idt.c): a copy of the firmware's with
 * only #UD, #GP and #PF replaced.  The promise a confidential guest needs:
 * #VE (20, TDX) and #VC (29, SEV-ES/SNP) -- and every other vector -- are
 * the firmware's gates while the guard is installed. */
#include "check.h"
#include "idt.h"

static struct idt_gate fw[IDT_VECTORS], guard[IDT_VECTORS];

/* A distinct, plausible gate per vector, as firmware would install. */
static struct idt_gate firmware_gate(unsigned v)
{
	struct idt_gate g = { 0 };
	uint64_t handler = 0x7f000000ull + v * 0x40;
	g.offset_low = (uint16_t)handler;
	g.selector = 0x38;
	g.ist = (uint8_t)(v == IDT_VECTOR_VC); /* firmware may give #VC its own stack */
	g.type_attr = 0x8e;
	g.offset_mid = (uint16_t)(handler >> 16);
	g.offset_high = (uint32_t)(handler >> 32);
	return g;
}

static const uint8_t ours[] = { 6, 13, 14 };

static void build(size_t fw_count)
{
	struct idt_gate gates[3];
	for (unsigned i = 0; i < 3; i++) {
		memset(&gates[i], 0, sizeof gates[i]);
		gates[i].offset_low = (uint16_t)(0x1000 + i);
		gates[i].selector = 0x38;
		gates[i].type_attr = 0x8e;
	}
	idt_build_guard(guard, fw, fw_count, ours, gates, 3);
}

TEST(ve_and_vc_stay_the_firmwares)
{
	for (unsigned v = 0; v < IDT_VECTORS; v++)
		fw[v] = firmware_gate(v);
	build(IDT_VECTORS);
	static const uint8_t confidential[] = { IDT_VECTOR_VE, IDT_VECTOR_VC };
	CHECK_EQ_U64(idt_vectors_kept(fw, guard, confidential, 2), 2);
	CHECK(memcmp(&guard[20], &fw[20], sizeof fw[20]) == 0);
	CHECK(memcmp(&guard[29], &fw[29], sizeof fw[29]) == 0);
	CHECK_EQ_U64(guard[29].ist, 1);
	/* Every vector but the guard's three. */
	for (unsigned v = 0; v < IDT_VECTORS; v++) {
		bool replaced = v == 6 || v == 13 || v == 14;
		CHECK(replaced == (memcmp(&guard[v], &fw[v], sizeof fw[v]) != 0));
	}
	CHECK_EQ_U64(guard[13].offset_low, 0x1001);
	CHECK_EQ_U64(idt_vectors_kept(fw, guard, ours, 3), 0);
}

/* A firmware table shorter than 256 vectors (a limit below 0xfff): what
 * it has is copied, the rest is not-present (zero). */
TEST(short_firmware_table)
{
	for (unsigned v = 0; v < IDT_VECTORS; v++)
		fw[v] = firmware_gate(v);
	build(32);
	CHECK(memcmp(&guard[29], &fw[29], sizeof fw[29]) == 0);
	static const struct idt_gate zero;
	CHECK(memcmp(&guard[32], &zero, sizeof zero) == 0);
	CHECK(memcmp(&guard[255], &zero, sizeof zero) == 0);
	build(0);
	CHECK(memcmp(&guard[20], &zero, sizeof zero) == 0);
	CHECK_EQ_U64(guard[6].offset_low, 0x1000);
	CHECK_EQ_U64(sizeof(struct idt_gate), 16);
}
