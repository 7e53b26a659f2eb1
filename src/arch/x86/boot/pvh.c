/* Direct kernel boot (PVH) implementation of the platform layer: what the
 * VMM hands over in hvm_start_info, the legacy BIOS-area scans, memory
 * from the memory map, the catch-all interrupt table and the exit.  The
 * other CPUs are in pvh_smp.c, the way into long mode in pvh_start.S. */
#include "ioports.h"
#include "pvh.h"
#include "platform.h"
#include "probe.h"
#include "x86.h"
#include "acpi.h"
#include "cpuid.h"
#include "memmap.h"

#define HVM_START_MAGIC 0x336ec578u
#define E820_RAM 1
#define PAGE_BYTES 4096ull
/* pvh_start.S maps the first 4 GiB and nothing else. */
#define MAPPED_LIMIT (4ull << 30)
/* Only when the VMM gave no memory map (start info version 0, which no
 * VMM we know still sends): RAM is assumed to go this far past the image. */
#define ASSUMED_POOL_BYTES (16ull << 20)

/* Xen's public start_info.h, arch-x86/hvm; the memmap fields exist from
 * version 1 on. */
struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct hvm_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

extern char __image_end[];

static struct platform plat;
static struct acpi_info acpi;
static char cmdline[2048];
static size_t cmdline_len;
static char cmdline_next; /* the first byte past the buffer, 0 when none */
static uint64_t pool_next, pool_end;
/* The VMM's E820-style map, copied at entry (the start info is the VMM's
 * memory and may lie anywhere). */
static struct memmap_range memmap[128];
static size_t memmap_count;

/* ------------------------------------------------ tables in low memory */

/* A pointer to fixed low memory that gcc cannot see through: it otherwise
 * decides that 0x40E lies outside every object (-Warray-bounds). */
static const void *low_memory(uint64_t phys)
{
	__asm__("" : "+r"(phys));
	return (const void *)(uintptr_t)phys;
}


static const void *identity_map(void *ctx, uint64_t phys, uint32_t len);

/* ACPI spec "Finding the RSDP on IA-PC Systems": the first KiB of the
 * EBDA, then 0xE0000-0xFFFFF (the scan itself is the ACPI decoder's). */
static uint64_t find_rsdp_legacy(void)
{
	uint64_t ebda = (uint64_t)load_le16(low_memory(0x40e)) << 4;
	uint64_t found = 0;
	if (ebda >= 0x400 && ebda < 0xa0000)
		found = acpi_rsdp_scan(identity_map, NULL, ebda, 1024);
	return found ? found : acpi_rsdp_scan(identity_map, NULL, 0xe0000, 0x20000);
}

/* SMBIOS spec: the entry point anchors sit on 16-byte boundaries in
 * 0xF0000-0xFFFFF when there is no EFI configuration table. */
static void find_smbios(void)
{
	for (uint64_t a = 0xf0000; a + 32 <= 0x100000; a += 16) {
		const char *p = low_memory(a);
		if (!plat.smbios3_entry && mem_equal(p, "_SM3_", 5))
			plat.smbios3_entry = a;
		else if (!plat.smbios_entry && mem_equal(p, "_SM_", 4))
			plat.smbios_entry = a;
	}
}

