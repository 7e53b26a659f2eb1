#include "check.h"
#include "memmap.h"

/* OVMF's map around QEMU's HPET at 0xFED00000 and a RAM range. */
static const struct memmap_range map[] = {
	{ 0x00000000, 0xa0000, MEMMAP_RAM, 7 },
	{ 0x00100000, 0x7e00000, MEMMAP_RAM, 7 },
	{ 0x07f00000, 0x100000, MEMMAP_RAM, 4 },
	{ 0xfec00000, 0x1000, MEMMAP_DEVICE, 11 },
	{ 0xffc00000, 0x400000, MEMMAP_DEVICE, 0 },
};

TEST(memmap_types_by_firmware)
{
	CHECK_EQ_U64(memmap_kind_of_uefi_type(7), MEMMAP_RAM);
	CHECK_EQ_U64(memmap_kind_of_uefi_type(11), MEMMAP_DEVICE);
	CHECK_EQ_U64(memmap_kind_of_uefi_type(0), MEMMAP_DEVICE);
	CHECK_EQ_U64(memmap_kind_of_uefi_type(10), MEMMAP_RAM);
	CHECK_EQ_U64(memmap_kind_of_uefi_type(99), MEMMAP_RAM);
	CHECK_EQ_U64(memmap_kind_of_e820_type(1), MEMMAP_RAM);
	CHECK_EQ_U64(memmap_kind_of_e820_type(2), MEMMAP_DEVICE);
	CHECK_EQ_U64(memmap_kind_of_e820_type(3), MEMMAP_RAM);
}

TEST(memmap_classify_ram_device_and_holes)
{
	uint32_t type;
	/* QEMU's HPET is in a hole of this map: allowed */
	CHECK_EQ_U64(memmap_classify(map, 5, 0xfed00000, 1024, &type), MEMMAP_HOLE);
	CHECK_EQ_U64(memmap_classify(map, 5, 0xfec00000, 1024, &type), MEMMAP_DEVICE);
	CHECK_EQ_U64(type, 11);
	CHECK_EQ_U64(memmap_classify(map, 5, 0x04000000, 1024, &type), MEMMAP_RAM);
	CHECK_EQ_U64(type, 7);
	/* straddling device and RAM is RAM */
	CHECK_EQ_U64(memmap_classify(map, 5, 0x07fffe00, 1024, &type), MEMMAP_RAM);
	CHECK_EQ_U64(type, 4);
	/* touching ends do not overlap */
	CHECK_EQ_U64(memmap_classify(map, 5, 0x000a0000, 0x60000, &type), MEMMAP_HOLE);
	/* empty and wrapping ranges are never safe */
	CHECK_EQ_U64(memmap_classify(map, 5, 0xfed00000, 0, &type), MEMMAP_RAM);
	CHECK_EQ_U64(memmap_classify(map, 5, UINT64_MAX - 10, 1024, &type), MEMMAP_RAM);
	static const struct memmap_range top[] = { { 0xfffff000, UINT64_MAX, MEMMAP_RAM, 1 } };
	CHECK_EQ_U64(memmap_classify(top, 1, 0xffffff00ull, 16, &type), MEMMAP_RAM);
}

TEST(memmap_refusal_names_the_map_and_type)
{
	char buf[96];
	CHECK(memmap_write_refusal(map, 5, "UEFI memory map", 0xfed00000, 1024, buf, sizeof buf) == NULL);
	CHECK_STR(memmap_write_refusal(map, 5, "UEFI memory map", 0x4000000, 1024, buf, sizeof buf),
		  "0x4000000 is RAM in the UEFI memory map (type 7)");
	CHECK_STR(memmap_write_refusal(map, 0, "PVH memory map", 0xfed00000, 1024, buf, sizeof buf),
		  "no PVH memory map to check 0xfed00000 against");
}

/* The read rule for a page a table names (the VMClock page): only what
 * the map reserves.  QEMU's E820 reserves 0xfeffb000/4096 for it. */
TEST(reserved_read_rule)
{
	char buf[128];
	const struct memmap_range map[] = {
		{ 0x0, 0x9fc00, MEMMAP_RAM, 1 },
		{ 0x100000, 0x7f00000, MEMMAP_RAM, 1 },
		{ 0xfeffb000, 0x1000, MEMMAP_DEVICE, 2 },
		{ 0xfffc0000, 0x20000, MEMMAP_DEVICE, 2 },
		{ 0xfffe0000, 0x20000, MEMMAP_DEVICE, 2 },
	};
	CHECK(memmap_reserved_refusal(map, 5, "PVH memory map", 0xfeffb000, 4096, buf, sizeof buf) == NULL);
	/* Two adjacent reserved ranges cover a range across their seam. */
	CHECK(memmap_reserved_refusal(map, 5, "PVH memory map", 0xfffdf000, 0x2000, buf, sizeof buf) == NULL);
	CHECK_STR(memmap_reserved_refusal(map, 5, "PVH memory map", 0xfeffa000, 4096, buf, sizeof buf),
		  "0xfeffa000 is not reserved in the PVH memory map (a hole)");
	CHECK_STR(memmap_reserved_refusal(map, 5, "PVH memory map", 0xfeffb000, 8192, buf, sizeof buf),
		  "0xfeffc000 is not reserved in the PVH memory map (a hole)");
	CHECK_STR(memmap_reserved_refusal(map, 5, "PVH memory map", 0x200000, 4096, buf, sizeof buf),
		  "0x200000 is RAM in the PVH memory map (type 1)");
	CHECK_STR(memmap_reserved_refusal(map, 0, "UEFI memory map", 0xfeffb000, 4096, buf, sizeof buf),
		  "no UEFI memory map to check 0xfeffb000 against");
	CHECK_STR(memmap_reserved_refusal(map, 5, "PVH memory map", ~0ull, 2, buf, sizeof buf),
		  "an empty or wrapping range in the PVH memory map");
}
