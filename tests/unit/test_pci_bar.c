/* The PCI header decode (src/decode/pci_bar.c) on the recorded headers of
 * tests/fixtures/pci/ (checked against the kernel's resource list there)
 * and on headers built here from the PCI and PCI-to-PCI bridge specs:
 * bridge windows, ROMs, 64-bit BARs in the last slot, I/O BARs. */
#include "check.h"
#include "pci.h"
#include <dirent.h>
#include <stdlib.h>

static void load_cfg(const char *path, uint32_t cfg[PCI_HEADER_DWORDS])
{
	size_t n;
	uint8_t *b = read_fixture(path, &n);
	CHECK_EQ_U64(n, 64);
	memcpy(cfg, b, 64);
	free(b);
}

/* Every recorded function: each memory BAR the decode finds is one the
 * kernel lists (same start, flagged memory), each memory BAR the kernel
 * lists (lines 0-5) is found, and a base in the BAR's first 16 bytes is
 * refused by name while one past the kernel's end of it is not. */
TEST(recorded_headers_agree_with_the_kernel)
{
	DIR *dir = opendir("tests/fixtures/pci");
	struct dirent *e;
	uint32_t functions = 0, bars_total = 0;
	CHECK(dir != NULL);
	while (dir && (e = readdir(dir))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".cfg"))
			continue;
		char path[300], rpath[300];
		snprintf(path, sizeof path, "tests/fixtures/pci/%s", e->d_name);
		snprintf(rpath, sizeof rpath, "tests/fixtures/pci/%.*s.resource", (int)(len - 4), e->d_name);
		uint32_t cfg[PCI_HEADER_DWORDS];
		load_cfg(path, cfg);
		size_t rn;
		char *res = (char *)read_fixture(rpath, &rn);
		uint64_t start[7] = { 0 }, end[7] = { 0 }, flags[7] = { 0 };
		char *line = res;
		for (int i = 0; i < 7 && line && *line; i++) {
			start[i] = strtoull(line, &line, 16);
			end[i] = strtoull(line, &line, 16);
			flags[i] = strtoull(line, &line, 16);
			line = strchr(line, '\n');
			if (line)
				line++;
		}
		struct pci_range r[PCI_MAX_RANGES];
		uint32_t seen = 0, n = pci_header_ranges(cfg, r, &seen);
		uint32_t kernel_mem = 0;
		for (int i = 0; i < 6; i++)
			kernel_mem += (flags[i] & 0x200) && start[i];
		CHECK_EQ_U64(seen, kernel_mem);
		for (uint32_t k = 0; k < n; k++) {
			CHECK(r[k].kind == PCI_RANGE_BAR);
			CHECK(r[k].index < 6);
			CHECK_EQ_U64(r[k].base, start[r[k].index]);
			CHECK(flags[r[k].index] & 0x200);
			CHECK_EQ_U64(r[k].length, 16);
			char why[160];
			CHECK(pci_ranges_refusal(r, n, 0, 2, 0, r[k].base + 8, 1024, why, sizeof why) != NULL);
			CHECK(strstr(why, "lies in PCI 00:02.0's BAR") != NULL);
			CHECK(strstr(why, "at least 16 bytes") != NULL);
			CHECK(pci_ranges_refusal(r, n, 0, 2, 0, end[r[k].index] + 1, 1024, why, sizeof why) == NULL);
			/* A block ending right at the BAR's base does not touch it. */
			CHECK(pci_ranges_refusal(r, n, 0, 2, 0, r[k].base - 1024, 1024, why, sizeof why) == NULL);
		}
		bars_total += seen;
		functions++;
		free(res);
	}
	if (dir)
		closedir(dir);
	CHECK_EQ_U64(functions, 6);
	CHECK_EQ_U64(bars_total, 5); /* the host bridge has none, each virtio function one */
}

static void header(uint32_t cfg[PCI_HEADER_DWORDS], uint32_t type)
{
	memset(cfg, 0, 4 * PCI_HEADER_DWORDS);
	cfg[0] = 0x29228086; /* ICH9 AHCI: any vendor works */
	cfg[3] = type << 16;
}

