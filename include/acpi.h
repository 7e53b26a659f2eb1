/* ACPI table discovery as a pure function over memory reached through a
 * caller-supplied map callback: RSDP -> XSDT/RSDT -> FADT (PM timer, DSDT,
 * FACS), HPET, MADT (CPUs), SPCR (serial port), MCFG (PCI configuration
 * windows).
 *
 * Nothing here trusts the firmware: every length is bounded before it is
 * used, every table is mapped before it is read, and every problem becomes
 * a named entry in errors[] while parsing carries on with what is valid.
 * The result holds no pointers into the tables, so it stays valid after
 * the mapping is gone. */
#ifndef CP_ACPI_H
#define CP_ACPI_H
#include "util.h"

/* Maps len bytes at a physical address; returns NULL when that memory
 * cannot be read.  The probe passes an identity map guarded against
 * faults; host tests map fixture buffers at their captured addresses. */
typedef const void *(*acpi_map_fn)(void *ctx, uint64_t phys, uint32_t len);

#define ACPI_MAX_TABLES 64
#define ACPI_MAX_ERRORS 16
/* MADT CPU entries kept one by one: PLATFORM_MAX_CPUS (include/platform.h
 * says why 4,096); 16 bytes each. */
#define ACPI_MAX_CPUS 4096
/* PCI configuration windows (MCFG entries) and I/O APICs (MADT type 1)
 * kept by address: what an MMIO base from another table must not be
 * inside.  Entries past these are counted, and a check against an
 * incomplete list says so rather than passing. */
#define ACPI_MAX_MCFG 16
#define ACPI_MAX_IOAPICS 16
/* Largest table we agree to map.  Real DSDTs stay well below 1 MiB; a
 * header claiming more is treated as corrupt instead of mapping gigabytes. */
#define ACPI_MAX_TABLE_LENGTH (4u << 20)
#define ACPI_HEADER_LENGTH 36u

/* Generic Address Structure address space ids the probe can use. */
#define ACPI_SPACE_MEMORY 0
#define ACPI_SPACE_IO 1

/* FADT flag bits (ACPI spec table "Fixed ACPI Description Table Fixed
 * Feature Flags"). */
#define ACPI_FADT_TMR_VAL_EXT (1u << 8)
#define ACPI_FADT_HW_REDUCED (1u << 20)

/* MADT flag bit 0 and local (x2)APIC flag bits. */
#define ACPI_MADT_PCAT_COMPAT (1u << 0)
#define ACPI_MADT_CPU_ENABLED (1u << 0)
#define ACPI_MADT_CPU_ONLINE_CAPABLE (1u << 1)

struct acpi_gas {
	uint8_t space_id;
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;
	uint64_t address;
};

struct acpi_rsdp_info {
	bool found;          /* signature matched at the given address */
	uint64_t address;
	uint8_t revision;
	uint32_t length;     /* 20 for revision 0, else the Length field */
	bool checksum_ok;    /* first 20 bytes */
	bool ext_checksum_ok; /* all Length bytes; false when revision < 2 */
	char oem_id[7];
	uint32_t rsdt_address;
	uint64_t xsdt_address;
	char root_signature[5]; /* "XSDT", "RSDT" or "" when none was usable */
	uint64_t root_address;
};

/* One table, as listed by the root table or referenced by the FADT. */
struct acpi_table {
	char signature[5];   /* "" when the entry could not be read */
	uint64_t address;
	uint32_t length;     /* the header's claim, even when bogus */
	uint8_t revision;
	bool readable;       /* header and the whole claimed length mapped */
	bool checksum_ok;    /* FACS has no checksum and reports true */
	char oem_id[7];
	char oem_table_id[9];
	char via[5];         /* who pointed at it: "XSDT", "RSDT", "FACP" */
	char status[64];     /* "" when fine, else e.g. "bad checksum" */
};

struct acpi_error {
	const char *code;    /* static string, e.g. "ACPI_TABLE_CHECKSUM" */
	char message[96];
};

struct acpi_fadt_info {
	bool present;
	uint64_t address;
	uint32_t length;
	uint8_t revision;
	uint8_t minor_revision; /* 0 when the table is too short to have it */
	uint32_t flags;
	bool hw_reduced;
	uint64_t dsdt_address;  /* X_DSDT when non-zero, else DSDT */
	uint64_t facs_address;  /* X_FIRMWARE_CTRL when non-zero, else FIRMWARE_CTRL */
};

