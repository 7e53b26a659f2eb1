/* ACPI parser tests on real QEMU 7.2 tables (tests/fixtures/acpi/, see its
 * README) and on variants corrupted here from those real bytes.  Expected
 * values come from docs/clock-abi-facts.md section 6 and 9.1 (QEMU
 * observations), the capture log, or hand arithmetic noted beside them. */
#include "check.h"
#include "acpi.h"
#include "hpet.h"
#include <stdlib.h>

#define MAX_REGIONS 32

struct region {
	char name[32];
	uint64_t addr;
	uint32_t len;
	uint8_t *data;
};

struct fixture {
	struct region r[MAX_REGIONS];
	int n;
	uint64_t rsdp;
};

static struct acpi_info info; /* large: keep it off the stack */

/* Loads every table listed in DIR/index.txt at its captured address. */
static void fixture_load(struct fixture *f, const char *set)
{
	char path[256];
	size_t len;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "tests/fixtures/acpi/%s/index.txt", set);
	char *index = read_fixture(path, &len);
	char *line = index;

	index[len - 1] = '\0';
	while (line && *line && f->n < MAX_REGIONS) {
		struct region *r = &f->r[f->n];
		unsigned long long addr;
		unsigned int size;

		if (sscanf(line, "%31s %llx %u", r->name, &addr, &size) == 3) {
			size_t got;

			snprintf(path, sizeof(path), "tests/fixtures/acpi/%s/%s", set, r->name);
			r->data = read_fixture(path, &got);
			r->addr = addr;
			r->len = (uint32_t)got;
			if (strcmp(r->name, "RSDP.bin") == 0)
				f->rsdp = addr;
			f->n++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	free(index);
}

static void fixture_free(struct fixture *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->r[i].data);
}

static const void *fixture_map(void *ctx, uint64_t phys, uint32_t len)
{
	struct fixture *f = ctx;

	for (int i = 0; i < f->n; i++) {
		struct region *r = &f->r[i];
		if (phys >= r->addr && phys - r->addr <= r->len &&
		    len <= r->len - (phys - r->addr))
			return r->data + (phys - r->addr);
	}
	return NULL;
}

static struct region *region(struct fixture *f, const char *name)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->r[i].name, name) == 0)
			return &f->r[i];
	fprintf(stderr, "no region %s\n", name);
	abort();
}

static struct region *add_region(struct fixture *f, const char *name,
				 uint64_t addr, const uint8_t *data, uint32_t len)
{
	struct region *r = &f->r[f->n++];

	snprintf(r->name, sizeof(r->name), "%s", name);
	r->addr = addr;
	r->len = len;
	r->data = malloc(len);
	memcpy(r->data, data, len);
	return r;
}

static void fix_table_checksum(struct region *r)
{
	uint32_t len = load_le32(r->data + 4);
	uint8_t sum = 0;

	r->data[9] = 0;
	for (uint32_t i = 0; i < len && i < r->len; i++)
		sum = (uint8_t)(sum + r->data[i]);
	r->data[9] = (uint8_t)-sum;
}

static void fix_rsdp_checksums(struct region *r)
{
	uint8_t sum = 0;

	r->data[8] = 0;
	for (int i = 0; i < 20; i++)
		sum = (uint8_t)(sum + r->data[i]);
	r->data[8] = (uint8_t)-sum;
	if (r->len >= 36) {
		r->data[32] = 0;
		sum = 0;
		for (int i = 0; i < 36; i++)
			sum = (uint8_t)(sum + r->data[i]);
		r->data[32] = (uint8_t)-sum;
	}
}

/* Appends a 32-bit entry to the RSDT (SeaBIOS sets are RSDT-only). */
static void rsdt_append(struct fixture *f, uint32_t addr)
{
	struct region *r = region(f, "RSDT.bin");
	uint32_t len = r->len + 4;

	r->data = realloc(r->data, len);
	memcpy(r->data + r->len, &addr, 4);
	r->len = len;
	memcpy(r->data + 4, &len, 4);
	fix_table_checksum(r);
}

static int parse(struct fixture *f)
{
	return acpi_parse(&info, f->rsdp, fixture_map, f);
}

static void check_table(int i, const char *sig, const char *via)
{
	CHECK(i < (int)info.table_count);
	CHECK_STR(info.tables[i].signature, sig);
	CHECK_STR(info.tables[i].via, via);
	CHECK(info.tables[i].readable);
	CHECK(info.tables[i].checksum_ok);
	CHECK_STR(info.tables[i].status, "");
}

/* ---- real tables ---------------------------------------------------- */

TEST(seabios_q35_real_tables)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.rsdp.found);
	CHECK_EQ_U64(info.rsdp.address, 0xf59e0);
	CHECK_EQ_U64(info.rsdp.revision, 0);
	CHECK(info.rsdp.checksum_ok);
	CHECK_STR(info.rsdp.oem_id, "BOCHS ");
	CHECK_STR(info.rsdp.root_signature, "RSDT");
	CHECK_EQ_U64(info.rsdp.root_address, 0xffe229c);
	/* RSDT order as captured: FACP APIC HPET MCFG WAET, then the FADT's
	 * DSDT and FACS. */
	CHECK_EQ_U64(info.table_count, 8);
	check_table(0, "RSDT", "RSDP");
	check_table(1, "FACP", "RSDT");
	check_table(2, "APIC", "RSDT");
	check_table(3, "HPET", "RSDT");
	check_table(4, "MCFG", "RSDT");
	check_table(5, "WAET", "RSDT");
	check_table(6, "DSDT", "FACP");
	check_table(7, "FACS", "FACP");
	CHECK_EQ_U64(info.tables[6].address, 0xffe0040);
	CHECK_EQ_U64(info.tables[6].length, 8276);
	CHECK_EQ_U64(info.tables[7].address, 0xffe0000);
	CHECK_EQ_U64(info.tables[7].length, 64);
	CHECK_EQ_U64(info.error_count, 0);

	CHECK(info.fadt.present);
	CHECK_EQ_U64(info.fadt.revision, 3);
	CHECK_EQ_U64(info.fadt.length, 244);
	CHECK_EQ_U64(info.fadt.flags, 0x84a5);
	CHECK(!info.fadt.hw_reduced);

	CHECK(info.pm_timer.present);
	CHECK_STR(info.pm_timer.source, "X_PM_TMR_BLK");
	CHECK_EQ_U64(info.pm_timer.gas.space_id, ACPI_SPACE_IO);
	CHECK_EQ_U64(info.pm_timer.gas.bit_width, 32);
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	CHECK_EQ_U64(info.pm_timer.width_bits, 24);

	CHECK(info.hpet.present);
	CHECK(info.hpet.usable);
	CHECK_EQ_U64(info.hpet.base.space_id, ACPI_SPACE_MEMORY);
	CHECK_EQ_U64(info.hpet.base.bit_width, 0);
	CHECK_EQ_U64(info.hpet.base.access_size, 0);
	CHECK_EQ_U64(info.hpet.base.address, 0xfed00000);
	CHECK_EQ_U64(info.hpet.event_timer_block_id, 0x8086a201);
	CHECK_EQ_U64(info.hpet.sequence, 0);
	CHECK_EQ_U64(info.hpet.min_tick, 0);

	CHECK(info.madt.present);
	CHECK_EQ_U64(info.madt.local_apic_address, 0xfee00000);
	CHECK(info.madt.pcat_compat);
	CHECK_EQ_U64(info.madt.cpu_entries, 1);
	CHECK_EQ_U64(info.madt.enabled, 1);
	CHECK_EQ_U64(info.madt.possible_cpus, 1);
	CHECK_EQ_U64(info.madt.ioapic_count, 1);
	CHECK(!info.spcr.present);
	fixture_free(&f);
}

