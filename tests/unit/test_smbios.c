/* SMBIOS parser tests on real QEMU 7.2 structure tables captured under
 * SeaBIOS and OVMF (tests/fixtures/smbios/, captured by
 * tests/fixtures/acpi/capture.py), plus hand-built tables following the
 * DMTF SMBIOS spec (DSP0134) layouts.  Expected strings were read off the
 * fixture bytes with `strings`/`xxd`, not from the parser. */
#include "check.h"
#include "smbios.h"
#include <stdlib.h>

struct blob {
	uint64_t addr;
	uint32_t len;
	uint8_t *data;
};

struct tables {
	struct blob entry, table;
};

static struct smbios_info info;

static void load_blob(struct blob *b, const char *set, const char *name,
		      uint64_t addr)
{
	char path[256];
	size_t len;

	snprintf(path, sizeof(path), "tests/fixtures/smbios/%s/%s", set, name);
	b->data = read_fixture(path, &len);
	b->len = (uint32_t)len;
	b->addr = addr;
}

/* Addresses are the captured ones (the index.txt beside the files). */
static void load(struct tables *t, const char *set)
{
	char path[256];
	size_t len;
	unsigned long long e = 0, a = 0;

	snprintf(path, sizeof(path), "tests/fixtures/smbios/%s/index.txt", set);
	char *index = read_fixture(path, &len);
	index[len - 1] = '\0';
	CHECK(sscanf(index, "entry.bin %llx %*u table.bin %llx", &e, &a) == 2);
	free(index);
	load_blob(&t->entry, set, "entry.bin", e);
	load_blob(&t->table, set, "table.bin", a);
}

static void unload(struct tables *t)
{
	free(t->entry.data);
	free(t->table.data);
}

static const void *map(void *ctx, uint64_t phys, uint32_t len)
{
	struct tables *t = ctx;
	struct blob *all[] = { &t->entry, &t->table };

	for (int i = 0; i < 2; i++) {
		struct blob *b = all[i];
		if (b->data && phys >= b->addr && phys - b->addr <= b->len &&
		    len <= b->len - (phys - b->addr))
			return b->data + (phys - b->addr);
	}
	return NULL;
}

static int parse(struct tables *t)
{
	return smbios_parse(&info, t->entry.addr, map, t);
}

static void fix_sm2_checksums(uint8_t *e)
{
	uint8_t sum = 0;

	e[21] = 0;
	for (int i = 16; i < 31; i++)
		sum = (uint8_t)(sum + e[i]);
	e[21] = (uint8_t)-sum;
	e[4] = 0;
	sum = 0;
	for (int i = 0; i < e[5]; i++)
		sum = (uint8_t)(sum + e[i]);
	e[4] = (uint8_t)-sum;
}

/* ---- real tables ---------------------------------------------------- */

TEST(seabios_q35_smbios_2_8)
{
	struct tables t;

	load(&t, "seabios-q35");
	CHECK_EQ_I64(parse(&t), 0);
	CHECK(info.present);
	CHECK_STR(info.anchor, "_SM_");
	CHECK(info.entry_checksum_ok);
	CHECK_EQ_U64(info.major, 2);
	CHECK_EQ_U64(info.minor, 8);
	CHECK_EQ_U64(info.table_address, 0xf5a20);
	CHECK_EQ_U64(info.table_length, 376);
	CHECK(info.has_bios);
	CHECK_STR(info.bios_vendor, "SeaBIOS");
	CHECK_STR(info.bios_version, "1.16.2-debian-1.16.2-1");
	CHECK_STR(info.bios_release_date, "04/01/2014");
	CHECK(info.has_system);
	CHECK_STR(info.manufacturer, "QEMU");
	CHECK_STR(info.product, "Standard PC (Q35 + ICH9, 2009)");
	CHECK_STR(info.version, "pc-q35-7.2");
	CHECK_STR(info.family, "");  /* type 1 family index is 0 */
	CHECK_EQ_U64(info.error_count, 0);
	unload(&t);
}

TEST(seabios_pc_smbios)
{
	struct tables t;

	load(&t, "seabios-pc");
	CHECK_EQ_I64(parse(&t), 0);
	CHECK_STR(info.manufacturer, "QEMU");
	CHECK_STR(info.product, "Standard PC (i440FX + PIIX, 1996)");
	CHECK_STR(info.version, "pc-i440fx-7.2");
	CHECK_EQ_U64(info.error_count, 0);
	unload(&t);
}

TEST(seabios_q35_smbios_3_0_entry)
{
	struct tables t;

	load(&t, "seabios-q35-smbios64");
	CHECK_EQ_I64(parse(&t), 0);
	CHECK_STR(info.anchor, "_SM3_");
	CHECK(info.entry_checksum_ok);
	CHECK_EQ_U64(info.major, 3);
	CHECK_EQ_U64(info.minor, 0);
	CHECK_EQ_U64(info.table_length, 382);
	CHECK_STR(info.product, "Standard PC (Q35 + ICH9, 2009)");
	CHECK_STR(info.bios_vendor, "SeaBIOS");
	CHECK_EQ_U64(info.error_count, 0);
	unload(&t);
}

