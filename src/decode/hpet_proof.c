/* What must hold before the probe writes at the base an ACPI HPET table
 * gives (include/hpet.h).  "Not RAM" alone is not "an HPET": a table can
 * name a PCI configuration window, the local APIC, an I/O APIC or any
 * other device's registers, and the enable write would then land in that
 * device.  So the address must be outside everything else the firmware
 * declares, and the registers found there must describe themselves as the
 * table describes the HPET.  Pure: host-tested in tests/unit/test_acpi.c. */
#include "hpet.h"
#include "hpet_regs.h"
#include "acpi.h"
#include "rate.h"
#include "strbuf.h"

#define APIC_PAGE 4096u

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	uint64_t aend = a + alen < a ? ~0ull : a + alen;
	uint64_t bend = b + blen < b ? ~0ull : b + blen;
	return a < bend && b < aend;
}

static const char *refuse(struct strbuf *sb, const char *what, uint64_t base, uint64_t at)
{
	sb_str(sb, "base 0x");
	sb_hex(sb, base, 1);
	sb_str(sb, " lies in ");
	sb_str(sb, what);
	if (at) {
		sb_str(sb, " at 0x");
		sb_hex(sb, at, 1);
	}
	return sb->buf;
}

const char *hpet_address_refusal(const struct acpi_info *a, uint64_t base, char *why, size_t n)
{
	struct strbuf sb;
	const struct acpi_mcfg_window *w = NULL;
	sb_init(&sb, why, n);

	if (acpi_mcfg_overlaps(&a->mcfg, base, HPET_BLOCK_BYTES, &w)) {
		refuse(&sb, "a PCI configuration window (MCFG segment ", base, 0);
		sb_u64(&sb, w->segment);
		sb_str(&sb, ", buses ");
		sb_u64(&sb, w->start_bus);
		sb_str(&sb, "-");
		sb_u64(&sb, w->end_bus);
		sb_str(&sb, " at 0x");
		sb_hex(&sb, w->start, 1);
		sb_str(&sb, ")");
		return why;
	}
	/* Windows past what the decoder keeps cannot be checked: not proven. */
	if (a->mcfg.count > a->mcfg.stored) {
		sb_str(&sb, "the MCFG declares ");
		sb_u64(&sb, a->mcfg.count);
		sb_str(&sb, " configuration windows, only ");
		sb_u64(&sb, a->mcfg.stored);
		sb_str(&sb, " could be checked");
		return why;
	}
	const struct acpi_madt_info *m = &a->madt;
	if (m->present) {
		if (m->local_apic_address && overlaps(base, HPET_BLOCK_BYTES, m->local_apic_address, APIC_PAGE))
			return refuse(&sb, "the local APIC's page (MADT)", base, m->local_apic_address);
		if (m->local_apic_override && overlaps(base, HPET_BLOCK_BYTES, m->local_apic_override, APIC_PAGE))
			return refuse(&sb, "the local APIC's page (MADT override)", base, m->local_apic_override);
		for (uint32_t i = 0; i < m->ioapic_count && i < ACPI_MAX_IOAPICS; i++)
			if (overlaps(base, HPET_BLOCK_BYTES, m->ioapic_address[i], APIC_PAGE))
				return refuse(&sb, "an I/O APIC's page (MADT)", base, m->ioapic_address[i]);
		if (m->ioapic_count > ACPI_MAX_IOAPICS) {
			sb_str(&sb, "the MADT lists ");
			sb_u64(&sb, m->ioapic_count);
			sb_str(&sb, " I/O APICs, only ");
			sb_u64(&sb, ACPI_MAX_IOAPICS);
			sb_str(&sb, " could be checked");
			return why;
		}
	}
	/* The architectural local APIC page, whatever the MADT says: every
	 * x86 CPU decodes it unless its APIC was moved. */
	if (overlaps(base, HPET_BLOCK_BYTES, 0xfee00000u, APIC_PAGE))
		return refuse(&sb, "the default local APIC page", base, 0xfee00000u);
	return NULL;
}

/* The fields the ACPI table's Event Timer Block ID copies from the
 * capabilities register (IA-PC HPET 1.0a, table 3 and section 3.2.4):
 * vendor id [31:16], COUNT_SIZE_CAP [13], NUM_TIM_CAP [12:8].  The
 * revision and LEG_RT_CAP are left out: a firmware may fill the table
 * before a stepping changed them, and neither says which device it is. */
#define HPET_ID_MATCH_MASK 0xffff3f00u

