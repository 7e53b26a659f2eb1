/* The MCFG: every PCI configuration window (ECAM) the firmware declares.
 * The probe never touches them; it reads them to refuse an MMIO base
 * another table gives (the HPET's) that lies inside one: a write there
 * is a write to some PCI function's configuration space.
 *
 * Layout (PCI Firmware Specification 3.x, "MCFG Table Description"):
 * the 36-byte header, 8 reserved bytes, then 16-byte entries of a 64-bit
 * base (bus 0's address), a 16-bit segment, the start and end bus, and 4
 * reserved bytes.  A trailing partial entry is named and ignored. */
#include "acpi_parser.h"

#define MCFG_ENTRIES_OFFSET 44u
#define MCFG_ENTRY_LENGTH 16u
#define MCFG_BUS_BYTES (1ull << 20) /* 32 devices x 8 functions x 4 KiB */

static void add_window(struct acpi_mcfg_info *m, const uint8_t *e)
{
	struct acpi_mcfg_window w = {
		.base = load_le64(e),
		.segment = load_le16(e + 8),
		.start_bus = e[10],
		.end_bus = e[11],
	};
	m->count++;
	if (m->stored >= ACPI_MAX_MCFG)
		return;
	/* An end bus below the start bus declares no bus: an empty window.
	 * Bases near the top of the address space wrap; such a window is
	 * clamped to the top rather than wrapped to 0. */
	if (w.end_bus >= w.start_bus) {
		uint64_t lo = w.start_bus * MCFG_BUS_BYTES, hi = (w.end_bus + 1ull) * MCFG_BUS_BYTES;
		w.start = w.base + lo < w.base ? ~0ull : w.base + lo;
		w.end = w.base + hi < w.base ? ~0ull : w.base + hi;
	} else {
		w.start = w.end = w.base;
	}
	m->windows[m->stored++] = w;
}

void acpi_parse_mcfg(struct acpi_parser *p, const struct acpi_table *tab)
{
	struct acpi_mcfg_info *m = &p->out->mcfg;
	const uint8_t *b = acpi_entry_bytes(p, tab);
	struct strbuf t;

	if (!b)
		return;
	if (tab->length < MCFG_ENTRIES_OFFSET) {
		t = acpi_error_text(p, "ACPI_TABLE_TRUNCATED");
		sb_str(&t, "MCFG length ");
		sb_u64(&t, tab->length);
		sb_str(&t, " is shorter than 44");
		return;
	}
	m->present = true;
	uint32_t body = tab->length - MCFG_ENTRIES_OFFSET;
	for (uint32_t off = 0; off + MCFG_ENTRY_LENGTH <= body; off += MCFG_ENTRY_LENGTH)
		add_window(m, b + MCFG_ENTRIES_OFFSET + off);
	if (body % MCFG_ENTRY_LENGTH) {
		t = acpi_error_text(p, "ACPI_MCFG_BAD_LENGTH");
		sb_str(&t, "MCFG ends ");
		sb_u64(&t, body % MCFG_ENTRY_LENGTH);
		sb_str(&t, " bytes into an entry: that part ignored");
	}
}

bool acpi_mcfg_overlaps(const struct acpi_mcfg_info *m, uint64_t phys, uint64_t len,
			const struct acpi_mcfg_window **hit)
{
	uint64_t end = phys + len < phys ? ~0ull : phys + len;
	for (uint32_t i = 0; i < m->stored && i < ACPI_MAX_MCFG; i++) {
		const struct acpi_mcfg_window *w = &m->windows[i];
		if (w->start < w->end && phys < w->end && w->start < end) {
			if (hit)
				*hit = w;
			return true;
		}
	}
	return false;
}