struct acpi_pm_timer_info {
	bool present;
	struct acpi_gas gas;
	uint32_t width_bits;    /* 24, or 32 with TMR_VAL_EXT */
	const char *source;     /* "X_PM_TMR_BLK", "PM_TMR_BLK" or NULL */
	const char *reason;     /* why not present; NULL when present */
};

struct acpi_hpet_info {
	bool present;           /* an HPET table was found and is long enough */
	bool usable;            /* base in system memory at a non-zero address */
	uint64_t table_address;
	uint32_t event_timer_block_id;
	struct acpi_gas base;
	uint8_t sequence;
	uint16_t min_tick;
	uint8_t page_protection; /* the whole byte; low 4 bits are the protection */
	const char *reason;     /* why not present/usable; NULL when usable */
};

struct acpi_madt_cpu {
	uint32_t apic_id;
	uint32_t processor_uid;
	uint32_t flags;
	uint8_t type;           /* 0 local APIC, 9 local x2APIC */
	bool linux_possible;    /* counted into possible_cpus (see acpi_madt.c) */
};

struct acpi_madt_info {
	bool present;
	uint8_t revision;
	uint32_t local_apic_address;
	uint64_t local_apic_override; /* type 5 entry, 0 when none */
	uint32_t flags;
	bool pcat_compat;       /* dual 8259 PIC present: Linux calibrates with the PIT only then */
	uint32_t cpu_entries;   /* type 0 and 9 entries seen, valid or not */
	uint32_t cpu_count;     /* entries stored in cpus[] */
	struct acpi_madt_cpu cpus[ACPI_MAX_CPUS];
	uint32_t enabled;
	uint32_t online_capable; /* not enabled, Online Capable set */
	uint32_t disabled;       /* neither bit */
	uint32_t invalid_ids;    /* APIC id 0xff / x2APIC id 0xffffffff */
	/* Entries repeating an APIC id an earlier entry gave: ignored, the
	 * first kept (as Linux's topology_register_apic does), named in
	 * errors[] ACPI_MADT_DUPLICATE_APIC_ID; not in cpus[] nor the counts. */
	uint32_t duplicate_ids;
	/* What Linux sizes cpu_possible_mask from, in a guest (hypervisor
	 * present) and on bare metal; see the rule in acpi_madt.c. */
	uint32_t possible_cpus;
	uint32_t possible_cpus_bare_metal;
	bool online_capable_honoured; /* FADT >= 6.3: Linux reads bit 1 */
	uint32_t ioapic_count;
	uint32_t ioapic_address[ACPI_MAX_IOAPICS]; /* the first ioapic_count of them, at most ACPI_MAX_IOAPICS */
};

/* One enhanced configuration window (PCI Firmware spec, MCFG "Memory
 * mapped configuration space base address allocation structure"): the
 * base is bus 0's address, each bus takes 1 MiB, so the window the
 * firmware declares is [base + start_bus MiB, base + (end_bus + 1) MiB). */
struct acpi_mcfg_window {
	uint64_t base;
	uint16_t segment;
	uint8_t start_bus, end_bus;
	uint64_t start, end; /* the window's bytes, end exclusive; start == end when its bus range is empty */
};

struct acpi_mcfg_info {
	bool present;           /* an MCFG table long enough for its header */
	uint32_t count;         /* entries the table holds (whole ones) */
	uint32_t stored;        /* of them in windows[] */
	struct acpi_mcfg_window windows[ACPI_MAX_MCFG];
};

struct acpi_spcr_info {
	bool present;
	uint8_t revision;
	uint8_t interface_type; /* 0 = full 16550, 1 = 16450 subset, ... */
	struct acpi_gas uart;
	uint8_t interrupt_type;
	uint8_t irq;
	uint32_t gsi;
	uint8_t baud_rate_code; /* 0 = as configured, 3/4/6/7 = 9600..115200 */
	uint32_t baud_rate;     /* decoded; 0 = keep what firmware set */
	bool io_port_usable;    /* I/O space, port in 1..0xFFF8 */
};

/* A VMClock device (Linux ptp_vmclock, uapi-group vmclock spec): a Device
 * whose _HID is "AMZNC10C" or _CID "VMCLOCK", found by a bounded scan of
 * the DSDT and every SSDT (acpi_aml.c), with the memory range its _CRS
 * names: where the hypervisor's page is. */