const char *hpet_registers_refusal(uint64_t caps, uint32_t block_id, char *why, size_t n)
{
	struct strbuf sb;
	uint32_t low = (uint32_t)caps, period = (uint32_t)(caps >> HPET_CAP_PERIOD_SHIFT);
	uint32_t vendor = low >> 16;
	sb_init(&sb, why, n);

	if (caps == 0 || caps == ~0ull) {
		sb_str(&sb, "capabilities read 0x");
		sb_hex(&sb, caps, 16);
		sb_str(&sb, ": no device answers there");
		return why;
	}
	if (vendor == 0 || vendor == 0xffff || (low & 0xff) == 0) {
		sb_str(&sb, "capabilities 0x");
		sb_hex(&sb, caps, 16);
		sb_str(&sb, vendor == 0 || vendor == 0xffff ? " name no vendor" : " give revision 0 (reserved)");
		return why;
	}
	if (rate_hpet_period_check(period) != RATE_HPET_PERIOD_OK) {
		sb_str(&sb, "capabilities give a counter period of ");
		sb_u64(&sb, period);
		sb_str(&sb, " fs (valid: 100000..100000000)");
		return why;
	}
	if ((low & HPET_ID_MATCH_MASK) != (block_id & HPET_ID_MATCH_MASK)) {
		sb_str(&sb, "capabilities 0x");
		sb_hex(&sb, low, 8);
		sb_str(&sb, " disagree with the ACPI table's Event Timer Block ID 0x");
		sb_hex(&sb, block_id, 8);
		sb_str(&sb, " (vendor, counter size or comparators)");
		return why;
	}
	return NULL;
}

/* Inside a range the firmware sets aside for an HPET (issue 41): the
 * memory the _CRS of an HPET Device (PNP0103) names must hold the whole
 * 1 KiB block.  The AML decides when it can: a block inside one device's
 * range is set aside; a block outside every range, when every device's
 * _CRS was read, is refused (the firmware says where its HPETs are, and
 * this is not there).  When the AML has no HPET device, or a _CRS the
 * scan cannot read (a Method), the caller asks the memory map instead
 * (hpet_map_refusal). */
enum hpet_set_aside hpet_set_aside(const struct acpi_hpet_devices *d, uint64_t base, char *text, size_t n)
{
	struct strbuf sb;
	sb_init(&sb, text, n);
	for (uint32_t i = 0; i < d->stored && i < ACPI_MAX_HPET_DEVICES; i++) {
		const struct acpi_hpet_device *h = &d->range[i];
		uint64_t end = h->address + h->length;
		if (end < h->address || base < h->address || base + HPET_BLOCK_BYTES < base ||
		    base + HPET_BLOCK_BYTES > end)
			continue;
		sb_str(&sb, "inside the _CRS of ");
		sb_str(&sb, h->path);
		sb_str(&sb, " (");
		sb_str(&sb, h->table);
		sb_str(&sb, "): 0x");
		sb_hex(&sb, h->address, 1);
		sb_str(&sb, ", ");
		sb_u64(&sb, h->length);
		sb_str(&sb, " bytes");
		return HPET_SET_ASIDE_BY_AML;
	}
	if (d->stored && d->stored == d->devices && !d->unresolved && !d->ranges_dropped) {
		sb_str(&sb, "base 0x");
		sb_hex(&sb, base, 1);
		sb_str(&sb, " lies outside the _CRS of every HPET device the AML declares (");
		sb_str(&sb, d->range[0].path);
		sb_str(&sb, ": 0x");
		sb_hex(&sb, d->range[0].address, 1);
		sb_str(&sb, ", ");
		sb_u64(&sb, d->range[0].length);
		sb_str(&sb, " bytes");
		if (d->stored > 1) {
			sb_str(&sb, "; ");
			sb_u64(&sb, d->stored - 1);
			sb_str(&sb, " more");
		}
		sb_str(&sb, ")");
		return HPET_SET_ASIDE_REFUSED;
	}
	if (!d->devices)
		sb_str(&sb, "no HPET (PNP0103) in the AML");
	else if (d->reason[0])
		sb_str(&sb, d->reason);
	else
		sb_str(&sb, "more HPET devices than the AML scan resolves");
	return HPET_SET_ASIDE_ASK_MAP;
}

const char *hpet_map_refusal(uint64_t base, const char *aml_why, const char *map_why, char *why, size_t n)
{
	struct strbuf sb;
	sb_init(&sb, why, n);
	sb_str(&sb, "base 0x");
	sb_hex(&sb, base, 1);
	sb_str(&sb, " is set aside by no firmware map (");
	sb_str(&sb, aml_why);
	sb_str(&sb, "; ");
	sb_str(&sb, map_why);
	sb_str(&sb, ")");
	return why;
}
