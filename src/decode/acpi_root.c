/* The way in: the RSDP (both checksums, the ACPI 2.0+ extension only
 * when its length is sane), the choice between XSDT and RSDT, and the walk
 * that lists every table the root names.  Which tables get decoded is
 * remembered here; decoding them is the table files' job. */
#include "acpi_parser.h"

#define RSDP_V1_LENGTH 20u
#define RSDP_V2_LENGTH 36u
#define ROOT_MAX_ENTRIES 256u

uint64_t acpi_rsdp_scan(acpi_map_fn map, void *ctx, uint64_t start, uint64_t len)
{
	for (uint64_t a = start; a + RSDP_V1_LENGTH <= start + len; a += 16) {
		const uint8_t *b = fw_map_bytes(map, ctx, a, RSDP_V1_LENGTH);
		if (b && mem_equal(b, "RSD PTR ", 8) && fw_byte_sum(b, RSDP_V1_LENGTH) == 0)
			return a;
	}
	return 0;
}

bool acpi_parse_rsdp(struct acpi_parser *p, uint64_t phys)
{
	struct acpi_rsdp_info *r = &p->out->rsdp;
	const uint8_t *b;
	struct strbuf t;

	r->address = phys;
	b = phys ? acpi_map_bytes(p, phys, RSDP_V1_LENGTH) : NULL;
	if (!b || !mem_equal(b, "RSD PTR ", 8)) {
		t = acpi_error_text(p, "ACPI_RSDP_MISSING");
		sb_str(&t, phys ? "no RSDP signature at " : "no RSDP address");
		if (phys)
			sb_hex0x(&t, phys);
		return false;
	}
	r->found = true;
	r->revision = b[15];
	r->checksum_ok = fw_byte_sum(b, RSDP_V1_LENGTH) == 0;
	acpi_copy_printable(r->oem_id, b + 9, 6);
	r->rsdt_address = load_le32(b + 16);
	r->length = RSDP_V1_LENGTH;
	if (!r->checksum_ok) {
		t = acpi_error_text(p, "ACPI_RSDP_CHECKSUM");
		sb_str(&t, "RSDP checksum (first 20 bytes) is wrong");
	}
	if (r->revision < 2)
		return true;
	/* ACPI 2.0+: the extended part is only trusted when its Length is
	 * sane and the whole structure maps. */
	const uint8_t *x = acpi_map_bytes(p, phys, RSDP_V2_LENGTH);
	uint32_t len = x ? load_le32(x + 20) : 0;

	x = NULL;
	if (len >= RSDP_V2_LENGTH && len <= 4096)
		x = acpi_map_bytes(p, phys, len);
	if (!x) {
		t = acpi_error_text(p, "ACPI_RSDP_LENGTH");
		sb_str(&t, "RSDP revision ");
		sb_u64(&t, r->revision);
		sb_str(&t, " with unusable length ");
		sb_u64(&t, len);
		return true;
	}
	r->length = len;
	r->xsdt_address = load_le64(x + 24);
	r->ext_checksum_ok = fw_byte_sum(x, len) == 0;
	if (!r->ext_checksum_ok) {
		t = acpi_error_text(p, "ACPI_RSDP_CHECKSUM");
		sb_str(&t, "RSDP extended checksum is wrong");
	}
	return true;
}

static const uint8_t *load_root(struct acpi_parser *p, const char *sig,
				uint64_t phys, struct acpi_table **entry)
{
	const uint8_t *b = acpi_load_table(p, phys, "RSDP", sig, entry);

	if (b) {
		str_copy(p->out->rsdp.root_signature,
			 sizeof(p->out->rsdp.root_signature), sig);
		p->out->rsdp.root_address = phys;
	}
	return b;
}

/* XSDT when the RSDP is 2.0+ and has one, the RSDT otherwise or when the
 * XSDT is unusable (ACPICA falls back the same way). */
const uint8_t *acpi_choose_root(struct acpi_parser *p, uint32_t *width,
				struct acpi_table **entry)
{
	struct acpi_rsdp_info *r = &p->out->rsdp;
	const uint8_t *b = NULL;

	if (r->revision >= 2 && r->xsdt_address) {
		b = load_root(p, "XSDT", r->xsdt_address, entry);
		if (b) {
			*width = 8;
			return b;
		}
		if (r->rsdt_address) {
			struct strbuf t = acpi_error_text(p, "ACPI_XSDT_FALLBACK");
			sb_str(&t, "XSDT unusable, using the RSDT");
		}
	}
	if (!r->rsdt_address) {
		struct strbuf t = acpi_error_text(p, "ACPI_NO_ROOT_TABLE");
		sb_str(&t, "RSDP names neither a usable XSDT nor an RSDT");
		return NULL;
	}
	*width = 4;
	return load_root(p, "RSDT", r->rsdt_address, entry);
}

static void keep_first(struct acpi_table *slot, const struct acpi_table *tab, const char *sig)
{
	if (!slot->signature[0] && mem_equal(tab->signature, sig, 4))
		*slot = *tab;
}

static void remember(struct acpi_found *f, const struct acpi_table *tab)
{
	if (!tab->readable)
		return;
	keep_first(&f->fadt, tab, "FACP");
	keep_first(&f->madt, tab, "APIC");
	keep_first(&f->hpet, tab, "HPET");
	keep_first(&f->spcr, tab, "SPCR");
	keep_first(&f->mcfg, tab, "MCFG");
}

void acpi_walk_root(struct acpi_parser *p, const uint8_t *root,
		    const struct acpi_table *root_tab, uint32_t width,
		    struct acpi_found *f)
{
	uint32_t body = root_tab->length - ACPI_HEADER_LENGTH;
	uint32_t count = body / width;

	if (body % width) {
		struct strbuf t = acpi_error_text(p, "ACPI_ROOT_LENGTH");
		acpi_table_text(&t, root_tab);
		sb_str(&t, ": length ");
		sb_u64(&t, root_tab->length);
		sb_str(&t, " is not header + n*");
		sb_u64(&t, width);
	}
	if (count > ROOT_MAX_ENTRIES) {
		p->out->tables_dropped += count - ROOT_MAX_ENTRIES;
		count = ROOT_MAX_ENTRIES;
	}
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = root + ACPI_HEADER_LENGTH + i * width;
		uint64_t addr = width == 8 ? load_le64(e) : load_le32(e);
		struct acpi_table *tab;

		acpi_load_table(p, addr, root_tab->signature, NULL, &tab);
		remember(f, tab);
	}
}