/* i440fx: FADT 1.0 (116 bytes, no X_ fields).  The PM block is wherever
 * the firmware programmed the PIIX4 PMBASE and QEMU regenerates the FADT
 * to match: SeaBIOS uses 0x600, OVMF 0xB000 (facts 6.4 was observed with
 * OVMF; QEMU's own tests/data/acpi/pc/FACP, built under SeaBIOS, says
 * 0x608). */
TEST(seabios_pc_real_tables)
{
	struct fixture f;

	fixture_load(&f, "seabios-pc");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.fadt.revision, 1);
	CHECK_EQ_U64(info.fadt.length, 116);
	CHECK_EQ_U64(info.fadt.flags, 0x80a5);
	CHECK(info.pm_timer.present);
	CHECK_STR(info.pm_timer.source, "PM_TMR_BLK");
	CHECK_EQ_U64(info.pm_timer.gas.space_id, ACPI_SPACE_IO);
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	CHECK_EQ_U64(info.pm_timer.width_bits, 24);
	CHECK(acpi_find_table(&info, "MCFG", 0) == NULL); /* i440fx: no MCFG */
	CHECK(acpi_find_table(&info, "HPET", 0) != NULL);
	CHECK_EQ_U64(info.hpet.base.address, 0xfed00000);
	CHECK_EQ_U64(info.error_count, 0);
	fixture_free(&f);
}

TEST(ovmf_pc_real_tables)
{
	struct fixture f;

	fixture_load(&f, "ovmf-pc");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_STR(info.rsdp.root_signature, "XSDT");
	CHECK_EQ_U64(info.fadt.revision, 1);
	CHECK_EQ_U64(info.fadt.length, 116);
	CHECK_EQ_U64(info.fadt.flags, 0x80a5);
	CHECK_STR(info.pm_timer.source, "PM_TMR_BLK");
	CHECK_EQ_U64(info.pm_timer.gas.space_id, ACPI_SPACE_IO);
	CHECK_EQ_U64(info.pm_timer.gas.address, 0xb008);
	CHECK_EQ_U64(info.pm_timer.width_bits, 24);
	CHECK(acpi_find_table(&info, "MCFG", 0) == NULL);
	CHECK(acpi_find_table(&info, "BGRT", 0) != NULL);
	CHECK_EQ_U64(info.error_count, 0);
	fixture_free(&f);
}

TEST(seabios_q35_hpet_off)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35-hpet-off");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.hpet.present);
	CHECK(!info.hpet.usable);
	CHECK_STR(info.hpet.reason, "no HPET table");
	CHECK(acpi_find_table(&info, "HPET", 0) == NULL);
	CHECK(info.pm_timer.present);
	CHECK_EQ_U64(info.error_count, 0);
	fixture_free(&f);
}

/* QEMU -smp 1,maxcpus=4: four local APIC entries, ids 0..3, only the
 * first enabled.  FADT revision 3 predates ACPI 6.3, so Linux treats the
 * three disabled entries as hot-pluggable: 4 possible CPUs in a guest. */
TEST(seabios_q35_smp1_maxcpus4)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35-smp1-max4");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.madt.present);
	CHECK_EQ_U64(info.madt.revision, 1);
	CHECK_EQ_U64(info.madt.cpu_entries, 4);
	CHECK_EQ_U64(info.madt.cpu_count, 4);
	CHECK_EQ_U64(info.madt.enabled, 1);
	CHECK_EQ_U64(info.madt.online_capable, 0);
	CHECK_EQ_U64(info.madt.disabled, 3);
	CHECK(!info.madt.online_capable_honoured);
	CHECK_EQ_U64(info.madt.possible_cpus, 4);
	CHECK_EQ_U64(info.madt.possible_cpus_bare_metal, 1);
	for (uint32_t i = 0; i < 4; i++) {
		CHECK_EQ_U64(info.madt.cpus[i].type, 0);
		CHECK_EQ_U64(info.madt.cpus[i].apic_id, i);
		CHECK_EQ_U64(info.madt.cpus[i].processor_uid, i);
		CHECK_EQ_U64(info.madt.cpus[i].flags, i == 0 ? 1 : 0);
		CHECK(info.madt.cpus[i].linux_possible);
	}
	fixture_free(&f);
}

TEST(ovmf_q35_real_tables)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.rsdp.revision, 2);
	CHECK_EQ_U64(info.rsdp.length, 36);
	CHECK(info.rsdp.checksum_ok);
	CHECK(info.rsdp.ext_checksum_ok);
	CHECK_STR(info.rsdp.root_signature, "XSDT");
	CHECK_EQ_U64(info.rsdp.root_address, 0xf77c0e8);
	/* facts 6.3: OVMF/q35 XSDT lists FACP APIC HPET MCFG WAET BGRT */
	CHECK_EQ_U64(info.table_count, 9);
	check_table(0, "XSDT", "RSDP");
	check_table(1, "FACP", "XSDT");
	check_table(2, "APIC", "XSDT");
	check_table(3, "HPET", "XSDT");
	check_table(4, "MCFG", "XSDT");
	check_table(5, "WAET", "XSDT");
	check_table(6, "BGRT", "XSDT");
	check_table(7, "DSDT", "FACP");
	check_table(8, "FACS", "FACP");
	CHECK_EQ_U64(info.error_count, 0);
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	CHECK_EQ_U64(info.pm_timer.width_bits, 24);
	CHECK_EQ_U64(info.hpet.base.address, 0xfed00000);
	CHECK_EQ_U64(info.madt.possible_cpus, 1);
	fixture_free(&f);
}

/* OVMF q35 acpi=off: an RSDP and an XSDT holding a NULL entry and a BGRT,
 * no FADT (design.md "Traps"). */
TEST(ovmf_q35_acpi_off)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35-acpi-off");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_STR(info.rsdp.root_signature, "XSDT");
	CHECK_EQ_U64(info.table_count, 3);
	CHECK_STR(info.tables[1].status, "null entry");
	CHECK_EQ_U64(info.tables[1].address, 0);
	CHECK_STR(info.tables[2].signature, "BGRT");
	CHECK(acpi_has_error(&info, "ACPI_NULL_ENTRY"));
	CHECK(acpi_has_error(&info, "ACPI_NO_FADT"));
	CHECK_EQ_U64(info.error_count, 2);
	CHECK(!info.fadt.present);
	CHECK(!info.pm_timer.present);
	CHECK_STR(info.pm_timer.reason, "no FADT");
	CHECK(!info.hpet.present);
	CHECK(!info.madt.present);
	CHECK_EQ_U64(info.madt.possible_cpus, 0);
	fixture_free(&f);
}

/* ---- RSDP and root-table damage ------------------------------------ */

TEST(rsdp_missing_or_zero)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	CHECK_EQ_I64(acpi_parse(&info, 0, fixture_map, &f), -1);
	CHECK(!info.rsdp.found);
	CHECK(acpi_has_error(&info, "ACPI_RSDP_MISSING"));
	CHECK_STR(info.pm_timer.reason, "no RSDP");
	/* an address with a table, not an RSDP, there */
	CHECK_EQ_I64(acpi_parse(&info, 0xffe229c, fixture_map, &f), -1);
	CHECK(acpi_has_error(&info, "ACPI_RSDP_MISSING"));
	/* an address nothing maps */
	CHECK_EQ_I64(acpi_parse(&info, 0x1234, fixture_map, &f), -1);
	CHECK_EQ_U64(info.table_count, 0);
	fixture_free(&f);
}

/* The direct-boot build's search for SeaBIOS's RSDP in 0xE0000-0xFFFFF:
 * only a 16-byte boundary with a right checksum counts. */
