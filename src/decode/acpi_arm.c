/* FADT ARM boot flags and the GTDT's identity (include/acpi_arm.h).  Every
 * offset is checked against the table's length before it is read: a FADT
 * from before ACPI 5.1 ends before ARM_BOOT_ARCH. */
#include "acpi_arm.h"

#define FADT_ARM_BOOT_ARCH 129u
#define GTDT_CNT_CONTROL_BASE 36u
#define GTDT_VIRTUAL_EL1_GSIV 64u
#define GTDT_VIRTUAL_EL1_FLAGS 68u
#define GTDT_PLATFORM_TIMER_COUNT 88u
#define GTDT_MIN_LENGTH 96u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void acpi_arm_boot_decode(const uint8_t *fadt, uint32_t len, struct acpi_arm_boot *out)
{
	*out = (struct acpi_arm_boot){0};
	if (!fadt || len < FADT_ARM_BOOT_ARCH + 2) {
		out->reason = "FADT too short for ARM_BOOT_ARCH (before ACPI 5.1)";
		return;
	}
	out->present = true;
	out->flags = (uint16_t)(fadt[FADT_ARM_BOOT_ARCH] | fadt[FADT_ARM_BOOT_ARCH + 1] << 8);
	out->psci = out->flags & ACPI_ARM_PSCI_COMPLIANT;
	if (!out->psci) {
		/* Linux then boots secondaries by spin-table or not at all and
		 * makes no SMCCC call: neither may the probe. */
		out->reason = "FADT ARM_BOOT_ARCH: not PSCI compliant";
		return;
	}
	out->conduit = out->flags & ACPI_ARM_PSCI_USE_HVC ? ACPI_ARM_CONDUIT_HVC : ACPI_ARM_CONDUIT_SMC;
}

const char *acpi_arm_conduit_name(enum acpi_arm_conduit c)
{
	return c == ACPI_ARM_CONDUIT_HVC ? "hvc" : c == ACPI_ARM_CONDUIT_SMC ? "smc" : "none";
}

void acpi_gtdt_decode(const uint8_t *gtdt, uint32_t len, struct acpi_gtdt_info *out)
{
	*out = (struct acpi_gtdt_info){0};
	if (!gtdt || len < GTDT_MIN_LENGTH)
		return;
	out->present = true;
	for (int i = 0; i < 6; i++)
		out->oem_id[i] = (char)gtdt[10 + i];
	for (int i = 0; i < 8; i++)
		out->oem_table_id[i] = (char)gtdt[16 + i];
	out->oem_revision = le32(gtdt + 24);
	out->cnt_control_base = le32(gtdt + GTDT_CNT_CONTROL_BASE) |
				(uint64_t)le32(gtdt + GTDT_CNT_CONTROL_BASE + 4) << 32;
	out->virtual_el1_gsiv = le32(gtdt + GTDT_VIRTUAL_EL1_GSIV);
	out->virtual_el1_flags = le32(gtdt + GTDT_VIRTUAL_EL1_FLAGS);
	out->platform_timer_count = le32(gtdt + GTDT_PLATFORM_TIMER_COUNT);
}

#define MADT_ENTRIES 44u
#define MADT_TYPE_GICC 0x0bu
#define GICC_MIN_LENGTH 76u
#define GICC_UID 8u
#define GICC_FLAGS 12u
#define GICC_MPIDR 68u
#define GICC_BASE 32u
#define GICC_GICR_BASE 60u
#define MADT_TYPE_GICD 0x0cu
#define GICD_MIN_LENGTH 24u
#define GICD_BASE 8u
#define GICD_VERSION 20u
#define MADT_TYPE_GICR 0x0eu
#define GICR_MIN_LENGTH 16u
#define GICR_BASE 4u
#define GICR_LENGTH 12u

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

uint32_t acpi_madt_gicc_list(const uint8_t *madt, uint32_t len, struct acpi_madt_gicc *out,
			     uint32_t max, uint32_t *total)
{
	uint32_t n = 0, all = 0;
	for (uint32_t off = MADT_ENTRIES; madt && off + 2 <= len;) {
		uint8_t type = madt[off], elen = madt[off + 1];
		if (elen < 2 || off + elen > len)
			break; /* a zero length would loop forever; a long one runs off the table */
		if (type == MADT_TYPE_GICC && elen >= GICC_MIN_LENGTH) {
			all++;
			if (n < max) {
				out[n].uid = le32(madt + off + GICC_UID);
				out[n].flags = le32(madt + off + GICC_FLAGS);
				out[n].mpidr = le64(madt + off + GICC_MPIDR);
				out[n].gicc_base = le64(madt + off + GICC_BASE);
				out[n].gicr_base = le64(madt + off + GICC_GICR_BASE);
				n++;
			}
		}
		off += elen;
	}
	if (total)
		*total = all;
	return n;
}

void acpi_madt_gic_decode(const uint8_t *madt, uint32_t len, struct acpi_madt_gic *out)
{
	*out = (struct acpi_madt_gic){0};
	for (uint32_t off = MADT_ENTRIES; madt && off + 2 <= len;) {
		uint8_t type = madt[off], elen = madt[off + 1];
		if (elen < 2 || off + elen > len)
			break; /* as acpi_madt_gicc_list: no loop, no overrun */
		const uint8_t *e = madt + off;
		if (type == MADT_TYPE_GICD && elen >= GICD_MIN_LENGTH) {
			/* A second GICD is not architectural: the first one stays,
			 * and the count lets the caller refuse the table. */
			if (!out->gicd_count++) {
				out->gicd_base = le64(e + GICD_BASE);
				out->version = e[GICD_VERSION];
			}
		} else if (type == MADT_TYPE_GICR && elen >= GICR_MIN_LENGTH) {
			if (out->gicr_count < ACPI_MADT_MAX_GICR) {
				out->gicr[out->gicr_count].base = le64(e + GICR_BASE);
				out->gicr[out->gicr_count].length = le32(e + GICR_LENGTH);
			}
			out->gicr_count++;
		}
		off += elen;
	}
}
