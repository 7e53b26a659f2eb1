/* The arm64 probe's console: the PL011 (or SBSA generic UART) the ACPI
 * SPCR names, written directly; without an SPCR, the PL011 the DT names
 * (its /chosen stdout-path, else its first arm,pl011: src/decode/fdt.c),
 * under the same proof; else UEFI's ConOut with the reason named
 * (docs/architecture.md, "src/arch/arm64").  The report's frame is the
 * project's (docs/architecture.md, "The report contract"), written the way
 * src/console/console.c writes it for x86.
 *
 * The UART's address is touched only once it is proven mapped (an
 * unmapped address takes a synchronous abort, and the firmware halts on
 * one): the CPU's own translation tables are walked (src/decode/arm64_pt.c)
 * and must map the page to itself as Device memory; then the PrimeCell
 * identification registers must read a PL011's before the first byte is
 * sent.  UEFI's GCD memory space map (PI spec, DXE services
 * GetMemorySpaceDescriptor) is recorded beside it: AAVMF maps the whole
 * virt peripheral window in its tables but lists the PL011 in no GCD
 * range (the first boot fell back to ConOut on that check alone). */
#include <efi.h>
#include <efilib.h>
#include "a64.h"
#include "crc32.h"
#include "a64_probe.h"
#include "strbuf.h"

/* PL011 (Arm DDI 0183): data, flags (TXFF = transmit FIFO full), and the
 * identification registers at the top of its 4 KiB page. */
#define PL011_DR 0x000u
#define PL011_FR 0x018u
#define PL011_FR_TXFF (1u << 5)
#define PL011_PERIPHID0 0xfe0u
#define PL011_PCELLID0 0xff0u
/* SPCR interface types (Microsoft's "Serial Port Console Redirection
 * Table", Table 3 via the DBG2 list): the ones with the PL011's DR/FR. */
#define SPCR_IF_PL011 0x03u
#define SPCR_IF_SBSA_32BIT 0x0du
#define SPCR_IF_SBSA 0x0eu
/* A full FIFO drains one character per bit time x 10; at 9600 baud that
 * is ~1 ms.  A write waits at most this many flag reads, then counts a
 * stall and moves on: a wedged UART must not hang the run. */
#define PL011_SPIN_CAP 2000000u

static struct a64_console *con;
static EFI_SYSTEM_TABLE *est;

/* PI spec vol. 2, "Global Coherency Domain Services". */
struct gcd_mem_desc {
	uint64_t base, length, capabilities, attributes;
	uint32_t type;			/* 3 = EfiGcdMemoryTypeMemoryMappedIo */
	void *image, *device;
};
struct dxe_services {
	EFI_TABLE_HEADER hdr;
	void *add_memory_space, *allocate_memory_space, *free_memory_space, *remove_memory_space;
	EFI_STATUS (*get_memory_space_descriptor)(uint64_t base, struct gcd_mem_desc *d);
};
#define GCD_MMIO 3u

static const char *gcd_type(EFI_SYSTEM_TABLE *st, uint64_t base)
{
	static EFI_GUID dxe_guid = {0x05ad34ba, 0x6f02, 0x4214, {0x95, 0x2e, 0x4d, 0xa0, 0x39, 0x8e, 0x2b, 0xb9}};
	struct dxe_services *dxe = NULL;
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++)
		if (!CompareGuid(&st->ConfigurationTable[i].VendorGuid, &dxe_guid))
			dxe = st->ConfigurationTable[i].VendorTable;
	if (!dxe || !dxe->get_memory_space_descriptor)
		return "no DXE services table";
	struct gcd_mem_desc d;
	if (dxe->get_memory_space_descriptor(base, &d) != EFI_SUCCESS)
		return "no descriptor";
	static const char *const names[] = {"non_existent", "reserved", "system_memory", "mmio",
					    "persistent", "more_reliable"};
	return d.type < sizeof names / sizeof names[0] ? names[d.type] : "other";
}