TEST(rsdp_scan_of_the_bios_area)
{
	struct fixture f;
	static uint8_t bios[0x20000];

	fixture_load(&f, "seabios-q35");
	const struct region *rsdp = region(&f, "RSDP.bin");
	memset(bios, 0, sizeof bios);
	memcpy(bios + 0x100, "RSD PTR ", 8);                    /* checksum wrong */
	memcpy(bios + 0x208, rsdp->data, rsdp->len);            /* not on a 16-byte boundary */
	memcpy(bios + (rsdp->addr - 0xe0000), rsdp->data, rsdp->len);
	add_region(&f, "BIOS", 0xe0000, bios, sizeof bios);
	CHECK_EQ_U64(acpi_rsdp_scan(fixture_map, &f, 0xe0000, 0x20000), 0xf59e0);
	CHECK_EQ_I64(acpi_parse(&info, 0xf59e0, fixture_map, &f), 0);
	CHECK(info.fadt.present);
	/* An EBDA that maps nowhere, a range too short for an RSDP. */
	CHECK_EQ_U64(acpi_rsdp_scan(fixture_map, &f, 0x9fc00, 1024), 0);
	CHECK_EQ_U64(acpi_rsdp_scan(fixture_map, &f, 0xf59e0, 19), 0);
	fixture_free(&f);
}

TEST(rsdp_bad_checksum_still_parsed)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35");
	region(&f, "RSDP.bin")->data[9] ^= 0x20; /* OEM id byte */
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.rsdp.checksum_ok);
	CHECK(!info.rsdp.ext_checksum_ok);
	CHECK(acpi_has_error(&info, "ACPI_RSDP_CHECKSUM"));
	CHECK_STR(info.rsdp.root_signature, "XSDT");
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	fixture_free(&f);
}

/* Revision 2 claimed by a 20-byte RSDP (only 20 bytes exist there): the
 * extended fields must not be read, the RSDT still works. */
TEST(rsdp_rev2_claim_on_short_rsdp)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "RSDP.bin");
	CHECK_EQ_U64(r->len, 20);
	r->data[15] = 2;
	fix_rsdp_checksums(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.rsdp.revision, 2);
	CHECK(info.rsdp.checksum_ok);
	CHECK(acpi_has_error(&info, "ACPI_RSDP_LENGTH"));
	CHECK_STR(info.rsdp.root_signature, "RSDT");
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	fixture_free(&f);
}

TEST(rsdp_rev2_without_xsdt_uses_rsdt)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35");
	struct region *r = region(&f, "RSDP.bin");
	memset(r->data + 24, 0, 8);
	fix_rsdp_checksums(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_STR(info.rsdp.root_signature, "RSDT");
	CHECK_EQ_U64(info.rsdp.root_address, 0xf77c074);
	CHECK_EQ_U64(info.error_count, 0);
	CHECK_STR(info.tables[1].via, "RSDT");
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	fixture_free(&f);
}

TEST(xsdt_unreadable_falls_back_to_rsdt)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35");
	struct region *r = region(&f, "RSDP.bin");
	uint64_t nowhere = 0x7000000000ull;
	memcpy(r->data + 24, &nowhere, 8);
	fix_rsdp_checksums(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_STR(info.rsdp.root_signature, "RSDT");
	CHECK(acpi_has_error(&info, "ACPI_TABLE_UNREADABLE"));
	CHECK(acpi_has_error(&info, "ACPI_XSDT_FALLBACK"));
	CHECK_STR(info.tables[0].status, "unreadable");
	CHECK_STR(info.tables[1].signature, "RSDT");
	CHECK(acpi_find_table(&info, "FACP", 0) != NULL);
	fixture_free(&f);
}

/* XSDT length 83: (83 - 36) / 8 = 5 whole entries, so BGRT (the 6th) is
 * dropped and the odd length is named. */
TEST(xsdt_length_not_multiple_of_8)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35");
	struct region *r = region(&f, "XSDT.bin");
	uint32_t len = 83;
	memcpy(r->data + 4, &len, 4);
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(acpi_has_error(&info, "ACPI_ROOT_LENGTH"));
	CHECK(acpi_find_table(&info, "BGRT", 0) == NULL);
	CHECK(acpi_find_table(&info, "WAET", 0) != NULL);
	CHECK_EQ_U64(info.table_count, 8);
	fixture_free(&f);
}

/* ---- per-table damage ---------------------------------------------- */

TEST(table_bad_checksum_named_but_used)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	region(&f, "HPET.bin")->data[52] ^= 1; /* sequence number 0 -> 1 */
	CHECK_EQ_I64(parse(&f), 0);
	const struct acpi_table *t = acpi_find_table(&info, "HPET", 0);
	CHECK(t != NULL);
	CHECK(t && !t->checksum_ok);
	CHECK_STR(t ? t->status : NULL, "bad checksum");
	CHECK(acpi_has_error(&info, "ACPI_TABLE_CHECKSUM"));
	CHECK_EQ_U64(info.error_count, 1);
	CHECK(info.hpet.usable);
	CHECK_EQ_U64(info.hpet.sequence, 1);
	fixture_free(&f);
}

TEST(table_length_shorter_than_header)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	uint32_t len = 20;
	memcpy(region(&f, "HPET.bin")->data + 4, &len, 4);
	CHECK_EQ_I64(parse(&f), 0);
	const struct acpi_table *t = acpi_find_table(&info, "HPET", 0);
	CHECK(t && !t->readable);
	CHECK_STR(t ? t->status : NULL, "length 20 shorter than header");
	CHECK(acpi_has_error(&info, "ACPI_TABLE_LENGTH"));
	CHECK(!info.hpet.present);
	CHECK_STR(info.hpet.reason, "HPET table unreadable");
	fixture_free(&f);
}

TEST(table_claiming_4gib)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	uint32_t len = 0xffffffffu;
	memcpy(region(&f, "APIC.bin")->data + 4, &len, 4);
	CHECK_EQ_I64(parse(&f), 0);
	const struct acpi_table *t = acpi_find_table(&info, "APIC", 0);
	CHECK_STR(t ? t->status : NULL, "length 4294967295 exceeds limit");
	CHECK(!info.madt.present);
	CHECK(info.pm_timer.present);
	fixture_free(&f);
}

/* Length claims 4 KiB more than the memory that exists behind it. */
TEST(table_truncated_memory)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	uint32_t len = 56 + 4096;
	memcpy(region(&f, "HPET.bin")->data + 4, &len, 4);
	CHECK_EQ_I64(parse(&f), 0);
	const struct acpi_table *t = acpi_find_table(&info, "HPET", 0);
	CHECK_STR(t ? t->status : NULL, "unreadable beyond header");
	CHECK(acpi_has_error(&info, "ACPI_TABLE_UNREADABLE"));
	CHECK(!info.hpet.present);
	fixture_free(&f);
}

TEST(root_entry_pointing_nowhere)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	rsdt_append(&f, 0x0badf000);
	rsdt_append(&f, 0);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.table_count, 10);
	CHECK_STR(info.tables[6].status, "unreadable");
	CHECK_EQ_U64(info.tables[6].address, 0x0badf000);
	CHECK_STR(info.tables[7].status, "null entry");
	CHECK(acpi_has_error(&info, "ACPI_NULL_ENTRY"));
	CHECK_EQ_U64(info.error_count, 2);
	fixture_free(&f);
}

/* ---- FADT and PM timer variants ------------------------------------ */

static void fadt_edit_u32(struct fixture *f, uint32_t off, uint32_t v)
{
	struct region *r = region(f, "FACP.bin");
	memcpy(r->data + off, &v, 4);
	fix_table_checksum(r);
}

