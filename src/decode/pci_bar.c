/* The memory one PCI function's configuration header claims, decoded from
 * the dwords read there (include/pci.h).  Pure: the probe reads the
 * header through the fault guard (src/discover/pci_scan.c); the host
 * tests feed recorded headers.
 *
 * What is proved and what is not: a BAR's value gives its base, and the
 * lowest bits a memory BAR hard-wires to zero mean it spans at least 16
 * bytes (an expansion ROM at least 2 KiB).  Its real size is only known
 * by writing all-ones and reading back -- a write the probe never makes --
 * so a base a little past a BAR's first 16 bytes may still be that
 * device's; a bridge's memory windows, by contrast, are exact.  Layouts:
 * PCI Local Bus 3.0 section 6.2 (type 0 header), PCI-to-PCI Bridge
 * Architecture 1.2 section 3.2 (type 1). */
#include "pci.h"
#include "strbuf.h"

#define BAR_MIN_MEMORY 16u
#define ROM_MIN 2048u
#define DW_BAR0 4
#define DW_ROM_TYPE0 12
#define DW_ROM_TYPE1 14
#define DW_BRIDGE_MEMORY 8   /* 0x20: memory base [15:0], limit [31:16] */
#define DW_BRIDGE_PREFETCH 9 /* 0x24: prefetchable base and limit */
#define DW_PREFETCH_BASE_HI 10
#define DW_PREFETCH_LIMIT_HI 11

static uint32_t header_type(const uint32_t cfg[PCI_HEADER_DWORDS]) { return (cfg[3] >> 16) & 0x7f; }

static void add(struct pci_range *out, uint32_t *n, enum pci_range_kind kind, uint32_t index, uint64_t base,
		uint64_t length)
{
	if (*n >= PCI_MAX_RANGES)
		return;
	out[(*n)++] = (struct pci_range){ .kind = kind, .index = (uint8_t)index, .base = base, .length = length };
}

static void bars(const uint32_t cfg[PCI_HEADER_DWORDS], uint32_t count, struct pci_range *out, uint32_t *n,
		 uint32_t *seen)
{
	for (uint32_t i = 0; i < count; i++) {
		uint32_t v = cfg[DW_BAR0 + i];
		if (v & 1) /* an I/O BAR: ports, not memory */
			continue;
		uint64_t base = v & ~0xfull;
		uint32_t type = (v >> 1) & 3;
		if (type == 2) { /* 64-bit: the next dword holds bits 63:32 */
			if (i + 1 >= count)
				continue; /* no slot for its upper half: malformed */
			base |= (uint64_t)cfg[DW_BAR0 + i + 1] << 32;
			i++;
		}
		if (!base)
			continue; /* unassigned */
		(*seen)++;
		add(out, n, PCI_RANGE_BAR, type == 2 ? i - 1 : i, base, BAR_MIN_MEMORY);
	}
}

static void rom(uint32_t v, struct pci_range *out, uint32_t *n)
{
	/* Bit 0 enables the decode; bits 31:11 are the address. */
	if ((v & 1) && (v & 0xfffff800u))
		add(out, n, PCI_RANGE_ROM, 0, v & 0xfffff800u, ROM_MIN);
}

static void bridge_windows(const uint32_t cfg[PCI_HEADER_DWORDS], struct pci_range *out, uint32_t *n)
{
	uint32_t m = cfg[DW_BRIDGE_MEMORY];
	uint64_t base = (uint64_t)(m & 0xfff0) << 16, limit = ((uint64_t)(m >> 16 & 0xfff0) << 16) | 0xfffff;
	if (base <= limit) /* base above limit: the window is off */
		add(out, n, PCI_RANGE_BRIDGE_MEMORY, 0, base, limit - base + 1);
	uint32_t p = cfg[DW_BRIDGE_PREFETCH];
	base = (uint64_t)(p & 0xfff0) << 16;
	limit = ((uint64_t)(p >> 16 & 0xfff0) << 16) | 0xfffff;
	if ((p & 0xf) == 1) { /* 64-bit prefetchable window */
		base |= (uint64_t)cfg[DW_PREFETCH_BASE_HI] << 32;
		limit |= (uint64_t)cfg[DW_PREFETCH_LIMIT_HI] << 32;
	}
	if (base <= limit)
		add(out, n, PCI_RANGE_BRIDGE_PREFETCH, 0, base, limit - base + 1);
}

uint32_t pci_header_ranges(const uint32_t cfg[PCI_HEADER_DWORDS], struct pci_range *out, uint32_t *bars_seen)
{
	uint32_t n = 0;
	switch (header_type(cfg)) {
	case 0:
		bars(cfg, 6, out, &n, bars_seen);
		rom(cfg[DW_ROM_TYPE0], out, &n);
		break;
	case 1:
		bars(cfg, 2, out, &n, bars_seen);
		rom(cfg[DW_ROM_TYPE1], out, &n);
		bridge_windows(cfg, out, &n);
		break;
	default:
		/* CardBus (2) and unknown layouts: their registers are not
		 * decoded, so they claim nothing the probe can name. */
		break;
	}
	return n;
}

static const char *kind_name(enum pci_range_kind k)
{
	switch (k) {
	case PCI_RANGE_BAR: return "BAR";
	case PCI_RANGE_ROM: return "expansion ROM";
	case PCI_RANGE_BRIDGE_MEMORY: return "bridge memory window";
	default: return "bridge prefetchable window";
	}
}

const char *pci_ranges_refusal(const struct pci_range *ranges, uint32_t n, uint32_t bus, uint32_t dev,
			       uint32_t fn, uint64_t addr, uint64_t len, char *why, size_t cap)
{
	uint64_t end = addr + len < addr ? ~0ull : addr + len;
	for (uint32_t i = 0; i < n && i < PCI_MAX_RANGES; i++) {
		const struct pci_range *r = &ranges[i];
		uint64_t r_end = r->base + r->length < r->base ? ~0ull : r->base + r->length;
		if (!(addr < r_end && r->base < end))
			continue;
		struct strbuf sb;
		sb_init(&sb, why, cap);
		sb_str(&sb, "base 0x");
		sb_hex(&sb, addr, 1);
		sb_str(&sb, " lies in PCI ");
		sb_hex(&sb, bus, 2);
		sb_char(&sb, ':');
		sb_hex(&sb, dev, 2);
		sb_char(&sb, '.');
		sb_hex(&sb, fn, 1);
		sb_str(&sb, "'s ");
		sb_str(&sb, kind_name(r->kind));
		if (r->kind == PCI_RANGE_BAR)
			sb_u64(&sb, r->index);
		sb_str(&sb, " (memory at 0x");
		sb_hex(&sb, r->base, 1);
		if (r->kind == PCI_RANGE_BAR || r->kind == PCI_RANGE_ROM) {
			sb_str(&sb, ", at least ");
			sb_u64(&sb, r->length);
			sb_str(&sb, " bytes)");
		} else {
			sb_str(&sb, "-0x");
			sb_hex(&sb, r_end - 1, 1);
			sb_str(&sb, ")");
		}
		return why;
	}
	return NULL;
}