static const void *identity_map(void *ctx, uint64_t phys, uint32_t len)
{
	(void)ctx;
	if (!phys || phys >= MAPPED_LIMIT || len > MAPPED_LIMIT - phys)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

/* ------------------------------------------------------------- memory */

static uint64_t page_up(uint64_t a)
{
	return (a + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
}

/* The pool is the RAM above the image, up to the end of the memory-map
 * entry that holds it (never past the mapped 4 GiB): no .bss to clear at
 * boot, and a thorough run's buffers fit whatever -m allows. */
static void pool_init(const struct hvm_start_info *si)
{
	uint64_t start = page_up((uint64_t)(uintptr_t)__image_end);
	pool_next = start;
	pool_end = start + ASSUMED_POOL_BYTES;
	if (!si || si->version < 1 || !si->memmap_paddr || si->memmap_paddr >= MAPPED_LIMIT)
		return;
	const struct hvm_memmap_entry *map = (const void *)(uintptr_t)si->memmap_paddr;
	pool_end = start;
	for (uint32_t i = 0; i < si->memmap_entries && i < 128; i++) {
		uint64_t end = map[i].addr + map[i].size;
		if (map[i].type == E820_RAM && map[i].addr <= start && end > start)
			pool_end = MIN(end, MAPPED_LIMIT) & ~(PAGE_BYTES - 1);
	}
}

static void copy_memmap(const struct hvm_start_info *si)
{
	if (!si || si->version < 1 || !si->memmap_paddr || si->memmap_paddr >= MAPPED_LIMIT)
		return;
	const struct hvm_memmap_entry *map = (const void *)(uintptr_t)si->memmap_paddr;
	for (uint32_t i = 0; i < si->memmap_entries && memmap_count < ARRAY_SIZE(memmap); i++) {
		struct memmap_range *r = &memmap[memmap_count++];
		r->base = map[i].addr;
		r->length = map[i].size;
		r->type = map[i].type;
		r->kind = memmap_kind_of_e820_type(map[i].type);
	}
	/* Entries past ours could describe RAM: check against none. */
	if (si->memmap_entries > ARRAY_SIZE(memmap))
		memmap_count = 0;
}

static const char *pvh_mmio_write_refusal(uint64_t phys, uint64_t len)
{
	static char reason[REASON_LEN];
	return memmap_write_refusal(memmap, memmap_count, "PVH memory map", phys, len, reason, sizeof reason);
}

static const char *pvh_reserved_read_refusal(uint64_t phys, uint64_t len, const char **basis)
{
	static char reason[REASON_LEN];
	*basis = "reserved in the PVH memory map (E820 type 2)";
	/* Beyond the 4 GiB the entry code maps, a read would fault anyway. */
	if (phys >= MAPPED_LIMIT || len > MAPPED_LIMIT - phys)
		return "beyond the 4 GiB the direct-boot build maps";
	return memmap_reserved_refusal(memmap, memmap_count, "PVH memory map", phys, len, reason, sizeof reason);
}

static void *pvh_alloc_pages(size_t bytes)
{
	uint64_t size = page_up(bytes);
	if (!bytes || size > pool_end - pool_next)
		return NULL;
	void *p = (void *)(uintptr_t)pool_next;
	pool_next += size;
	memset(p, 0, size);
	return p;
}

/* ----------------------------------------------------------- services */

static void copy_cmdline(const struct hvm_start_info *si)
{
	if (!si || !si->cmdline_paddr || si->cmdline_paddr >= MAPPED_LIMIT - sizeof cmdline)
		return;
	const char *src = (const char *)(uintptr_t)si->cmdline_paddr;
	size_t n = 0;
	for (; n + 1 < sizeof cmdline && src[n]; n++)
		cmdline[n] = src[n];
	cmdline[n] = 0;
	cmdline_len = n;
	cmdline_next = src[n];
}

static void pvh_read_settings(struct settings *s)
{
	if (cmdline_next)
		settings_drop_cut_word(s, cmdline, cmdline_len, cmdline_next,
				       "command line longer than 2047 bytes, the rest not read");
	settings_parse(s, cmdline);
}

/* The core has already written isa-debug-exit when a harness listens.
 * Without ACPI's AML there is no clean S5; the keyboard controller's reset
 * line ends the VM (QEMU -no-reboot exits on it). */
static void __attribute__((noreturn)) pvh_power_off(void)
{
	outb(0x64, 0xfe);
	halt_forever();
	__builtin_unreachable();
}

static const struct hvm_start_info *start_info(uint32_t phys)
{
	const struct hvm_start_info *si = (const void *)(uintptr_t)phys;
	return phys && si->magic == HVM_START_MAGIC ? si : NULL;
}

static void find_rsdp(const struct hvm_start_info *si)
{
	if (si && si->rsdp_paddr) {
		plat.acpi_rsdp = si->rsdp_paddr;
		plat.acpi_rsdp_via = "PVH start info";
		return;
	}
	plat.acpi_rsdp = find_rsdp_legacy();
	plat.acpi_rsdp_via = plat.acpi_rsdp ? "BIOS area scan"
					    : "not in the PVH start info nor in the BIOS areas";
}

extern uint64_t pvh_entry_tsc; /* pvh_start.S */

void pvh_main(uint32_t start_info_phys)
{
	plat.entry_tsc = pvh_entry_tsc;
	pvh_idt_install();
	const struct hvm_start_info *si = start_info(start_info_phys);
	copy_cmdline(si);
	pool_init(si);
	copy_memmap(si);
	find_rsdp(si);
	find_smbios();

	plat.boot = "pvh";
	plat.firmware_reason = "direct kernel boot (PVH): no firmware";
	plat.alloc_pages = pvh_alloc_pages;
	plat.read_settings = pvh_read_settings;
	plat.mmio_write_refusal = pvh_mmio_write_refusal;
	plat.reserved_read_refusal = pvh_reserved_read_refusal;
	plat.power_off = pvh_power_off;

	if (plat.acpi_rsdp && acpi_parse(&acpi, plat.acpi_rsdp, identity_map, NULL) == 0 &&
	    acpi.madt.present) {
		struct cpu_info cpu;
		cpuid_decode(&cpu, cpuid_hw, NULL);
		pvh_smp_boot(&acpi.madt, cpu.package_shift, &plat);
	}
	probe_main(&plat);
}