TEST(fadt_hw_reduced_has_no_pm_timer)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	fadt_edit_u32(&f, 112, 0x84a5 | (1u << 20));
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.fadt.hw_reduced);
	CHECK(!info.pm_timer.present);
	CHECK_STR(info.pm_timer.reason, "HW-reduced ACPI (FADT flag bit 20)");
	fixture_free(&f);
}

TEST(fadt_tmr_val_ext_is_32_bit)
{
	struct fixture f;

	fixture_load(&f, "ovmf-pc");
	fadt_edit_u32(&f, 112, 0x80a5 | (1u << 8));
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.pm_timer.width_bits, 32);
	CHECK_EQ_U64(info.pm_timer.gas.address, 0xb008);
	fixture_free(&f);
}

TEST(fadt_x_pm_tmr_blk_in_system_memory)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "FACP.bin");
	uint64_t mmio = 0xfed80008ull;
	r->data[208] = ACPI_SPACE_MEMORY;
	memcpy(r->data + 212, &mmio, 8);
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.pm_timer.present);
	CHECK_STR(info.pm_timer.source, "X_PM_TMR_BLK");
	CHECK_EQ_U64(info.pm_timer.gas.space_id, ACPI_SPACE_MEMORY);
	CHECK_EQ_U64(info.pm_timer.gas.address, 0xfed80008);
	/* PM_TMR_BLK still says 0x608: the disagreement is named */
	CHECK(acpi_has_error(&info, "ACPI_PM_TIMER_MISMATCH"));
	fixture_free(&f);
}

TEST(fadt_x_pm_tmr_blk_zero_uses_legacy)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "FACP.bin");
	memset(r->data + 212, 0, 8);
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_STR(info.pm_timer.source, "PM_TMR_BLK");
	CHECK_EQ_U64(info.pm_timer.gas.address, 0x608);
	CHECK_EQ_U64(info.error_count, 0);
	fixture_free(&f);
}

TEST(fadt_pm_tmr_len_not_4)
{
	struct fixture f;

	fixture_load(&f, "ovmf-pc");
	struct region *r = region(&f, "FACP.bin");
	r->data[91] = 2;
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.pm_timer.present);
	CHECK(acpi_has_error(&info, "ACPI_PM_TIMER_LENGTH"));
	fixture_free(&f);
}

/* A 100-byte FADT: PM_TMR_BLK (76) and PM_TMR_LEN (91) are inside, the
 * Flags (112) are not and read as 0. */
TEST(fadt_short_table)
{
	struct fixture f;

	fixture_load(&f, "ovmf-pc");
	fadt_edit_u32(&f, 4, 100);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(acpi_has_error(&info, "ACPI_FADT_SHORT"));
	CHECK_EQ_U64(info.fadt.flags, 0);
	CHECK_STR(info.pm_timer.source, "PM_TMR_BLK");
	CHECK_EQ_U64(info.pm_timer.gas.address, 0xb008);
	fixture_free(&f);
}

TEST(fadt_no_pm_timer_fields)
{
	struct fixture f;

	fixture_load(&f, "ovmf-pc");
	fadt_edit_u32(&f, 76, 0);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.pm_timer.present);
	CHECK_STR(info.pm_timer.reason, "FADT has no PM timer block");
	fixture_free(&f);
}

/* ---- HPET ---------------------------------------------------------- */

TEST(hpet_base_in_io_space_is_an_error)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "HPET.bin");
	r->data[40] = ACPI_SPACE_IO;
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.hpet.present);
	CHECK(!info.hpet.usable);
	CHECK(acpi_has_error(&info, "ACPI_HPET_BAD_SPACE"));
	CHECK_STR(info.hpet.reason, "HPET base not in system memory");
	fixture_free(&f);
}

TEST(hpet_table_too_short)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "HPET.bin");
	uint32_t len = 48;
	memcpy(r->data + 4, &len, 4);
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.hpet.present);
	CHECK(acpi_has_error(&info, "ACPI_TABLE_TRUNCATED"));
	fixture_free(&f);
}

/* ---- MADT rules ---------------------------------------------------- */

static const uint8_t madt_body[] = {
	/* local APIC address, flags (no PCAT_COMPAT) */
	0x00, 0x00, 0xe0, 0xfe, 0x00, 0x00, 0x00, 0x00,
	/* a) local APIC uid 0 id 0 enabled */
	0, 8, 0, 0, 1, 0, 0, 0,
	/* b) local APIC uid 1 id 1 online capable */
	0, 8, 1, 1, 2, 0, 0, 0,
	/* c) local APIC uid 2 id 2 neither */
	0, 8, 2, 2, 0, 0, 0, 0,
	/* d) local APIC uid 3 id 0xff (invalid) */
	0, 8, 3, 0xff, 1, 0, 0, 0,
	/* e) x2APIC id 5 enabled uid 5: below 0xff after type-0 CPUs */
	9, 16, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0,
	/* f) x2APIC id 0x100 enabled uid 6 */
	9, 16, 0, 0, 0x00, 0x01, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0,
	/* g) local APIC uid 7 id 0 enabled: duplicate id */
	0, 8, 7, 0, 1, 0, 0, 0,
	/* two I/O APICs */
	1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0,
	1, 12, 1, 0, 0, 0x10, 0xc0, 0xfe, 0, 0, 0, 0,
	/* an entry claiming length 0: parsing must stop, not spin */
	4, 0,
};

static void install_madt(struct fixture *f)
{
	struct region *r = region(f, "APIC.bin");
	uint32_t len = 36 + sizeof(madt_body);

	r->data = realloc(r->data, len);
	memcpy(r->data + 36, madt_body, sizeof(madt_body));
	memcpy(r->data + 4, &len, 4);
	r->len = len;
	fix_table_checksum(r);
}

/* counts: enabled a,e,f = 3 (g repeats a's id: ignored, issue 41);
 * online capable b; disabled c; invalid d */
static void check_madt_counts(void)
{
	CHECK_EQ_U64(info.madt.cpu_entries, 7);
	CHECK_EQ_U64(info.madt.enabled, 3);
	CHECK_EQ_U64(info.madt.duplicate_ids, 1);
	CHECK_EQ_U64(info.madt.online_capable, 1);
	CHECK_EQ_U64(info.madt.disabled, 1);
	CHECK_EQ_U64(info.madt.invalid_ids, 1);
	CHECK_EQ_U64(info.madt.ioapic_count, 2);
	CHECK(!info.madt.pcat_compat);
	CHECK(acpi_has_error(&info, "ACPI_MADT_BAD_ENTRY"));
}

/* FADT 3.0: Online Capable unknown, so c) counts; e) and g) never do. */
TEST(madt_possible_cpus_legacy_rule)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	install_madt(&f);
	CHECK_EQ_I64(parse(&f), 0);
	check_madt_counts();
	CHECK(!info.madt.online_capable_honoured);
	CHECK_EQ_U64(info.madt.possible_cpus, 4);           /* a b c f */
	CHECK_EQ_U64(info.madt.possible_cpus_bare_metal, 3); /* a b f */
	CHECK_EQ_U64(info.madt.cpu_count, 5); /* d) and g) are not stored */
	CHECK(info.madt.cpus[2].linux_possible);   /* c */
	CHECK(!info.madt.cpus[3].linux_possible);  /* e */
	CHECK(info.madt.cpus[4].linux_possible);   /* f */
	CHECK_EQ_U64(info.madt.cpus[4].apic_id, 0x100);
	CHECK_EQ_U64(info.madt.cpus[4].processor_uid, 6);
	fixture_free(&f);
}

static const char *acpi_error_message(const char *code)
{
	for (uint32_t i = 0; i < info.error_count && i < ACPI_MAX_ERRORS; i++)
		if (!strcmp(info.errors[i].code, code))
			return info.errors[i].message;
	return NULL;
}

