/* PCI functions seen through the configuration windows (ECAM) the MCFG
 * declares, read only: what memory each function's registers claim, so
 * an MMIO base another table gives (the HPET's) is refused when it lies
 * in a PCI device's registers (issue 41; docs/hostile-machine.md).
 *
 * src/decode/pci_bar.c decodes one function's configuration header from
 * its recorded dwords (pure, host-tested in tests/unit/test_pci_bar.c);
 * src/discover/pci_scan.c reads them through the fault guard. */
#ifndef CP_PCI_H
#define CP_PCI_H
#include "util.h"

/* The dwords of the configuration header a decode reads: 0x00-0x3F, the
 * whole type 0 or type 1 header. */
#define PCI_HEADER_DWORDS 16
/* One memory range a function claims.  Sizes are what the register's
 * value proves without sizing (which would write all-ones to the BAR):
 * a memory BAR is at least 16 bytes (PCI 3.0 section 6.2.5.1), an
 * expansion ROM at least 2 KiB (section 6.2.5.2), a bridge's memory window
 * exactly what its base and limit registers say (PCI-to-PCI Bridge 1.2
 * section 3.2.5.8). */
enum pci_range_kind {
	PCI_RANGE_BAR,
	PCI_RANGE_ROM,
	PCI_RANGE_BRIDGE_MEMORY,
	PCI_RANGE_BRIDGE_PREFETCH,
};

struct pci_range {
	enum pci_range_kind kind;
	uint8_t index;   /* the BAR's number (0-5); 0 otherwise */
	uint64_t base, length;
};

#define PCI_MAX_RANGES 9 /* six BARs, a ROM, two bridge windows */

/* The memory ranges one function's header (cfg[0..15], as read) claims;
 * returns how many were written to out (at most PCI_MAX_RANGES).  I/O
 * BARs, unassigned (zero) BARs, disabled ROMs and empty bridge windows
 * claim no memory; a 64-bit BAR in the last slot is malformed and left
 * out.  *bars_seen counts the memory BARs decoded (for the report). */
uint32_t pci_header_ranges(const uint32_t cfg[PCI_HEADER_DWORDS], struct pci_range *out, uint32_t *bars_seen);

/* NULL when [addr, addr + len) overlaps none of ranges[0..n), else why
 * not, naming the function (bus, device, function) and the range:
 * "base 0xfebd1000 lies in PCI 00:1f.2's BAR5 (memory at 0xfebd1000, at
 * least 16 bytes)". */
const char *pci_ranges_refusal(const struct pci_range *ranges, uint32_t n, uint32_t bus, uint32_t dev,
			       uint32_t fn, uint64_t addr, uint64_t len, char *why, size_t cap);

/* What the scan did, for the report and the proof. */
struct pci_scan {
	bool ran;                 /* an MCFG window was proved and read */
	uint32_t windows;         /* MCFG windows declared (stored) */
	uint32_t windows_read;    /* of them proved set aside and read */
	uint32_t buses, functions, bars, bridges;
	uint32_t config_reads;
	uint64_t elapsed_us;
	bool complete;            /* every bus of every declared window read */
	char note[REASON_LEN];    /* why not complete (a window not proved, the cap), "" when complete */
};

struct probe_facts;
/* Reads every function on the buses of each MCFG window the firmware's
 * maps set aside (platform reserved_read_refusal), through the fault
 * guard, bounded by a read count and a time cap; NULL when no function
 * claims memory overlapping [addr, addr + len), else why (into why).
 * Reads only: no BAR is sized, nothing is written. */
const char *pci_scan_refusal(const struct probe_facts *f, uint64_t addr, uint64_t len, struct pci_scan *out,
			     char *why, size_t cap);
#endif
