/* The HPET table: where the HPET's registers are, and why it cannot be
 * used when they are not in system memory or not anywhere. */
#include "acpi_parser.h"

#define HPET_LENGTH 56u

void acpi_parse_hpet(struct acpi_parser *p, const struct acpi_table *tab)
{
	struct acpi_hpet_info *h = &p->out->hpet;
	const uint8_t *b = acpi_entry_bytes(p, tab);
	struct strbuf t;

	if (!b)
		return;
	h->table_address = tab->address;
	if (tab->length < HPET_LENGTH) {
		t = acpi_error_text(p, "ACPI_TABLE_TRUNCATED");
		sb_str(&t, "HPET length ");
		sb_u64(&t, tab->length);
		sb_str(&t, " is shorter than 56");
		h->reason = "HPET table too short";
		return;
	}
	h->present = true;
	h->event_timer_block_id = load_le32(b + 36);
	acpi_read_gas(&h->base, b + 40);
	h->sequence = b[52];
	h->min_tick = load_le16(b + 53);
	h->page_protection = b[55];
	/* QEMU leaves bit width and access size at 0: only the space and the
	 * address matter for finding the registers. */
	if (h->base.space_id != ACPI_SPACE_MEMORY) {
		t = acpi_error_text(p, "ACPI_HPET_BAD_SPACE");
		sb_str(&t, "HPET base in address space ");
		sb_u64(&t, h->base.space_id);
		sb_str(&t, ", not system memory");
		h->reason = "HPET base not in system memory";
		return;
	}
	if (!h->base.address) {
		t = acpi_error_text(p, "ACPI_HPET_NO_ADDRESS");
		sb_str(&t, "HPET base address is 0");
		h->reason = "HPET base address is 0";
		return;
	}
	h->usable = true;
	h->reason = NULL;
}