/* Issue 41: a running AP listed twice (and a CPU listed three times, the
 * first entry disabled) -- the first entry of each id wins, as in Linux,
 * the later ones are neither stored nor counted, and errors[] names them. */
static const uint8_t madt_dup_body[] = {
	0, 0, 0xe0, 0xfe, 1, 0, 0, 0,
	0, 8, 0, 0, 1, 0, 0, 0,       /* uid 0 id 0 enabled (the BSP) */
	0, 8, 1, 1, 1, 0, 0, 0,       /* uid 1 id 1 enabled */
	0, 8, 2, 2, 0, 0, 0, 0,       /* uid 2 id 2 disabled */
	0, 8, 3, 1, 1, 0, 0, 0,       /* uid 3 id 1 again: entry 3 */
	0, 8, 4, 2, 1, 0, 0, 0,       /* uid 4 id 2 again, enabled: entry 4 */
	9, 16, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, /* x2APIC id 1: entry 5 */
	0, 8, 6, 3, 1, 0, 0, 0,       /* uid 6 id 3 enabled */
};

TEST(madt_duplicate_apic_ids_first_wins)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "APIC.bin");
	uint32_t len = 36 + sizeof(madt_dup_body);
	r->data = realloc(r->data, len);
	memcpy(r->data + 36, madt_dup_body, sizeof(madt_dup_body));
	memcpy(r->data + 4, &len, 4);
	r->len = len;
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.madt.cpu_entries, 7);
	CHECK_EQ_U64(info.madt.cpu_count, 4);
	CHECK_EQ_U64(info.madt.duplicate_ids, 3);
	CHECK_EQ_U64(info.madt.enabled, 3);  /* ids 0, 1, 3 */
	CHECK_EQ_U64(info.madt.disabled, 1); /* id 2: its first entry */
	CHECK_EQ_U64(info.madt.cpus[1].apic_id, 1);
	CHECK_EQ_U64(info.madt.cpus[1].processor_uid, 1);
	CHECK_EQ_U64(info.madt.cpus[2].apic_id, 2);
	CHECK_EQ_U64(info.madt.cpus[2].processor_uid, 2);
	CHECK(!(info.madt.cpus[2].flags & ACPI_MADT_CPU_ENABLED));
	CHECK_EQ_U64(info.madt.cpus[3].apic_id, 3);
	const char *m = acpi_error_message("ACPI_MADT_DUPLICATE_APIC_ID");
	CHECK(m != NULL);
	if (m) {
		CHECK(!strcmp(m, "3 repeated MADT APIC ids ignored, first kept: 0x1 (entry 3), 0x2 (entry 4), 0x1 (entry 5)"));
	}
	fixture_free(&f);
}

/* FADT 6.3: Online Capable honoured, so c) no longer counts. */
TEST(madt_possible_cpus_online_capable_rule)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	install_madt(&f);
	struct region *r = region(&f, "FACP.bin");
	r->data[8] = 6;
	r->data[131] = 3;
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	check_madt_counts();
	CHECK(info.madt.online_capable_honoured);
	CHECK_EQ_U64(info.madt.possible_cpus, 3);           /* a b f */
	CHECK_EQ_U64(info.madt.possible_cpus_bare_metal, 3);
	CHECK(!info.madt.cpus[2].linux_possible);
	fixture_free(&f);
}

/* ---- SPCR ---------------------------------------------------------- */

TEST(spcr_com2_115200)
{
	struct fixture f;
	uint8_t spcr[80] = { 'S', 'P', 'C', 'R', 80, 0, 0, 0, 2 };

	fixture_load(&f, "seabios-q35");
	spcr[36] = 0;                         /* full 16550 */
	spcr[40] = ACPI_SPACE_IO;
	spcr[41] = 8;
	spcr[43] = 1;
	spcr[44] = 0xf8;                      /* 0x2f8 */
	spcr[45] = 0x02;
	spcr[52] = 1;                         /* PC-AT interrupt */
	spcr[53] = 3;
	spcr[58] = 7;                         /* 115200 */
	struct region *r = add_region(&f, "SPCR.bin", 0x200000, spcr, sizeof(spcr));
	fix_table_checksum(r);
	rsdt_append(&f, 0x200000);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.error_count, 0);
	CHECK(info.spcr.present);
	CHECK_EQ_U64(info.spcr.revision, 2);
	CHECK_EQ_U64(info.spcr.interface_type, 0);
	CHECK_EQ_U64(info.spcr.uart.space_id, ACPI_SPACE_IO);
	CHECK_EQ_U64(info.spcr.uart.address, 0x2f8);
	CHECK_EQ_U64(info.spcr.irq, 3);
	CHECK_EQ_U64(info.spcr.baud_rate_code, 7);
	CHECK_EQ_U64(info.spcr.baud_rate, 115200);
	CHECK(info.spcr.io_port_usable);
	fixture_free(&f);
}

TEST(spcr_mmio_uart_not_io_usable)
{
	struct fixture f;
	uint8_t spcr[80] = { 'S', 'P', 'C', 'R', 80, 0, 0, 0, 2 };

	fixture_load(&f, "seabios-q35");
	spcr[40] = ACPI_SPACE_MEMORY;
	spcr[47] = 0xfe;                      /* 0xfe000000 */
	spcr[58] = 0;                         /* as configured */
	struct region *r = add_region(&f, "SPCR.bin", 0x200000, spcr, sizeof(spcr));
	fix_table_checksum(r);
	rsdt_append(&f, 0x200000);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.spcr.present);
	CHECK_EQ_U64(info.spcr.uart.address, 0xfe000000);
	CHECK_EQ_U64(info.spcr.baud_rate, 0);
	CHECK(!info.spcr.io_port_usable);
	fixture_free(&f);
}

/* ---- limits -------------------------------------------------------- */

/* The RSDT's 5 entries plus 65 more naming WAET: with the RSDT itself,
 * DSDT and FACS that is 73 entries for 64 slots, so 9 are dropped. */
TEST(table_list_overflow_is_counted)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	uint32_t waet = (uint32_t)region(&f, "WAET.bin")->addr;
	for (int i = 0; i < 65; i++)
		rsdt_append(&f, waet);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.table_count, ACPI_MAX_TABLES);
	CHECK_EQ_U64(info.tables_dropped, 73 - 64);
	CHECK(info.fadt.present);
	CHECK(info.pm_timer.present);
	fixture_free(&f);
}

/* A large server's XSDT: 70 tables before the ones the probe decodes.
 * The FADT, MADT and HPET land past tables[] and are still decoded. */
TEST(tables_past_the_list_are_still_decoded)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	struct region *r = region(&f, "RSDT.bin");
	uint32_t waet = (uint32_t)region(&f, "WAET.bin")->addr;
	uint32_t body = r->len - 36, extra = 70 * 4;
	uint8_t *d = malloc(r->len + extra);
	memcpy(d, r->data, 36);
	for (uint32_t i = 0; i < 70; i++)
		memcpy(d + 36 + 4 * i, &waet, 4);
	memcpy(d + 36 + extra, r->data + 36, body);
	free(r->data);
	r->data = d;
	r->len += extra;
	memcpy(r->data + 4, &r->len, 4);
	fix_table_checksum(r);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.table_count, ACPI_MAX_TABLES);
	CHECK(info.tables_dropped > 0);
	CHECK(info.fadt.present);
	CHECK(info.pm_timer.present);
	CHECK(info.madt.present);
	CHECK(info.hpet.present && info.hpet.usable);
	CHECK(!acpi_has_error(&info, "ACPI_NO_FADT"));
	/* The DSDT (reached through the FADT, past the list) is still
	 * scanned: the HPET's device and its _CRS (issue 41; the
	 * hostile_many_tables boot refused QEMU's own HPET without this). */
	CHECK(acpi_find_table(&info, "DSDT", 0) == NULL);
	CHECK_EQ_U64(info.hpet_devices.stored, 1);
	CHECK_EQ_U64(info.hpet_devices.range[0].address, 0xfed00000);
	CHECK_STR(info.hpet_devices.range[0].table, "DSDT");
	CHECK_EQ_U64(info.vmclock.tables_scanned, 1);
	fixture_free(&f);
}