static bool pt_read(void *ctx, uint64_t phys, uint64_t *value)
{
	(void)ctx;
	if ((phys & 7) || !a64_ram_covers(phys, 8))
		return false;
	*value = *(const volatile uint64_t *)(uintptr_t)phys;
	return true;
}

/* NULL when EL1's tables map addr's page to itself with the memory type
 * asked for (device: Device memory, else Normal), else why not. */
static const char *identity_mapped(const struct a64_run *r, uint64_t addr, bool device, struct arm64_pt_walk *w)
{
	if (r->el != 1)
		return "not at EL1: the walk reads EL1's translation tables";
	uint64_t page = addr & ~0xfffull;
	arm64_pt_walk(a64_tcr_el1(), a64_ttbr0_el1(), a64_mair_el1(), a64_sctlr_el1() & 1, page, pt_read,
		      NULL, w);
	if (!w->mapped)
		return w->reason;
	if (w->pa != page)
		return "the translation tables map the page elsewhere (not identity)";
	if (w->device != device)
		return device ? "the translation tables map the page as Normal memory, not Device"
			      : "the translation tables map the page as Device memory, not Normal";
	return NULL;
}

const char *a64_device_mapped(const struct a64_run *r, uint64_t addr, struct arm64_pt_walk *w)
{
	return identity_mapped(r, addr, true, w);
}

const char *a64_memory_mapped(const struct a64_run *r, uint64_t addr, struct arm64_pt_walk *w)
{
	return identity_mapped(r, addr, false, w);
}

/* What the console says of a UART that fails its proof, by who named it
 * (the SPCR's words are those of its first boots). */
struct uart_words {
	const char *source, *elsewhere, *normal, *not_pl011;
};
static const struct uart_words spcr_words = {
	"acpi_spcr", "the translation tables map the SPCR's UART elsewhere",
	"the translation tables map the SPCR's UART as Normal memory, not Device",
	"the SPCR's PL011 does not read a PL011's identification"};
static const struct uart_words dt_words = {
	"dt", "the translation tables map the DT's UART elsewhere",
	"the translation tables map the DT's UART as Normal memory, not Device",
	"the DT's PL011 does not read a PL011's identification"};

static const char *mapping_proven(struct a64_run *r, uint64_t base, const struct uart_words *w)
{
	if (r->el != 1)
		return "not at EL1: the walk reads EL1's translation tables";
	con->walked = true;
	const char *why = a64_device_mapped(r, base, &con->walk);
	if (!why)
		return NULL;
	if (con->walk.mapped && con->walk.pa != base)
		return w->elsewhere;
	if (con->walk.mapped && !con->walk.device)
		return w->normal;
	return why;
}

static uint32_t id_bytes(uintptr_t base, uint32_t off)
{
	uint32_t v = 0;
	for (uint32_t i = 0; i < 4; i++)
		v |= (a64_mmio_read32(base + off + 4 * i) & 0xffu) << (8 * i);
	return v;
}

/* The same proof for a UART the SPCR or the DT names: its page mapped to
 * itself as Device memory, then (pl011_id) the PrimeCell identification
 * a PL011's.  NULL when proven: con then writes to it. */
static const char *prove_uart(struct a64_run *r, EFI_SYSTEM_TABLE *st, uint64_t addr, bool pl011_id,
			      const struct uart_words *w)
{
	con->gcd = gcd_type(st, addr);
	const char *why = mapping_proven(r, addr, w);
	if (why)
		return why;
	uintptr_t base = (uintptr_t)addr;
	/* PrimeCell ids 0x0d 0xf0 0x05 0xb1; PL011 part 0x011 in PeriphID0/1.
	 * The SBSA generic UART need not have them: trusted on the GCD alone. */
	uint32_t pcell = id_bytes(base, PL011_PCELLID0);
	con->periph_id = id_bytes(base, PL011_PERIPHID0);
	if (pl011_id && (pcell != 0xb105f00du || (con->periph_id & 0xfffu) != 0x011u))
		return w->not_pl011;
	con->base = base;
	con->kind = A64_CON_PL011;
	con->source = w->source;
	return NULL;
}

