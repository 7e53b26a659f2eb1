/* What the files of the ACPI parser share, and nothing they do not.
 *
 * acpi_parse() (acpi.c) walks RSDP -> XSDT/RSDT (acpi_root.c), lists and
 * checks every table through acpi_load_table() (acpi_table.c, which also
 * names every problem in errors[]), then decodes the few tables the probe
 * uses, one file each: FADT and PM timer (acpi_fadt.c), HPET
 * (acpi_hpet.c), MCFG (acpi_mcfg.c), MADT and Linux's possible-CPU count (acpi_madt.c), SPCR
 * (acpi_spcr.c), and scans the DSDT and SSDTs' AML for the VMClock device
 * (acpi_aml.c).  The public contract is include/acpi.h; bounds and
 * checksums are fwtable.h's, text is strbuf's. */
#ifndef CP_ACPI_PARSER_H
#define CP_ACPI_PARSER_H
#include "acpi.h"
#include "fwtable.h"
#include "strbuf.h"

struct acpi_parser {
	struct acpi_info *out;
	acpi_map_fn map;
	void *ctx;
	struct acpi_table scratch; /* stands in when tables[] is full */
	/* The DSDT when it landed past tables[] (in scratch): the AML scans
	 * (acpi_aml.c) must still read it -- QEMU's declares the HPET's
	 * device, and a server with many SSDTs pushes it past the list. */
	struct acpi_table dsdt_past_list; /* signature "" = none */
};

/* The first readable instance of each table decoded after the walk,
 * held by value: an entry past tables[] lives in the parser's scratch
 * slot, which the next entry overwrites, and such a table (an FADT at
 * slot 70 of a large server's XSDT) must still be decoded. */
struct acpi_found {
	struct acpi_table fadt, madt, hpet, spcr, mcfg; /* signature "" = none */
};

static inline const uint8_t *acpi_map_bytes(struct acpi_parser *p, uint64_t phys,
					    uint32_t len)
{
	return fw_map_bytes(p->map, p->ctx, phys, len);
}

/* ---- acpi_table.c: listing, loading, error text ---- */

/* A builder for the message of a new errors[] entry with this code; once
 * errors[] is full it counts errors_dropped and writes into a sink. */
struct strbuf acpi_error_text(struct acpi_parser *p, const char *code);
/* "SIG at 0xADDR" ("table" when the signature could not be read). */
void acpi_table_text(struct strbuf *t, const struct acpi_table *tab);
/* Firmware bytes made printable ('?' for the rest), n of them, terminated. */
void acpi_copy_printable(char *dst, const uint8_t *src, size_t n);
/* A 12-byte Generic Address Structure. */
void acpi_read_gas(struct acpi_gas *gas, const uint8_t *b);
/* Lists the table at phys (pointed at by `via`) and returns its bytes when
 * the whole claimed length could be mapped; NULL otherwise, with the
 * reason recorded in the entry and in errors[].  `expected`, when not
 * NULL, is the signature the pointer promises. */
const uint8_t *acpi_load_table(struct acpi_parser *p, uint64_t phys,
			       const char *via, const char *expected,
			       struct acpi_table **entry);
/* Bytes of an entry that acpi_load_table() found readable, else NULL. */
const uint8_t *acpi_entry_bytes(struct acpi_parser *p, const struct acpi_table *tab);

/* ---- acpi_root.c: RSDP and the root table ---- */

bool acpi_parse_rsdp(struct acpi_parser *p, uint64_t phys);
const uint8_t *acpi_choose_root(struct acpi_parser *p, uint32_t *width,
				struct acpi_table **entry);
void acpi_walk_root(struct acpi_parser *p, const uint8_t *root,
		    const struct acpi_table *root_tab, uint32_t width,
		    struct acpi_found *f);

/* ---- one file per decoded table ---- */

void acpi_parse_fadt(struct acpi_parser *p, const struct acpi_table *tab);
void acpi_load_fadt_children(struct acpi_parser *p);
void acpi_parse_hpet(struct acpi_parser *p, const struct acpi_table *tab);
void acpi_parse_madt(struct acpi_parser *p, const struct acpi_table *tab);
void acpi_count_possible(struct acpi_info *out);
void acpi_parse_spcr(struct acpi_parser *p, const struct acpi_table *tab);
void acpi_parse_mcfg(struct acpi_parser *p, const struct acpi_table *tab);
/* acpi_aml.c: the VMClock device in the DSDT and SSDTs of tables[]. */
void acpi_scan_vmclock(struct acpi_parser *p);
#endif