TEST(error_list_overflow_is_counted)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	for (int i = 0; i < 20; i++)
		rsdt_append(&f, 0);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.error_count, ACPI_MAX_ERRORS);
	CHECK_EQ_U64(info.errors_dropped, 20 - ACPI_MAX_ERRORS);
	CHECK_STR(info.errors[0].code, "ACPI_NULL_ENTRY");
	fixture_free(&f);
}

/* ---- the VMClock device (QEMU 10 -device vmclock; acpi_aml.c) --------- */

static void check_qemu_vmclock(void)
{
	const struct acpi_vmclock_info *vc = &info.vmclock;

	CHECK(vc->found);
	CHECK(vc->usable);
	CHECK_STR(vc->reason, "");
	CHECK_EQ_U64(vc->devices, 1);
	CHECK_EQ_U64(vc->unresolved, 0);
	/* The DSDT and QEMU's own SSDT (OEM table id "VMCLOCK"). */
	CHECK_EQ_U64(vc->tables_scanned, 2);
	CHECK_STR(vc->table, "SSDT");
	CHECK_STR(vc->oem_table_id, "VMCLOCK");
	CHECK_STR(vc->path, "\\_SB_.VCLK");
	CHECK(vc->hid_match);
	CHECK(vc->cid_match);
	CHECK_STR(vc->resource, "qword_memory");
	/* hw/acpi/vmclock.c: VMCLOCK_ADDR, one page, read-only, cacheable. */
	CHECK_EQ_U64(vc->address, 0xfeffb000);
	CHECK_EQ_U64(vc->length, 4096);
	CHECK(!vc->writable);
	CHECK_EQ_U64(vc->cacheability, 1);
	CHECK(!acpi_has_error(&info, "ACPI_VMCLOCK_DUPLICATE"));
}

TEST(seabios_q35_qemu10_vmclock)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35-vmclock");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(acpi_find_table(&info, "SSDT", 0) != NULL);
	CHECK_EQ_U64(acpi_find_table(&info, "SSDT", 0)->length, 159);
	check_qemu_vmclock();
	CHECK_EQ_U64(info.vmclock.table_address, 0xffe2270);
	CHECK_EQ_U64(info.error_count, 0);
	fixture_free(&f);
}

TEST(ovmf_q35_qemu10_vmclock)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35-vmclock");
	CHECK_EQ_I64(parse(&f), 0);
	check_qemu_vmclock();
	CHECK_EQ_U64(info.vmclock.table_address, 0xf776000);
	fixture_free(&f);
}

/* QEMU 7.2's tables: a DSDT and no SSDT, and nothing in the DSDT. */
TEST(qemu72_has_no_vmclock)
{
	struct fixture f;

	fixture_load(&f, "ovmf-q35");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.vmclock.found);
	CHECK(!info.vmclock.usable);
	CHECK_EQ_U64(info.vmclock.tables_scanned, 1);
	CHECK(strstr(info.vmclock.reason, "no VMClock device") != NULL);
	fixture_free(&f);
	fixture_load(&f, "ovmf-q35-acpi-off");
	parse(&f);
	CHECK(!info.vmclock.found);
	CHECK_EQ_U64(info.vmclock.tables_scanned, 0);
	CHECK(strstr(info.vmclock.reason, "no readable DSDT or SSDT") != NULL);
	fixture_free(&f);
	CHECK_EQ_I64(acpi_parse(&info, 0, fixture_map, &f), -1);
	CHECK(strstr(info.vmclock.reason, "no ACPI tables") != NULL);
}

/* The real SSDT listed twice by the RSDT: two devices, the first used,
 * and the duplicate named. */
TEST(vmclock_declared_twice_is_named)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35-vmclock");
	struct region *ssdt = region(&f, "SSDT.bin");
	add_region(&f, "SSDT2.bin", 0x2000000, ssdt->data, ssdt->len);
	rsdt_append(&f, 0x2000000);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.vmclock.usable);
	CHECK_EQ_U64(info.vmclock.devices, 2);
	CHECK_EQ_U64(info.vmclock.table_address, 0xffe2270);
	CHECK(acpi_has_error(&info, "ACPI_VMCLOCK_DUPLICATE"));
	fixture_free(&f);
}

/* An SSDT whose checksum is wrong is still listed and scanned (the
 * parser names the checksum, as for every table). */
TEST(vmclock_ssdt_bad_checksum_still_scanned)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35-vmclock");
	region(&f, "SSDT.bin")->data[9] ^= 1;
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.vmclock.usable);
	CHECK(acpi_has_error(&info, "ACPI_TABLE_CHECKSUM"));
	fixture_free(&f);
}

/* ---- MCFG and the HPET proof (issue 41) ----------------------------- */

/* Replaces the fixture's MCFG by one holding these 16-byte entries (and
 * `extra` trailing bytes), at the same address. */
static void mcfg_replace(struct fixture *f, const uint8_t (*entries)[16], uint32_t n, uint32_t extra)
{
	struct region *r = region(f, "MCFG.bin");
	uint32_t len = 44 + 16 * n + extra;
	uint8_t *d = calloc(1, len);
	memcpy(d, r->data, 44);
	for (uint32_t i = 0; i < n; i++)
		memcpy(d + 44 + 16 * i, entries[i], 16);
	memcpy(d + 4, &len, 4);
	free(r->data);
	r->data = d;
	r->len = len;
	fix_table_checksum(r);
}

static void mcfg_entry(uint8_t e[16], uint64_t base, uint16_t seg, uint8_t start, uint8_t end)
{
	memset(e, 0, 16);
	memcpy(e, &base, 8);
	memcpy(e + 8, &seg, 2);
	e[10] = start;
	e[11] = end;
}

TEST(mcfg_q35_window_and_madt_ioapic)
{
	struct fixture f;

	fixture_load(&f, "seabios-q35");
	CHECK_EQ_I64(parse(&f), 0);
	/* facts: q35 MCFG base 0xb0000000, segment 0, buses 0-255 (bytes
	 * 44..59 of the captured table); MADT I/O APIC at 0xfec00000. */
	CHECK(info.mcfg.present);
	CHECK_EQ_U64(info.mcfg.count, 1);
	CHECK_EQ_U64(info.mcfg.stored, 1);
	CHECK_EQ_U64(info.mcfg.windows[0].base, 0xb0000000);
	CHECK_EQ_U64(info.mcfg.windows[0].start, 0xb0000000);
	CHECK_EQ_U64(info.mcfg.windows[0].end, 0xc0000000); /* 256 buses x 1 MiB */
	CHECK_EQ_U64(info.mcfg.windows[0].end_bus, 255);
	CHECK_EQ_U64(info.madt.ioapic_count, 1);
	CHECK_EQ_U64(info.madt.ioapic_address[0], 0xfec00000);
	CHECK_EQ_U64(info.madt.local_apic_address, 0xfee00000);
	CHECK_EQ_U64(info.error_count, 0);

	char why[160];
	/* QEMU's own HPET: proven by address and by its registers. */
	CHECK(hpet_address_refusal(&info, 0xfed00000, why, sizeof why) == NULL);
	CHECK(hpet_registers_refusal(0x009896808086a201ull, info.hpet.event_timer_block_id, why, sizeof why) == NULL);
	/* Inside the window (bus 0 device 0's page), at its last byte, and
	 * 1 KiB below it with the block reaching in: refused, named. */
	CHECK(hpet_address_refusal(&info, 0xb0000000, why, sizeof why) != NULL);
	CHECK(strstr(why, "PCI configuration window (MCFG segment 0, buses 0-255 at 0xb0000000)") != NULL);
	CHECK(hpet_address_refusal(&info, 0xbffffc00, why, sizeof why) != NULL);
	CHECK(hpet_address_refusal(&info, 0xaffffc00, why, sizeof why) == NULL);
	CHECK(hpet_address_refusal(&info, 0xc0000000, why, sizeof why) == NULL);
	/* The APIC pages. */
	CHECK(hpet_address_refusal(&info, 0xfec00000, why, sizeof why) != NULL);
	CHECK(strstr(why, "I/O APIC") != NULL);
	CHECK(hpet_address_refusal(&info, 0xfec00c00, why, sizeof why) != NULL);
	CHECK(hpet_address_refusal(&info, 0xfee00400, why, sizeof why) != NULL);
	CHECK(strstr(why, "local APIC") != NULL);
	CHECK(hpet_address_refusal(&info, 0xfec01000, why, sizeof why) == NULL);
	fixture_free(&f);
}

