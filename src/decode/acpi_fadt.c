/* The FADT: where the PM timer is (and how wide), whether the platform is
 * HW-reduced, and the DSDT and FACS it points at, which are listed and
 * checked like the root's tables. */
#include "acpi_parser.h"

#define FADT_COPY_LENGTH 276u /* ACPI 6.x FADT; longer ones are cut */
#define FADT_V1_LENGTH 116u
#define FADT_X_PM_TMR_END 220u /* X_PM_TMR_BLK at 208 plus 12 bytes */

static void pm_timer_absent(struct acpi_info *out, const char *reason)
{
	out->pm_timer.present = false;
	out->pm_timer.reason = reason;
}

/* Rule (ACPICA's, from the spec): trust Length, not Revision.  The 64-bit
 * X_PM_TMR_BLK wins when the table is long enough to hold it and its
 * address is non-zero; otherwise the 32-bit PM_TMR_BLK, an I/O port, is
 * used when non-zero and PM_TMR_LEN is 4.  A HW-reduced platform has no
 * fixed hardware, so its PM timer is absent whatever the fields say. */
static void choose_pm_timer(struct acpi_parser *p, const uint8_t *f, uint32_t len)
{
	struct acpi_info *out = p->out;
	struct acpi_pm_timer_info *pm = &out->pm_timer;
	uint32_t legacy_port = load_le32(f + 76);
	uint8_t legacy_len = f[91];
	struct acpi_gas x;

	acpi_read_gas(&x, f + 208);
	pm->width_bits = (out->fadt.flags & ACPI_FADT_TMR_VAL_EXT) ? 32 : 24;
	if (out->fadt.hw_reduced) {
		pm_timer_absent(out, "HW-reduced ACPI (FADT flag bit 20)");
		return;
	}
	if (len >= FADT_X_PM_TMR_END && x.address) {
		if (x.space_id != ACPI_SPACE_IO && x.space_id != ACPI_SPACE_MEMORY) {
			struct strbuf t = acpi_error_text(p, "ACPI_PM_TIMER_SPACE");
			sb_str(&t, "X_PM_TMR_BLK in address space ");
			sb_u64(&t, x.space_id);
			pm_timer_absent(out, "X_PM_TMR_BLK in an unsupported address space");
			return;
		}
		if (legacy_port && legacy_port != x.address) {
			struct strbuf t = acpi_error_text(p, "ACPI_PM_TIMER_MISMATCH");
			sb_str(&t, "X_PM_TMR_BLK ");
			sb_hex0x(&t, x.address);
			sb_str(&t, " differs from PM_TMR_BLK ");
			sb_hex0x(&t, legacy_port);
		}
		pm->present = true;
		pm->reason = NULL;
		pm->gas = x;
		pm->source = "X_PM_TMR_BLK";
		return;
	}
	if (!legacy_port) {
		pm_timer_absent(out, "FADT has no PM timer block");
		return;
	}
	if (legacy_len != 4) {
		struct strbuf t = acpi_error_text(p, "ACPI_PM_TIMER_LENGTH");
		sb_str(&t, "PM_TMR_LEN is ");
		sb_u64(&t, legacy_len);
		sb_str(&t, ", not 4");
		pm_timer_absent(out, "PM_TMR_LEN is not 4");
		return;
	}
	pm->present = true;
	pm->reason = NULL;
	pm->gas.space_id = ACPI_SPACE_IO;
	pm->gas.bit_width = 32;
	pm->gas.address = legacy_port;
	pm->source = "PM_TMR_BLK";
}

/* Fields beyond a short FADT read as zero, as in ACPICA, which copies the
 * table into a zeroed full-size FADT before using it. */
void acpi_parse_fadt(struct acpi_parser *p, const struct acpi_table *tab)
{
	struct acpi_fadt_info *fadt = &p->out->fadt;
	const uint8_t *b = acpi_entry_bytes(p, tab);
	uint8_t f[FADT_COPY_LENGTH];
	uint32_t len;

	if (!b)
		return;
	len = MIN(tab->length, FADT_COPY_LENGTH);
	memset(f, 0, sizeof(f));
	memcpy(f, b, len);
	fadt->present = true;
	fadt->address = tab->address;
	fadt->length = tab->length;
	fadt->revision = tab->revision;
	fadt->minor_revision = f[131] & 0x0f;
	fadt->flags = load_le32(f + 112);
	fadt->hw_reduced = fadt->flags & ACPI_FADT_HW_REDUCED;
	fadt->facs_address = load_le64(f + 132) ? load_le64(f + 132) : load_le32(f + 36);
	fadt->dsdt_address = load_le64(f + 140) ? load_le64(f + 140) : load_le32(f + 40);
	if (tab->length < FADT_V1_LENGTH) {
		struct strbuf t = acpi_error_text(p, "ACPI_FADT_SHORT");
		sb_str(&t, "FADT length ");
		sb_u64(&t, tab->length);
		sb_str(&t, " is shorter than ACPI 1.0's 116");
	}
	choose_pm_timer(p, f, tab->length);
}

void acpi_load_fadt_children(struct acpi_parser *p)
{
	struct acpi_fadt_info *fadt = &p->out->fadt;
	struct acpi_table *tab;

	/* A HW-reduced platform may omit the FACS; every FADT needs a DSDT. */
	if (fadt->dsdt_address) {
		if (acpi_load_table(p, fadt->dsdt_address, "FACP", "DSDT", &tab) && tab == &p->scratch)
			p->dsdt_past_list = *tab;
	} else {
		struct strbuf t = acpi_error_text(p, "ACPI_NO_DSDT");
		sb_str(&t, "FADT names no DSDT");
	}
	if (fadt->facs_address)
		acpi_load_table(p, fadt->facs_address, "FACP", "FACS", &tab);
}
