/* The PM timer's width and why, as the report writes them.  Pure (the
 * hardware side is acpi_pm.c). */
#include "acpi_pm.h"
#include "results.h"

void acpi_pm_report_extra(struct json *j, const union source_facts *f)
{
	json_u64(j, "fadt_width_bits", f->acpi_pm.fadt_width_bits);
	json_string(j, "width_evidence", f->acpi_pm.width_evidence ? f->acpi_pm.width_evidence : "not checked");
}