TEST(hpet_registers_must_agree_with_the_table)
{
	char why[160];
	const uint32_t id = 0x8086a201; /* QEMU's table */
	/* Reads of nothing. */
	CHECK(hpet_registers_refusal(0, id, why, sizeof why) != NULL);
	CHECK(strstr(why, "no device answers") != NULL);
	CHECK(hpet_registers_refusal(~0ull, id, why, sizeof why) != NULL);
	/* Vendor 0 / 0xffff, revision 0. */
	CHECK(hpet_registers_refusal(0x0098968000002201ull, 0x00002201, why, sizeof why) != NULL);
	CHECK(strstr(why, "no vendor") != NULL);
	CHECK(hpet_registers_refusal(0x00989680ffffa201ull, 0xffffa201, why, sizeof why) != NULL);
	CHECK(hpet_registers_refusal(0x009896808086a200ull, 0x8086a200, why, sizeof why) != NULL);
	CHECK(strstr(why, "revision 0") != NULL);
	/* Periods: 0, above the spec's 100 ns, below Linux's minimum. */
	CHECK(hpet_registers_refusal(0x000000008086a201ull, id, why, sizeof why) != NULL);
	CHECK(hpet_registers_refusal(0x05f5e1018086a201ull, id, why, sizeof why) != NULL);
	CHECK(strstr(why, "period of 100000001 fs") != NULL);
	CHECK(hpet_registers_refusal(0x0001869f8086a201ull, id, why, sizeof why) != NULL);
	/* A PCI function's config header read as capabilities (q35's host
	 * bridge 8086:29c0): vendor "0x29c0", and no such table id. */
	CHECK(hpet_registers_refusal(0x0090000029c08086ull, id, why, sizeof why) != NULL);
	/* The hostile machine's fake (tests/integration/hostile_machine.py):
	 * a valid period, but a 32-bit counter where the table says 64. */
	CHECK(hpet_registers_refusal(0x0098968080868201ull, id, why, sizeof why) != NULL);
	CHECK(strstr(why, "disagree with the ACPI table's Event Timer Block ID 0x8086a201") != NULL);
	/* Other vendor, other comparator count: refused. */
	CHECK(hpet_registers_refusal(0x009896801022a201ull, id, why, sizeof why) != NULL);
	CHECK(hpet_registers_refusal(0x009896808086a301ull, id, why, sizeof why) != NULL);
	/* Revision and LEG_RT_CAP may differ: not what names the device. */
	CHECK(hpet_registers_refusal(0x009896808086a202ull, id, why, sizeof why) == NULL);
	CHECK(hpet_registers_refusal(0x0429b17f80862201ull, id, why, sizeof why) == NULL); /* LEG_RT 0, 14.318 MHz */
}

TEST(mcfg_hostile_entries)
{
	struct fixture f;
	uint8_t e[20][16];

	fixture_load(&f, "seabios-q35");
	mcfg_entry(e[0], 0xe0000000, 1, 16, 31);   /* buses 16..31 only */
	mcfg_entry(e[1], 0xd0000000, 2, 9, 3);     /* end below start: empty */
	mcfg_entry(e[2], 0xfffffffffff00000ull, 3, 0, 255); /* wraps: clamped */
	mcfg_replace(&f, (const uint8_t (*)[16])e, 3, 7);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(info.mcfg.present);
	CHECK_EQ_U64(info.mcfg.count, 3);
	CHECK(acpi_has_error(&info, "ACPI_MCFG_BAD_LENGTH"));
	CHECK_EQ_U64(info.mcfg.windows[0].start, 0xe1000000);
	CHECK_EQ_U64(info.mcfg.windows[0].end, 0xe2000000);
	CHECK_EQ_U64(info.mcfg.windows[1].start, info.mcfg.windows[1].end);
	CHECK_EQ_U64(info.mcfg.windows[2].end, ~0ull);
	char why[160];
	CHECK(hpet_address_refusal(&info, 0xe0000000, why, sizeof why) == NULL); /* bus 0 not declared */
	CHECK(hpet_address_refusal(&info, 0xe1000400, why, sizeof why) != NULL);
	CHECK(strstr(why, "segment 1, buses 16-31") != NULL);
	CHECK(hpet_address_refusal(&info, 0xd0000000, why, sizeof why) == NULL);
	CHECK(hpet_address_refusal(&info, 0xfffffffffffffc00ull, why, sizeof why) != NULL);
	fixture_free(&f);

	/* More windows than are kept: what cannot be checked is not proven. */
	fixture_load(&f, "seabios-q35");
	for (int i = 0; i < 20; i++)
		mcfg_entry(e[i], 0x100000000ull * (uint64_t)(i + 1), (uint16_t)i, 0, 0);
	mcfg_replace(&f, (const uint8_t (*)[16])e, 20, 0);
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.mcfg.count, 20);
	CHECK_EQ_U64(info.mcfg.stored, ACPI_MAX_MCFG);
	CHECK(hpet_address_refusal(&info, 0xfed00000, why, sizeof why) != NULL);
	CHECK(strstr(why, "20 configuration windows, only 16") != NULL);
	fixture_free(&f);

	/* Shorter than its header's 44 bytes: named, no windows. */
	fixture_load(&f, "seabios-q35");
	mcfg_replace(&f, NULL, 0, 0);
	{
		struct region *r = region(&f, "MCFG.bin");
		uint32_t len = 40;
		memcpy(r->data + 4, &len, 4);
		fix_table_checksum(r);
	}
	CHECK_EQ_I64(parse(&f), 0);
	CHECK(!info.mcfg.present);
	CHECK(acpi_has_error(&info, "ACPI_TABLE_TRUNCATED"));
	CHECK(hpet_address_refusal(&info, 0xb0000000, why, sizeof why) == NULL); /* no window declared */
	fixture_free(&f);
}

/* ---- issue 41: the HPET block set aside by the firmware ---- */

/* QEMU's DSDT declares \_SB_.HPET (EisaId PNP0103, a DWord) with
 * Memory32Fixed 0xfed00000 length 0x400 (facts: bytes 6205.. and the _CRS
 * at 6305 of the captured seabios-q35 DSDT); with hpet=off it declares
 * none. */
