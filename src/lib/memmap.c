#include "memmap.h"
#include "strbuf.h"

/* UEFI spec, EFI_MEMORY_TYPE: 0 reserved, 11 MMIO, 12 MMIO port space
 * are not memory.  Every other type (conventional, loader, boot and
 * runtime services, ACPI reclaim and NVS, unusable, persistent,
 * unaccepted) is RAM, and so is a type this code does not know. */
enum memmap_kind memmap_kind_of_uefi_type(uint32_t type)
{
	return type == 0 || type == 11 || type == 12 ? MEMMAP_DEVICE : MEMMAP_RAM;
}

/* E820 (ACPI spec, Address Range Types): 2 is reserved; 1 RAM, 3 ACPI
 * reclaim, 4 NVS, 5 unusable, 7 persistent memory and unknown types are
 * treated as RAM. */
enum memmap_kind memmap_kind_of_e820_type(uint32_t type)
{
	return type == 2 ? MEMMAP_DEVICE : MEMMAP_RAM;
}

/* One past a range's last byte; a range running past the top ends there. */
static uint64_t range_end(const struct memmap_range *r)
{
	uint64_t end = r->base + r->length;
	return end < r->base ? UINT64_MAX : end;
}

/* The refusals' shared words. */
static void no_map(struct strbuf *sb, const char *map_name, uint64_t addr)
{
	sb_str(sb, "no ");
	sb_str(sb, map_name);
	sb_str(sb, " to check 0x");
	sb_hex(sb, addr, 1);
	sb_str(sb, " against");
}

static void is_ram(struct strbuf *sb, const char *map_name, uint64_t addr, uint32_t type)
{
	sb_str(sb, "0x");
	sb_hex(sb, addr, 1);
	sb_str(sb, " is RAM in the ");
	sb_str(sb, map_name);
	sb_str(sb, " (type ");
	sb_u64(sb, type);
	sb_str(sb, ")");
}

enum memmap_kind memmap_classify(const struct memmap_range *map, size_t n, uint64_t addr, uint64_t len,
				 uint32_t *type)
{
	enum memmap_kind worst = MEMMAP_HOLE;
	uint64_t end = addr + len;
	*type = 0;
	if (!len || end < addr)
		return MEMMAP_RAM;
	for (size_t i = 0; i < n; i++) {
		const struct memmap_range *r = &map[i];
		uint64_t r_end = range_end(r);
		if (r->length && r->base < end && addr < r_end && r->kind > worst) {
			worst = r->kind;
			*type = r->type;
		}
	}
	return worst;
}

const char *memmap_write_refusal(const struct memmap_range *map, size_t n, const char *map_name, uint64_t addr,
				 uint64_t len, char *buf, size_t cap)
{
	struct strbuf sb;
	uint32_t type;
	sb_init(&sb, buf, cap);
	if (!n) {
		no_map(&sb, map_name, addr);
		return buf;
	}
	if (memmap_classify(map, n, addr, len, &type) != MEMMAP_RAM)
		return NULL;
	is_ram(&sb, map_name, addr, type);
	return buf;
}

const char *memmap_reserved_refusal(const struct memmap_range *map, size_t n, const char *map_name, uint64_t addr,
				    uint64_t len, char *buf, size_t cap)
{
	struct strbuf sb;
	uint32_t type;
	sb_init(&sb, buf, cap);
	if (!n || !len || addr + len < addr) {
		if (!n) {
			no_map(&sb, map_name, addr);
		} else {
			sb_str(&sb, "an empty or wrapping range in the ");
			sb_str(&sb, map_name);
		}
		return buf;
	}
	if (memmap_classify(map, n, addr, len, &type) == MEMMAP_RAM) {
		is_ram(&sb, map_name, addr, type);
		return buf;
	}
	/* Walk the covering device ranges from addr to the end; each step
	 * moves past one range, so n steps bound it. */
	uint64_t at = addr, end = addr + len;
	for (size_t step = 0; step <= n && at < end; step++) {
		uint64_t next = at;
		for (size_t i = 0; i < n; i++) {
			const struct memmap_range *r = &map[i];
			uint64_t r_end = range_end(r);
			if (r->kind == MEMMAP_DEVICE && r->length && r->base <= at && at < r_end && r_end > next)
				next = r_end;
		}
		if (next == at)
			break;
		at = next;
	}
	if (at >= end)
		return NULL;
	sb_str(&sb, "0x");
	sb_hex(&sb, at, 1);
	sb_str(&sb, " is not reserved in the ");
	sb_str(&sb, map_name);
	sb_str(&sb, " (a hole)");
	return buf;
}
