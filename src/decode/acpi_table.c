/* Listing and loading one ACPI table: the checks every table gets (a
 * pointer that is not null, a header that maps, a sane length, the whole
 * length mapped, the checksum, the promised signature) and the text of
 * every problem.  Each decoder then reads only what acpi_entry_bytes()
 * returns, so no decoder repeats these checks. */
#include "acpi_parser.h"

struct strbuf acpi_error_text(struct acpi_parser *p, const char *code)
{
	struct acpi_info *out = p->out;
	struct strbuf t;

	if (out->error_count >= ACPI_MAX_ERRORS) {
		static char sink[2];

		out->errors_dropped++;
		sb_init(&t, sink, sizeof(sink));
		return t;
	}
	struct acpi_error *e = &out->errors[out->error_count++];
	e->code = code;
	sb_init(&t, e->message, sizeof(e->message));
	return t;
}

/* Table signatures and OEM ids are bytes from firmware; keep them
 * printable so they can go into a report unescaped. */
void acpi_copy_printable(char *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[n] = '\0';
}

void acpi_table_text(struct strbuf *t, const struct acpi_table *tab)
{
	sb_str(t, tab->signature[0] ? tab->signature : "table");
	sb_str(t, " at ");
	sb_hex0x(t, tab->address);
}

void acpi_read_gas(struct acpi_gas *gas, const uint8_t *b)
{
	gas->space_id = b[0];
	gas->bit_width = b[1];
	gas->bit_offset = b[2];
	gas->access_size = b[3];
	gas->address = load_le64(b + 4);
}

static struct acpi_table *new_entry(struct acpi_parser *p)
{
	struct acpi_info *out = p->out;
	struct acpi_table *tab;

	if (out->table_count < ACPI_MAX_TABLES) {
		tab = &out->tables[out->table_count++];
	} else {
		out->tables_dropped++;
		tab = &p->scratch;
	}
	memset(tab, 0, sizeof(*tab));
	return tab;
}

static void mark_bad(struct acpi_parser *p, struct acpi_table *tab,
		     const char *code, const char *status)
{
	str_copy(tab->status, sizeof(tab->status), status);
	struct strbuf t = acpi_error_text(p, code);
	acpi_table_text(&t, tab);
	sb_str(&t, ": ");
	sb_str(&t, status);
}

static void read_header(struct acpi_table *tab, const uint8_t *h)
{
	acpi_copy_printable(tab->signature, h, 4);
	tab->length = load_le32(h + 4);
	tab->revision = h[8];
	acpi_copy_printable(tab->oem_id, h + 10, 6);
	acpi_copy_printable(tab->oem_table_id, h + 16, 8);
}

static bool length_sane(struct acpi_parser *p, struct acpi_table *tab)
{
	struct strbuf t;

	if (tab->length >= ACPI_HEADER_LENGTH &&
	    tab->length <= ACPI_MAX_TABLE_LENGTH)
		return true;
	sb_init(&t, tab->status, sizeof(tab->status));
	sb_str(&t, "length ");
	sb_u64(&t, tab->length);
	sb_str(&t, tab->length < ACPI_HEADER_LENGTH ?
			   " shorter than header" : " exceeds limit");
	mark_bad(p, tab, "ACPI_TABLE_LENGTH", tab->status);
	return false;
}

const uint8_t *acpi_load_table(struct acpi_parser *p, uint64_t phys,
			       const char *via, const char *expected,
			       struct acpi_table **entry)
{
	struct acpi_table *tab = new_entry(p);
	const uint8_t *bytes;

	*entry = tab;
	tab->address = phys;
	str_copy(tab->via, sizeof(tab->via), via);
	if (phys == 0) {
		mark_bad(p, tab, "ACPI_NULL_ENTRY", "null entry");
		return NULL;
	}
	bytes = acpi_map_bytes(p, phys, ACPI_HEADER_LENGTH);
	if (!bytes) {
		mark_bad(p, tab, "ACPI_TABLE_UNREADABLE", "unreadable");
		return NULL;
	}
	read_header(tab, bytes);
	if (!length_sane(p, tab))
		return NULL;
	bytes = acpi_map_bytes(p, phys, tab->length);
	if (!bytes) {
		mark_bad(p, tab, "ACPI_TABLE_UNREADABLE",
			 "unreadable beyond header");
		return NULL;
	}
	tab->readable = true;
	/* The FACS carries no checksum field (ACPI spec, FACS table). */
	tab->checksum_ok = mem_equal(bytes, "FACS", 4) ||
			   fw_byte_sum(bytes, tab->length) == 0;
	if (!tab->checksum_ok)
		mark_bad(p, tab, "ACPI_TABLE_CHECKSUM", "bad checksum");
	if (expected && !mem_equal(bytes, expected, 4)) {
		struct strbuf t;

		sb_init(&t, tab->status, sizeof(tab->status));
		sb_str(&t, "expected ");
		sb_str(&t, expected);
		mark_bad(p, tab, "ACPI_TABLE_SIGNATURE", tab->status);
		return NULL;
	}
	return bytes;
}

const uint8_t *acpi_entry_bytes(struct acpi_parser *p, const struct acpi_table *tab)
{
	if (!tab || !tab->readable)
		return NULL;
	return acpi_map_bytes(p, tab->address, tab->length);
}
