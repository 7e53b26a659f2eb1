/* The ACPI facts only an arm64 machine has, decoded from a table's bytes
 * (src/decode/acpi_arm.c): the FADT's ARM boot architecture flags, which
 * say whether PSCI is there and through which conduit (HVC or SMC) it is
 * called, and the GTDT's identity, whose OEM ids Linux matches counter
 * errata on.  Pure: the arm64 probe hands in the tables acpi_parse()
 * found (include/acpi.h); host tests hand in recorded bytes. */
#ifndef CP_ACPI_ARM_H
#define CP_ACPI_ARM_H
#include <stdbool.h>
#include <stdint.h>

/* FADT ARM_BOOT_ARCH (ACPI 6.x, table "Fixed ACPI Description Table",
 * byte offset 129, 2 bytes; the bits: table "Arm Architecture Boot
 * Flags"). */
#define ACPI_ARM_PSCI_COMPLIANT (1u << 0)
#define ACPI_ARM_PSCI_USE_HVC (1u << 1)

enum acpi_arm_conduit { ACPI_ARM_CONDUIT_NONE, ACPI_ARM_CONDUIT_SMC, ACPI_ARM_CONDUIT_HVC };

struct acpi_arm_boot {
	bool present;		/* the FADT is long enough to hold the field */
	uint16_t flags;
	bool psci;		/* PSCI_COMPLIANT */
	enum acpi_arm_conduit conduit;	/* NONE unless psci */
	const char *reason;	/* why no conduit; NULL when there is one */
};
void acpi_arm_boot_decode(const uint8_t *fadt, uint32_t len, struct acpi_arm_boot *out);
const char *acpi_arm_conduit_name(enum acpi_arm_conduit c);

/* The GTDT (ACPI 6.x "Generic Timer Description Table"): its header's
 * OEM ids (arm64_errata_from_acpi_oem() takes them as they are, space
 * padded) and the EL1 virtual timer's interrupt. */
struct acpi_gtdt_info {
	bool present;		/* long enough for the fields below */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint64_t cnt_control_base;	/* 0xffff..ff or 0: none (virtual machines) */
	uint32_t virtual_el1_gsiv;
	uint32_t virtual_el1_flags;	/* bit 0 edge, bit 1 active low, bit 2 always-on */
	uint32_t platform_timer_count;
};
void acpi_gtdt_decode(const uint8_t *gtdt, uint32_t len, struct acpi_gtdt_info *out);

/* The MADT's GICC entries (type 0x0b, ACPI 6.x "GIC CPU Interface
 * (GICC) Structure"): every CPU's MPIDR, by which PSCI CPU_ON names it. */
struct acpi_madt_gicc {
	uint64_t mpidr;
	uint32_t uid;
	uint32_t flags;		/* bit 0 enabled, bit 3 online capable (6.5) */
	uint64_t gicc_base;	/* GICv2 CPU interface (banked per CPU); 0 none */
	uint64_t gicr_base;	/* this CPU's GICv3 redistributor; 0: in a GICR range */
};
#define ACPI_GICC_ENABLED (1u << 0)
/* Fills out[0..max) and returns how many it stored; *total counts every
 * GICC entry (stored or not).  Entries shorter than the 5.1 layout (76
 * bytes) are skipped. */
uint32_t acpi_madt_gicc_list(const uint8_t *madt, uint32_t len, struct acpi_madt_gicc *out,
			     uint32_t max, uint32_t *total);

/* The MADT's interrupt controller beyond the CPUs: the distributor (GICD
 * entry, type 0x0c: its base and the GIC version the firmware states, 0
 * meaning "read the hardware's") and the redistributor discovery ranges
 * (GICR entries, type 0x0e, GICv3/4), where each CPU's redistributor is
 * found by its affinity (src/decode/arm64_gic.c).  What the probe may then
 * touch is only what these name, once proven (src/arch/arm64/gic.c). */
#define ACPI_MADT_MAX_GICR 4
struct acpi_madt_gic {
	uint32_t gicd_count;	/* GICD entries seen (one is architectural) */
	uint64_t gicd_base;
	uint8_t version;	/* the GICD entry's GIC version; 0 unstated */
	uint32_t gicr_count;	/* GICR entries seen (stored: at most ACPI_MADT_MAX_GICR) */
	struct {
		uint64_t base;
		uint32_t length;
	} gicr[ACPI_MADT_MAX_GICR];
};
void acpi_madt_gic_decode(const uint8_t *madt, uint32_t len, struct acpi_madt_gic *out);
#endif