TEST(type0_bar_forms)
{
	uint32_t cfg[PCI_HEADER_DWORDS], seen = 0;
	struct pci_range r[PCI_MAX_RANGES];
	char why[160];
	header(cfg, 0x80); /* multi-function bit: still a type 0 header */
	cfg[4] = 0xc001;     /* I/O BAR: no memory */
	cfg[5] = 0;          /* unassigned */
	cfg[6] = 0xfebd1000; /* 32-bit memory */
	cfg[7] = 0xfe00000c; /* 64-bit prefetchable, upper half 1: 0x1fe000000 */
	cfg[8] = 1;
	cfg[9] = 0x00000004; /* 64-bit in the last slot: no upper half, malformed */
	cfg[12] = 0xfeb80001; /* ROM, enabled */
	uint32_t n = pci_header_ranges(cfg, r, &seen);
	CHECK_EQ_U64(seen, 2);
	CHECK_EQ_U64(n, 3);
	CHECK(r[0].kind == PCI_RANGE_BAR && r[0].index == 2 && r[0].base == 0xfebd1000 && r[0].length == 16);
	CHECK(r[1].kind == PCI_RANGE_BAR && r[1].index == 3 && r[1].base == 0x1fe000000ull);
	CHECK(r[2].kind == PCI_RANGE_ROM && r[2].base == 0xfeb80000 && r[2].length == 2048);
	CHECK(pci_ranges_refusal(r, n, 0, 0x1f, 2, 0xfebd1000, 1024, why, sizeof why) != NULL);
	CHECK_STR(why, "base 0xfebd1000 lies in PCI 00:1f.2's BAR2 (memory at 0xfebd1000, at least 16 bytes)");
	CHECK(pci_ranges_refusal(r, n, 0, 0x1f, 2, 0xfeb80400, 1024, why, sizeof why) != NULL);
	CHECK(strstr(why, "expansion ROM (memory at 0xfeb80000, at least 2048 bytes)") != NULL);
	/* Past the proved 16 bytes and the ROM's 2 KiB: not refused (the
	 * real size would need sizing, a write). */
	CHECK(pci_ranges_refusal(r, n, 0, 0x1f, 2, 0xfebd1400, 1024, why, sizeof why) == NULL);
	CHECK(pci_ranges_refusal(r, n, 0, 0x1f, 2, 0xfeb80800, 1024, why, sizeof why) == NULL);
	/* A disabled ROM claims nothing. */
	cfg[12] = 0xfeb80000;
	seen = 0;
	CHECK_EQ_U64(pci_header_ranges(cfg, r, &seen), 2);
}

TEST(bridge_windows_are_exact)
{
	uint32_t cfg[PCI_HEADER_DWORDS], seen = 0;
	struct pci_range r[PCI_MAX_RANGES];
	char why[160];
	header(cfg, 1);
	cfg[4] = 0xfea00000;              /* BAR0 */
	cfg[6] = 0x00020100;              /* bus numbers (a bridge has two BARs): not read as one */
	cfg[8] = 0xfe80fe00;              /* memory 0xfe000000-0xfe8fffff */
	cfg[9] = 0x0001fff1;              /* prefetchable: limit below base, off */
	cfg[14] = 0;                      /* no ROM */
	uint32_t n = pci_header_ranges(cfg, r, &seen);
	CHECK_EQ_U64(seen, 1);
	CHECK_EQ_U64(n, 2);
	CHECK(r[1].kind == PCI_RANGE_BRIDGE_MEMORY && r[1].base == 0xfe000000 && r[1].length == 0x900000);
	CHECK(pci_ranges_refusal(r, n, 0, 0x1e, 0, 0xfe8ffc00, 1024, why, sizeof why) != NULL);
	CHECK_STR(why, "base 0xfe8ffc00 lies in PCI 00:1e.0's bridge memory window (memory at 0xfe000000-0xfe8fffff)");
	CHECK(pci_ranges_refusal(r, n, 0, 0x1e, 0, 0xfe900000, 1024, why, sizeof why) == NULL);
	/* A 64-bit prefetchable window above 4 GiB. */
	cfg[9] = 0x00110011;     /* base 0x00100000, limit 0x001fffff, 64-bit; upper halves 8 */
	cfg[10] = 0x8;
	cfg[11] = 0x8;
	n = pci_header_ranges(cfg, r, &seen);
	CHECK_EQ_U64(n, 3);
	CHECK(r[2].kind == PCI_RANGE_BRIDGE_PREFETCH && r[2].base == 0x800100000ull && r[2].length == 0x100000);
	/* A CardBus header (type 2) is not decoded. */
	header(cfg, 2);
	cfg[4] = 0xfe000000;
	CHECK_EQ_U64(pci_header_ranges(cfg, r, &seen), 0);
}
