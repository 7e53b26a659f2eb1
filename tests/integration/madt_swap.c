/* The hostile machine's MADT swap (issue 41): QEMU always builds its own
 * MADT and lists it before any -acpitable one, and the probe keeps the
 * first.  This PVH "kernel" runs first, swaps the first and the last
 * APIC entry of the RSDT and the XSDT (checksums fixed), then jumps to
 * the probe's PVH entry with the start info untouched in %ebx.  The probe
 * itself is put in memory by -device loader.  Built by hostile_machine.py
 * with -DPROBE_ENTRY=<the probe's ELF entry>. */
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

__asm__(".section .note.Xen, \"a\", @note\n"
	".p2align 2\n"
	".long 4, 4, 18\n" /* XEN_ELFNOTE_PHYS32_ENTRY */
	".asciz \"Xen\"\n"
	".long shim_start\n"
	".text\n"
	".globl shim_start\n"
	"shim_start:\n"
	"  movl $shim_stack_top, %esp\n"
	"  pushl %ebx\n"
	"  call swap_madt\n"
	"  popl %ebx\n"
	"  movl $" PROBE_ENTRY_STR ", %eax\n"
	"  jmp *%eax\n");

static u8 shim_stack[4096] __attribute__((aligned(16)));
u8 *shim_stack_top = shim_stack + sizeof shim_stack;

static int is_apic(u32 phys)
{
	const u8 *t = (const u8 *)phys;
	return phys && t[0] == 'A' && t[1] == 'P' && t[2] == 'I' && t[3] == 'C';
}

static void fix_checksum(u8 *t)
{
	u32 len = *(u32 *)(t + 4);
	u8 sum = 0;
	t[9] = 0;
	for (u32 i = 0; i < len; i++)
		sum += t[i];
	t[9] = (u8)-sum;
}

static void swap_root(u8 *root, u32 width)
{
	u32 n = (*(u32 *)(root + 4) - 36) / width;
	int first = -1, last = -1;
	for (u32 i = 0; i < n; i++) {
		u8 *e = root + 36 + i * width;
		u32 a = width == 4 ? *(u32 *)e : (u32)*(u64 *)e;
		if (is_apic(a)) {
			if (first < 0)
				first = (int)i;
			last = (int)i;
		}
	}
	if (first < 0 || first == last)
		return;
	for (u32 b = 0; b < width; b++) {
		u8 *x = root + 36 + (u32)first * width + b, *y = root + 36 + (u32)last * width + b;
		u8 t = *x;
		*x = *y;
		*y = t;
	}
	fix_checksum(root);
}

void swap_madt(u32 start_info)
{
	u32 rsdp = (u32)*(u64 *)(start_info + 32);
	for (u32 a = 0xe0000; !rsdp && a < 0x100000; a += 16)
		if (*(u64 *)a == 0x2052545020445352ull) /* "RSD PTR " */
			rsdp = a;
	if (!rsdp)
		return;
	const u8 *r = (const u8 *)rsdp;
	if (*(u32 *)(r + 16))
		swap_root((u8 *)*(u32 *)(r + 16), 4);
	if (r[15] >= 2 && *(u64 *)(r + 24))
		swap_root((u8 *)(u32)*(u64 *)(r + 24), 8);
}