struct acpi_vmclock_info {
	bool found;             /* such a Device was declared */
	bool usable;            /* and its _CRS names a memory range of non-zero length */
	uint32_t devices;       /* such Devices in all tables (the spec allows one) */
	uint32_t unresolved;    /* id matches past the scan's bound, only counted */
	uint32_t tables_scanned; /* DSDT and SSDTs read */
	char table[5];          /* the table declaring the first one: "SSDT", "DSDT" */
	char oem_table_id[9];   /* QEMU: "VMCLOCK" */
	uint64_t table_address;
	char path[48];          /* "\\_SB_.VCLK" */
	bool hid_match, cid_match;
	const char *resource;   /* "qword_memory" | "dword_memory" | "memory32_fixed" | NULL */
	uint64_t address, length;
	bool writable;          /* the descriptor's _RW bit (QEMU: read-only) */
	uint8_t cacheability;   /* _MEM: 0 non-cacheable, 1 cacheable, 2 write-combining, 3 prefetchable */
	char reason[REASON_LEN]; /* why not found or not usable; "" when usable */
};

/* Scans one definition block's AML (a DSDT or SSDT without its 36-byte
 * header) for the VMClock device; *out says what was found and, when
 * nothing usable was, why (table fields left empty). */
void acpi_aml_find_vmclock(const uint8_t *aml, uint32_t len, struct acpi_vmclock_info *out);

/* The HPET's Devices in AML (_HID or _CID PNP0103) and the memory range
 * each one's _CRS names (acpi_aml.c): the ranges the firmware sets aside
 * for an HPET, which the HPET table's base must lie inside before the
 * probe writes there (hpet_proof.c). */
#define ACPI_MAX_HPET_DEVICES 4
struct acpi_hpet_device {
	uint64_t address, length; /* the first memory range of its _CRS */
	char path[48];            /* "_SB_.HPET" (QEMU: Scope (_SB) { Device (HPET) }) */
	char table[5];            /* "DSDT", "SSDT" */
};

struct acpi_hpet_devices {
	uint32_t devices;        /* PNP0103 Devices in every block scanned */
	uint32_t unresolved;     /* id matches past the scan's bound, only counted */
	uint32_t stored;         /* of them with a readable _CRS memory range, in range[] */
	uint32_t ranges_dropped; /* readable ones past ACPI_MAX_HPET_DEVICES */
	struct acpi_hpet_device range[ACPI_MAX_HPET_DEVICES];
	char reason[REASON_LEN]; /* the first device whose _CRS could not be read, and why; "" none */
};

/* Adds the HPET Devices of one definition block's AML (without its
 * header) to *out; table names are the caller's to fill. */
void acpi_aml_find_hpet(const uint8_t *aml, uint32_t len, struct acpi_hpet_devices *out);

struct acpi_info {
	struct acpi_rsdp_info rsdp;
	uint32_t table_count;
	uint32_t tables_dropped; /* entries beyond ACPI_MAX_TABLES */
	struct acpi_table tables[ACPI_MAX_TABLES];
	struct acpi_fadt_info fadt;
	struct acpi_pm_timer_info pm_timer;
	struct acpi_hpet_info hpet;
	struct acpi_madt_info madt;
	struct acpi_spcr_info spcr;
	struct acpi_mcfg_info mcfg;
	struct acpi_vmclock_info vmclock;
	struct acpi_hpet_devices hpet_devices;
	uint32_t error_count;
	uint32_t errors_dropped;
	struct acpi_error errors[ACPI_MAX_ERRORS];
};

/* Parses everything reachable from the RSDP at rsdp_phys into *out (which
 * it clears first).  Returns 0 when an RSDP and a root table were usable,
 * -1 otherwise; either way *out describes what was found and why not. */
int acpi_parse(struct acpi_info *out, uint64_t rsdp_phys, acpi_map_fn map,
	       void *ctx);

/* Where firmware without a handover leaves the RSDP (ACPI spec, "Finding
 * the RSDP on IA-PC Systems"): the first 16-byte boundary in [start,
 * start + len) holding "RSD PTR " whose first 20 bytes sum to zero; 0 when
 * none does.  The direct-boot build scans the EBDA and 0xE0000-0xFFFFF. */
uint64_t acpi_rsdp_scan(acpi_map_fn map, void *ctx, uint64_t start, uint64_t len);

/* The n-th (0-based) listed table with this 4-character signature, or
 * NULL.  For raw dumps map (address, length) of a readable entry. */
const struct acpi_table *acpi_find_table(const struct acpi_info *info,
					 const char *signature,
					 uint32_t instance);

/* Whether [phys, phys + len) overlaps a configuration window the MCFG
 * declares (*hit, when given, is the first such window). */
bool acpi_mcfg_overlaps(const struct acpi_mcfg_info *m, uint64_t phys, uint64_t len,
			const struct acpi_mcfg_window **hit);

/* Whether an error with this code was recorded. */
bool acpi_has_error(const struct acpi_info *info, const char *code);
#endif