/* OVMF lists type 1 first and its own type 0 last. */
TEST(ovmf_q35_smbios)
{
	struct tables t;

	load(&t, "ovmf-q35");
	CHECK_EQ_I64(parse(&t), 0);
	CHECK_STR(info.anchor, "_SM_");
	CHECK_EQ_U64(info.major, 2);
	CHECK_EQ_U64(info.minor, 8);
	CHECK_STR(info.manufacturer, "QEMU");
	CHECK_STR(info.product, "Standard PC (Q35 + ICH9, 2009)");
	CHECK_STR(info.version, "pc-q35-7.2");
	CHECK_STR(info.bios_vendor, "EFI Development Kit II / OVMF");
	CHECK_STR(info.bios_version, "0.0.0");
	CHECK_STR(info.bios_release_date, "02/06/2015");
	/* QEMU without -uuid or a type 1 serial: both absent, named. */
	CHECK_STR(info.serial, "");
	CHECK_STR(info.uuid, "");
	CHECK(info.uuid_reason != NULL);
	CHECK_EQ_U64(info.error_count, 0);
	unload(&t);
}

/* ---- damage --------------------------------------------------------- */

TEST(no_entry_point)
{
	struct tables t;

	load(&t, "seabios-q35");
	CHECK_EQ_I64(smbios_parse(&info, 0, map, &t), -1);
	CHECK(!info.present);
	CHECK(smbios_has_error(&info, "SMBIOS_ENTRY_MISSING"));
	CHECK_EQ_I64(smbios_parse(&info, t.table.addr, map, &t), -1);
	CHECK(smbios_has_error(&info, "SMBIOS_ENTRY_MISSING"));
	CHECK_EQ_I64(smbios_parse(&info, 0xdead0000, map, &t), -1);
	CHECK_STR(info.manufacturer, "");
	unload(&t);
}

TEST(entry_checksum_wrong_still_walked)
{
	struct tables t;

	load(&t, "seabios-q35");
	t.entry.data[11] ^= 0x01; /* formatted area byte */
	CHECK_EQ_I64(parse(&t), 0);
	CHECK(!info.entry_checksum_ok);
	CHECK(smbios_has_error(&info, "SMBIOS_ENTRY_CHECKSUM"));
	CHECK_STR(info.manufacturer, "QEMU");
	unload(&t);
}

TEST(dmi_anchor_missing)
{
	struct tables t;

	load(&t, "seabios-q35");
	t.entry.data[17] = 'X'; /* "_XMI_" */
	fix_sm2_checksums(t.entry.data);
	CHECK_EQ_I64(parse(&t), 0);
	CHECK(!info.entry_checksum_ok);
	unload(&t);
}

TEST(table_unreadable)
{
	struct tables t;

	load(&t, "seabios-q35");
	uint32_t nowhere = 0x7fff0000;
	memcpy(t.entry.data + 24, &nowhere, 4);
	fix_sm2_checksums(t.entry.data);
	CHECK_EQ_I64(parse(&t), -1);
	CHECK(info.present);
	CHECK(smbios_has_error(&info, "SMBIOS_TABLE_UNREADABLE"));
	unload(&t);
}

TEST(sm3_table_length_bogus)
{
	struct tables t;

	load(&t, "seabios-q35-smbios64");
	uint32_t huge = 0xffffffffu;
	memcpy(t.entry.data + 12, &huge, 4);
	CHECK_EQ_I64(parse(&t), -1);
	CHECK(smbios_has_error(&info, "SMBIOS_TABLE_LENGTH"));
	CHECK(smbios_has_error(&info, "SMBIOS_ENTRY_CHECKSUM"));
	unload(&t);
}

/* Table cut inside type 1's string-set: type 0 (0x43 = 67 bytes incl.
 * strings, see xxd) survives, type 1 is not used. */
TEST(string_set_running_off_the_table)
{
	struct tables t;

	load(&t, "seabios-q35");
	uint16_t len = 0x43 + 0x1b + 6; /* into "QEMU\0Standard..." */
	memcpy(t.entry.data + 22, &len, 2);
	fix_sm2_checksums(t.entry.data);
	CHECK_EQ_I64(parse(&t), 0);
	CHECK(info.has_bios);
	CHECK(!info.has_system);
	CHECK(smbios_has_error(&info, "SMBIOS_STRING_UNTERMINATED"));
	CHECK_EQ_U64(info.structures, 1);
	unload(&t);
}

/* ---- hand-built tables ---------------------------------------------- */

/* SMBIOS 2.1 era entry point with the 0x1E length quirk, a type 1 whose
 * strings need cleaning and whose version index points past the set, and
 * a structure claiming formatted length 2. */
static const uint8_t built_table[] = {
	/* type 1, length 8 (SMBIOS 2.0: up to the serial number), handle 1 */
	1, 8, 1, 0, 1, 2, 3, 4,
	'A', 'c', 'm', 'e', ' ', ' ', 0,
	'B', 'o', 'x', 0x07, 0,
	0,
	/* type 0 with formatted length 2: broken */
	0, 2, 2, 0,
	0, 0,
};

