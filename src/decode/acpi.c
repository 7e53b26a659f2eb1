/* ACPI table discovery; see include/acpi.h for the contract.
 *
 * Offsets come from the ACPI specification (6.5: RSDP 5.2.5, XSDT/RSDT
 * 5.2.7-8, FADT 5.2.9, MADT 5.2.12, HPET and MCFG in their own specs) as
 * mirrored by ACPICA's actbl*.h.  The parser reads every
 * field through load_le*() on bytes returned by the map callback, and only
 * after checking that the bytes lie inside what was mapped.
 *
 * This file is the top level and the queries on the result; the walk and
 * each decoded table live in their own files (acpi_parser.h lists them). */
#include "acpi_parser.h"

static void init_info(struct acpi_info *out)
{
	memset(out, 0, sizeof(*out));
	out->pm_timer.reason = "no FADT";
	out->hpet.reason = "no HPET table";
	str_copy(out->vmclock.reason, sizeof(out->vmclock.reason),
		 "no ACPI tables to look for a VMClock device in");
}

static void parse_found(struct acpi_parser *p, const struct acpi_found *f)
{
	if (f->fadt.signature[0]) {
		acpi_parse_fadt(p, &f->fadt);
		acpi_load_fadt_children(p);
	} else {
		struct strbuf t = acpi_error_text(p, "ACPI_NO_FADT");
		sb_str(&t, "no readable FADT (FACP) in the root table");
	}
	if (f->madt.signature[0])
		acpi_parse_madt(p, &f->madt);
	acpi_count_possible(p->out);
	if (f->hpet.signature[0])
		acpi_parse_hpet(p, &f->hpet);
	else if (acpi_find_table(p->out, "HPET", 0))
		p->out->hpet.reason = "HPET table unreadable";
	if (f->spcr.signature[0])
		acpi_parse_spcr(p, &f->spcr);
	if (f->mcfg.signature[0])
		acpi_parse_mcfg(p, &f->mcfg);
	acpi_scan_vmclock(p);
}

int acpi_parse(struct acpi_info *out, uint64_t rsdp_phys, acpi_map_fn map,
	       void *ctx)
{
	struct acpi_parser p = { .out = out, .map = map, .ctx = ctx };
	struct acpi_found f = { 0 };
	struct acpi_table *root_tab = NULL;
	const uint8_t *root;
	uint32_t width = 4;

	init_info(out);
	if (!acpi_parse_rsdp(&p, rsdp_phys)) {
		out->pm_timer.reason = "no RSDP";
		return -1;
	}
	root = acpi_choose_root(&p, &width, &root_tab);
	if (!root) {
		out->pm_timer.reason = "no root table";
		return -1;
	}
	acpi_walk_root(&p, root, root_tab, width, &f);
	parse_found(&p, &f);
	return 0;
}

const struct acpi_table *acpi_find_table(const struct acpi_info *info,
					 const char *signature,
					 uint32_t instance)
{
	for (uint32_t i = 0; i < info->table_count && i < ACPI_MAX_TABLES; i++) {
		if (!str_equal(info->tables[i].signature, signature))
			continue;
		if (instance-- == 0)
			return &info->tables[i];
	}
	return NULL;
}

bool acpi_has_error(const struct acpi_info *info, const char *code)
{
	for (uint32_t i = 0; i < info->error_count && i < ACPI_MAX_ERRORS; i++)
		if (str_equal(info->errors[i].code, code))
			return true;
	return false;
}
