/* libFuzzer target for the ACPI and SMBIOS parsers.
 *
 * Input layout (all little-endian), mirroring the fixtures' index.txt:
 *   u64 RSDP address, u64 SMBIOS entry point address,
 *   then up to MAX_REGIONS records: u64 address, u32 length, length bytes
 *   (a record running past the input is cut to what is left).
 * Each region is copied into its own exact-size heap buffer, so ASan
 * flags any read past a table's real end instead of silently reading the
 * next record.  Seeds: tests/fixtures/acpi/fuzz-seeds/ (see README).
 *
 *   clang -fsanitize=fuzzer,address,undefined -Iinclude tests/fuzz/fuzz_acpi.c \
 *     <every .c under src/decode and src/lib> -o build/fuzz_acpi
 * (`make fuzz` builds it with every pure source.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "acpi.h"
#include "smbios.h"

#define MAX_REGIONS 48

struct region {
	uint64_t addr;
	uint32_t len;
	uint8_t *data;
};

struct memory {
	struct region r[MAX_REGIONS];
	int n;
};

static const void *fuzz_map(void *ctx, uint64_t phys, uint32_t len)
{
	struct memory *m = ctx;

	for (int i = 0; i < m->n; i++) {
		struct region *r = &m->r[i];
		if (phys >= r->addr && phys - r->addr <= r->len &&
		    len <= r->len - (phys - r->addr))
			return r->data + (phys - r->addr);
	}
	return NULL;
}

static void load_regions(struct memory *m, const uint8_t *data, size_t size)
{
	size_t off = 16;

	m->n = 0;
	while (off + 12 <= size && m->n < MAX_REGIONS) {
		struct region *r = &m->r[m->n++];
		uint32_t len = load_le32(data + off + 8);

		r->addr = load_le64(data + off);
		off += 12;
		if (len > size - off)
			len = (uint32_t)(size - off);
		r->len = len;
		/* malloc(0) may return NULL; keep one byte so data is valid */
		r->data = malloc(len ? len : 1);
		memcpy(r->data, data + off, len);
		off += len;
	}
}

static struct acpi_info acpi;
static struct smbios_info smbios;

/* Reads everything a report writer would read, so uninitialised or
 * out-of-range fields show up under the sanitizers. */
static size_t touch_results(void)
{
	size_t sum = 0;

	for (uint32_t i = 0; i < acpi.table_count; i++)
		sum += str_len(acpi.tables[i].signature) +
		       str_len(acpi.tables[i].status);
	for (uint32_t i = 0; i < acpi.error_count; i++)
		sum += str_len(acpi.errors[i].code) + str_len(acpi.errors[i].message);
	sum += str_len(acpi.pm_timer.reason ? acpi.pm_timer.reason : "") + str_len(acpi.hpet.reason ? acpi.hpet.reason : "");
	if (acpi.pm_timer.source)
		sum += str_len(acpi.pm_timer.source);
	for (uint32_t i = 0; i < smbios.error_count; i++)
		sum += str_len(smbios.errors[i].code) + str_len(smbios.errors[i].message);
	sum += str_len(smbios.manufacturer) + str_len(smbios.product) +
	       str_len(smbios.version) + str_len(smbios.family) +
	       str_len(smbios.bios_vendor) + str_len(smbios.bios_version) +
	       str_len(smbios.bios_release_date);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memory m;
	volatile size_t sink;

	if (size < 16)
		return 0;
	load_regions(&m, data, size);
	acpi_parse(&acpi, load_le64(data), fuzz_map, &m);
	smbios_parse(&smbios, load_le64(data + 8), fuzz_map, &m);
	if (acpi.table_count > ACPI_MAX_TABLES || acpi.error_count > ACPI_MAX_ERRORS ||
	    acpi.madt.cpu_count > ACPI_MAX_CPUS ||
	    smbios.error_count > SMBIOS_MAX_ERRORS)
		abort();
	sink = touch_results();
	(void)sink;
	for (int i = 0; i < m.n; i++)
		free(m.r[i].data);
	return 0;
}