static void build(struct tables *t, const uint8_t *table, uint32_t len)
{
	static uint8_t entry[31] = {
		'_', 'S', 'M', '_', 0, 0x1e, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0,
		'_', 'D', 'M', 'I', '_', 0, 0, 0, 0x00, 0x10, 0, 0, 2, 0, 0x21,
	};

	t->entry.addr = 0xf0000;
	t->entry.len = sizeof(entry);
	t->entry.data = malloc(sizeof(entry));
	memcpy(t->entry.data, entry, sizeof(entry));
	t->entry.data[22] = (uint8_t)len;
	t->entry.data[23] = (uint8_t)(len >> 8);
	fix_sm2_checksums(t->entry.data);
	t->table.addr = 0x1000;
	t->table.len = len;
	t->table.data = malloc(len);
	memcpy(t->table.data, table, len);
}

TEST(built_2_1_table_cleaning_and_bounds)
{
	struct tables t;

	build(&t, built_table, sizeof(built_table));
	CHECK_EQ_I64(parse(&t), 0);
	CHECK(info.entry_checksum_ok);
	CHECK_EQ_U64(info.major, 2);
	CHECK_EQ_U64(info.minor, 1);
	CHECK_STR(info.manufacturer, "Acme");  /* trailing blanks dropped */
	CHECK_STR(info.product, "Box?");       /* BEL replaced */
	CHECK_STR(info.version, "");           /* index 3 of 2 strings */
	CHECK(smbios_has_error(&info, "SMBIOS_STRING_INDEX"));
	CHECK(smbios_has_error(&info, "SMBIOS_STRUCT_TRUNCATED"));
	CHECK(!info.has_bios);
	CHECK_EQ_U64(info.structures, 1);
	unload(&t);
}

/* A 3.x table that ends without type 127 is named; string longer than
 * SMBIOS_STRING_MAX is cut. */
TEST(built_3_0_without_end_marker)
{
	struct tables t;
	uint8_t table[8 + 101 + 2] = { 1, 8, 1, 0, 1, 0, 0, 0 };
	static uint8_t entry[24] = { '_', 'S', 'M', '3', '_', 0, 0x18, 3, 2 };

	memset(table + 8, 'x', 100);
	table[108] = 0;
	table[109] = 0;
	table[110] = 0;
	t.entry.addr = 0xf0000;
	t.entry.len = sizeof(entry);
	t.entry.data = malloc(sizeof(entry));
	memcpy(t.entry.data, entry, sizeof(entry));
	uint32_t len = sizeof(table);
	uint64_t addr = 0x2000;
	memcpy(t.entry.data + 12, &len, 4);
	memcpy(t.entry.data + 16, &addr, 8);
	uint8_t sum = 0;
	for (int i = 0; i < 24; i++)
		sum = (uint8_t)(sum + t.entry.data[i]);
	t.entry.data[5] = (uint8_t)-sum;
	t.table.addr = addr;
	t.table.len = len;
	t.table.data = malloc(len);
	memcpy(t.table.data, table, len);
	CHECK_EQ_I64(parse(&t), 0);
	CHECK(info.entry_checksum_ok);
	CHECK_EQ_U64(info.minor, 2);
	CHECK_EQ_U64(str_len(info.manufacturer), SMBIOS_STRING_MAX);
	/* ... and flagged as cut (issue 25: platform.smbios.*_truncated) */
	CHECK_EQ_U64(info.truncated, SMBIOS_CUT_MANUFACTURER);
	CHECK(smbios_has_error(&info, "SMBIOS_NO_END"));
	unload(&t);
}

/* Exactly SMBIOS_STRING_MAX bytes is whole; one more is cut and flagged.
 * Strings found in the real QEMU fixtures are all whole. */
TEST(smbios_strings_at_and_past_the_limit)
{
	struct tables t;
	/* type 1 (manufacturer string 1, product 2), then type 127 */
	uint8_t table[8 + 65 + 66 + 1 + 6] = { 1, 8, 1, 0, 1, 2, 0, 0 };
	memset(table + 8, 'a', 64);	 /* string 1: 64 bytes and its NUL */
	memset(table + 8 + 65, 'b', 65); /* string 2: 65 bytes and its NUL */
	memcpy(table + 8 + 65 + 66 + 1, (uint8_t[]){ 127, 4, 2, 0, 0, 0 }, 6);
	build(&t, table, sizeof(table));
	CHECK_EQ_I64(parse(&t), 0);
	CHECK_EQ_U64(str_len(info.manufacturer), 64);
	CHECK_EQ_U64(str_len(info.product), 64);
	CHECK_EQ_U64(info.truncated, SMBIOS_CUT_PRODUCT);
	unload(&t);
	load(&t, "ovmf-q35");
	CHECK_EQ_I64(parse(&t), 0);
	CHECK_EQ_U64(info.truncated, 0);
	unload(&t);
}
