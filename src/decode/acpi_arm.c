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
				out[n].mpidr = le32(madt + off + GICC_MPIDR) |
					       (uint64_t)le32(madt + off + GICC_MPIDR + 4) << 32;
				n++;
			}
		}
		off += elen;
	}
	if (total)
		*total = all;
	return n;
}