/* No SPCR: the DT's stdout-path node, else its first arm,pl011 (fdt.c
 * chose which), held to the SPCR's PL011's proof; NULL when it is the
 * console, else why not. */
static const char *dt_console(struct a64_run *r, EFI_SYSTEM_TABLE *st)
{
	const struct a64_dt *dt = &r->dt;
	const struct fdt_facts *x = &dt->facts;
	if (!dt->found)
		return "no ACPI SPCR, and no usable DTB (arm64.dt says why)";
	if (!x->console_found)
		return "no ACPI SPCR, and the DT names no console (arm64.dt says why)";
	if (!x->console_pl011)
		return "no ACPI SPCR, and the DT's console node is not an arm,pl011";
	if (!x->console_reg_ok)
		return "no ACPI SPCR, and the DT's console node's reg gives no CPU address";
	if (!x->console_base || (x->console_base & 0xfffu) || x->console_size < 0x1000u)
		return "no ACPI SPCR, and the DT's PL011 is not a page-aligned 4 KiB register page";
	return prove_uart(r, st, x->console_base, true, &dt_words);
}

void a64_console_setup(struct a64_run *r, const struct acpi_info *acpi, void *systab)
{
	EFI_SYSTEM_TABLE *st = systab;
	con = &r->con;
	est = st;
	con->kind = A64_CON_CONOUT;
	con->source = "uefi_conout";
	const struct acpi_spcr_info *s = &acpi->spcr;
	con->spcr_interface = s->interface_type;
	if (!s->present) {
		/* ACPI silent (-machine virt,acpi=off hands over a DTB alone). */
		con->reason = dt_console(r, st);
		return;
	}
	if (s->interface_type != SPCR_IF_PL011 && s->interface_type != SPCR_IF_SBSA &&
	    s->interface_type != SPCR_IF_SBSA_32BIT) {
		con->reason = "the SPCR's UART is not a PL011 or SBSA generic UART";
		return;
	}
	if (s->uart.space_id != ACPI_SPACE_MEMORY || !s->uart.address || (s->uart.address & 0xfffu)) {
		con->reason = "the SPCR's UART is not at a page-aligned memory address";
		return;
	}
	con->reason = prove_uart(r, st, s->uart.address, s->interface_type == SPCR_IF_PL011, &spcr_words);
}

static void pl011_putc(char c)
{
	uint32_t spins = 0;
	while (a64_mmio_read32(con->base + PL011_FR) & PL011_FR_TXFF)
		if (++spins >= PL011_SPIN_CAP) {
			con->stalls++;
			return;
		}
	a64_mmio_write32(con->base + PL011_DR, (uint8_t)c);
}

static void conout_puts(const char *s)
{
	CHAR16 buf[129];
	while (*s) {
		unsigned n = 0;
		while (*s && n < 128)
			buf[n++] = (CHAR16)(uint8_t)*s++;
		buf[n] = 0;
		est->ConOut->OutputString(est->ConOut, buf);
	}
}

static void put_n(const char *s, size_t n)
{
	if (!con)
		return;
	if (con->kind == A64_CON_PL011) {
		for (size_t i = 0; i < n; i++)
			pl011_putc(s[i]);
		return;
	}
	char chunk[129];
	while (n) {
		size_t k = n < 128 ? n : 128;
		for (size_t i = 0; i < k; i++)
			chunk[i] = s[i];
		chunk[k] = 0;
		conout_puts(chunk);
		s += k;
		n -= k;
	}
}

void a64_puts(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	put_n(s, n);
}

void a64_frame(const char *json, size_t len)
{
	char end[96];
	struct strbuf sb;
	sb_init(&sb, end, sizeof end);
	sb_str(&sb, "\r\n==== CLOCKPROBE REPORT END crc32=");
	sb_hex(&sb, crc32_update(0, json, len), 8);
	sb_str(&sb, " bytes=");
	sb_u64(&sb, len);
	sb_str(&sb, " ====\r\n");
	a64_puts("\r\n==== CLOCKPROBE REPORT BEGIN schema=1 ====\r\n");
	put_n(json, len);
	a64_puts(end);
}
