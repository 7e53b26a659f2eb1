/* The SPCR table: the serial port firmware (or a BMC's serial-over-LAN)
 * uses, so the report goes where the operator is looking. */
#include "acpi_parser.h"

#define SPCR_LENGTH 80u

/* Baud rate codes, SPCR spec; Linux drivers/acpi/spcr.c maps the same. */
static uint32_t spcr_baud(uint8_t code)
{
	switch (code) {
	case 3:
		return 9600;
	case 4:
		return 19200;
	case 6:
		return 57600;
	case 7:
		return 115200;
	default:
		return 0;
	}
}

void acpi_parse_spcr(struct acpi_parser *p, const struct acpi_table *tab)
{
	struct acpi_spcr_info *s = &p->out->spcr;
	const uint8_t *b = acpi_entry_bytes(p, tab);
	uint8_t f[SPCR_LENGTH];

	if (!b)
		return;
	if (tab->length < SPCR_LENGTH) {
		struct strbuf t = acpi_error_text(p, "ACPI_TABLE_TRUNCATED");
		sb_str(&t, "SPCR length ");
		sb_u64(&t, tab->length);
		sb_str(&t, " is shorter than 80");
		if (tab->length < 59)
			return; /* not even the baud rate is there */
	}
	memset(f, 0, sizeof(f));
	memcpy(f, b, MIN(tab->length, SPCR_LENGTH));
	s->present = true;
	s->revision = tab->revision;
	s->interface_type = f[36];
	acpi_read_gas(&s->uart, f + 40);
	s->interrupt_type = f[52];
	s->irq = f[53];
	s->gsi = load_le32(f + 54);
	s->baud_rate_code = f[58];
	s->baud_rate = spcr_baud(f[58]);
	/* A 16550 spans 8 ports; anything else is not a port we can drive. */
	s->io_port_usable = s->uart.space_id == ACPI_SPACE_IO &&
			    s->uart.address && s->uart.address <= 0xfff8;
}
