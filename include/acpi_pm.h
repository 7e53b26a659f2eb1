/* The ACPI PM timer source (src/arch/x86/sources/acpi_pm.c, the hardware;
 * acpi_pm_facts.c, its JSON, pure): the width it settled on and why. */
#ifndef CP_ACPI_PM_H
#define CP_ACPI_PM_H
#include "util.h"

struct acpi_pm_facts {
	unsigned fadt_width_bits;
	const char *width_evidence; /* why 24 or 32 bits */
};

struct json;
union source_facts;
/* fadt_width_bits and width_evidence in its sources[] entry. */
void acpi_pm_report_extra(struct json *j, const union source_facts *f);
#endif
