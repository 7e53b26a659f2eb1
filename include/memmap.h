/* Is a physical address range device memory or RAM, by the firmware's
 * memory map?  Before the probe writes a register that a table points at
 * (the HPET's enable bit), the address must not be RAM: a hostile or
 * broken table pointing into RAM would otherwise have the probe flip a bit
 * in memory someone owns.  Pure: the platforms translate their maps (UEFI
 * GetMemoryMap, the E820-style PVH memmap) into memmap_range lists. */
#ifndef CP_MEMMAP_H
#define CP_MEMMAP_H
#include "util.h"

/* Ordered: classifying a range reports the highest kind any byte has. */
enum memmap_kind {
	MEMMAP_HOLE,     /* not described: where chipsets decode MMIO */
	MEMMAP_DEVICE,   /* MMIO, MMIO port space, reserved */
	MEMMAP_RAM,      /* anything holding memory, or a type we do not know */
};

struct memmap_range {
	uint64_t base, length;
	enum memmap_kind kind;
	uint32_t type; /* the firmware's own type number, for the reason text */
};

enum memmap_kind memmap_kind_of_uefi_type(uint32_t type);
enum memmap_kind memmap_kind_of_e820_type(uint32_t type);

/* The highest kind over [addr, addr + len); *type receives the firmware
 * type of the range that decided it (0 for a hole).  An empty or wrapping
 * range is RAM: nothing is known to be safe about it. */
enum memmap_kind memmap_classify(const struct memmap_range *map, size_t n, uint64_t addr, uint64_t len,
				 uint32_t *type);

/* NULL when a write to [addr, addr + len) may go ahead (a hole or device
 * memory in the map), else why not, written into buf: "0x... is RAM in
 * the <map_name> (type N)".  n == 0 means there is no map: refused. */
const char *memmap_write_refusal(const struct memmap_range *map, size_t n, const char *map_name, uint64_t addr,
				 uint64_t len, char *buf, size_t cap);
/* NULL when every byte of [addr, addr + len) lies in ranges the map marks
 * reserved or device (MEMMAP_DEVICE), else why not ("0x... is not
 * reserved in the <map_name> (a hole)", "... is RAM ...").  Stricter than
 * the write rule: before the probe even reads a page a firmware table
 * names (the VMClock page), the firmware's own map must vouch that the
 * range is set aside, not RAM someone owns nor an undecoded hole where a
 * device with read side effects may answer.  n == 0: refused. */
const char *memmap_reserved_refusal(const struct memmap_range *map, size_t n, const char *map_name, uint64_t addr,
				    uint64_t len, char *buf, size_t cap);
#endif