TEST(hpet_device_crs_in_real_dsdts)
{
	static const char *const sets[] = { "seabios-q35", "ovmf-q35", "seabios-pc" };
	char text[160];
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		struct fixture f;
		fixture_load(&f, sets[i]);
		CHECK_EQ_I64(parse(&f), 0);
		const struct acpi_hpet_devices *d = &info.hpet_devices;
		CHECK_EQ_U64(d->devices, 1);
		CHECK_EQ_U64(d->stored, 1);
		CHECK_STR(d->range[0].path, "_SB_.HPET"); /* Scope (_SB) { Device (HPET) }: the scan keeps the names as written */
		CHECK_STR(d->range[0].table, "DSDT");
		CHECK_EQ_U64(d->range[0].address, 0xfed00000);
		CHECK_EQ_U64(d->range[0].length, 0x400);
		/* The real base is inside; one a block away, or reaching past
		 * the range's end, is refused by name. */
		CHECK(hpet_set_aside(d, 0xfed00000, text, sizeof text) == HPET_SET_ASIDE_BY_AML);
		CHECK_STR(text, "inside the _CRS of _SB_.HPET (DSDT): 0xfed00000, 1024 bytes");
		CHECK(hpet_set_aside(d, 0xfed00400, text, sizeof text) == HPET_SET_ASIDE_REFUSED);
		CHECK(strstr(text, "base 0xfed00400 lies outside the _CRS of every HPET device the AML declares "
				   "(_SB_.HPET: 0xfed00000, 1024 bytes)") != NULL);
		CHECK(hpet_set_aside(d, 0xfecffc00, text, sizeof text) == HPET_SET_ASIDE_REFUSED);
		CHECK(hpet_set_aside(d, 0xfed00200, text, sizeof text) == HPET_SET_ASIDE_REFUSED);
		CHECK(hpet_set_aside(d, 0xfe000000, text, sizeof text) == HPET_SET_ASIDE_REFUSED);
		fixture_free(&f);
	}
	struct fixture f;
	fixture_load(&f, "seabios-q35-hpet-off");
	CHECK_EQ_I64(parse(&f), 0);
	CHECK_EQ_U64(info.hpet_devices.devices, 0);
	CHECK(hpet_set_aside(&info.hpet_devices, 0xfed00000, text, sizeof text) == HPET_SET_ASIDE_ASK_MAP);
	CHECK_STR(text, "no HPET (PNP0103) in the AML");
	char why[300];
	CHECK(hpet_map_refusal(0xfe000000, text, "0xfe000000 is not reserved in the PVH memory map (a hole)", why,
			       sizeof why) == why);
	CHECK_STR(why, "base 0xfe000000 is set aside by no firmware map (no HPET (PNP0103) in the AML; "
		       "0xfe000000 is not reserved in the PVH memory map (a hole))");
	fixture_free(&f);
}

/* QEMU's HPET device, cut out of the real DSDT, then edited: the scan
 * finds a String _HID too, reads a _CRS that is a Method as "cannot
 * say" (the memory map decides), and a Memory32Fixed moved elsewhere. */
TEST(hpet_device_variants_from_real_bytes)
{
	struct fixture f;
	char text[160];
	fixture_load(&f, "seabios-q35");
	struct region *dsdt = region(&f, "DSDT.bin");
	const uint8_t *aml = (const uint8_t *)dsdt->data + 36;
	uint32_t len = (uint32_t)dsdt->len - 36;
	/* The Device op (5B 82) that encloses the PNP0103 id. */
	uint32_t id_at = 0, dev_at = 0;
	static const uint8_t eisa[] = { 0x0c, 0x41, 0xd0, 0x01, 0x03 };
	while (id_at + 5 <= len && memcmp(aml + id_at, eisa, 5))
		id_at++;
	CHECK(id_at + 5 <= len);
	for (dev_at = id_at; dev_at > 0 && !(aml[dev_at] == 0x5b && aml[dev_at + 1] == 0x82); dev_at--)
		;
	uint32_t dev_len = 2 + (aml[dev_at + 2] & 0x0f) + ((uint32_t)aml[dev_at + 3] << 4); /* 2-byte PkgLength */
	CHECK_EQ_U64(aml[dev_at + 2] >> 6, 1);
	uint8_t *dev = malloc(dev_len);
	struct acpi_hpet_devices d;

	memcpy(dev, aml + dev_at, dev_len);
	memset(&d, 0, sizeof d);
	acpi_aml_find_hpet(dev, dev_len, &d);
	CHECK_EQ_U64(d.stored, 1);
	CHECK_EQ_U64(d.range[0].address, 0xfed00000);

	/* Memory32Fixed's address moved to 0xfe000000: that is where the
	 * firmware says the HPET is; 0xfed00000 is then refused. */
	uint8_t *crs = NULL;
	for (uint32_t i = 0; i + 4 <= dev_len; i++)
		if (!memcmp(dev + i, "\x86\x09\x00", 3))
			crs = dev + i;
	CHECK(crs != NULL);
	crs[7] = 0xfe;
	crs[6] = 0x00;
	memset(&d, 0, sizeof d);
	acpi_aml_find_hpet(dev, dev_len, &d);
	CHECK_EQ_U64(d.range[0].address, 0xfe000000);
	CHECK(hpet_set_aside(&d, 0xfed00000, text, sizeof text) == HPET_SET_ASIDE_REFUSED);
	CHECK(hpet_set_aside(&d, 0xfe000000, text, sizeof text) == HPET_SET_ASIDE_BY_AML);

	/* The _CRS a Method (its NameOp turned into a MethodOp with a
	 * PkgLength covering the rest): the AML cannot say. */
	memcpy(dev, aml + dev_at, dev_len);
	uint8_t *name = NULL;
	for (uint32_t i = 0; i + 5 <= dev_len; i++)
		if (!memcmp(dev + i, "\x08_CRS", 5))
			name = dev + i;
	CHECK(name != NULL);
	name[0] = 0x14;
	memmove(name + 2, name + 1, (size_t)(dev + dev_len - name - 2));
	name[1] = (uint8_t)(dev + dev_len - name - 1); /* one-byte PkgLength: to the device's end */
	memset(&d, 0, sizeof d);
	acpi_aml_find_hpet(dev, dev_len, &d);
	CHECK_EQ_U64(d.devices, 1);
	CHECK_EQ_U64(d.stored, 0);
	CHECK(strstr(d.reason, "HPET: HPET device found, but its _CRS is a method") != NULL);
	CHECK(hpet_set_aside(&d, 0xfed00000, text, sizeof text) == HPET_SET_ASIDE_ASK_MAP);

	/* A String _HID "PNP0103" instead of the EISA id: 9 bytes where 5
	 * were, the device grown by 4. */
	uint8_t *grown = malloc(dev_len + 4);
	uint32_t at = id_at - dev_at;
	memcpy(grown, aml + dev_at, at);
	memcpy(grown + at, "\x0dPNP0103\x00", 9);
	memcpy(grown + at + 9, aml + id_at + 5, dev_len - at - 5);
	uint32_t pkglen = dev_len - 2 + 4;
	grown[2] = (uint8_t)(0x40 | (pkglen & 0x0f));
	grown[3] = (uint8_t)(pkglen >> 4);
	memset(&d, 0, sizeof d);
	acpi_aml_find_hpet(grown, dev_len + 4, &d);
	CHECK_EQ_U64(d.stored, 1);
	CHECK_EQ_U64(d.range[0].address, 0xfed00000);
	/* Another id (PNP0100, the PIT) is not an HPET. */
	memcpy(dev, aml + dev_at, dev_len);
	dev[id_at - dev_at + 4] = 0x00;
	memset(&d, 0, sizeof d);
	acpi_aml_find_hpet(dev, dev_len, &d);
	CHECK_EQ_U64(d.devices, 0);
	free(grown);
	free(dev);
	fixture_free(&f);
}
