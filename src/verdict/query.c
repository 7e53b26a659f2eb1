/* Questions asked of a finished verdict by its text and its warnings:
 * which warning carries a code, and which clocksources cost a syscall per
 * read.  Apart so that text.c needs nothing of warnings.c: warnings.c calls
 * text.c (evidence_why_not_better), never the other way round. */
#include "verdict_model.h"

bool slow_source(const char *name)
{
	/* jiffies is no source the probe measures: Linux's last resort. */
	return str_equal(name, verdict_source_name(VERDICT_SRC_ACPI_PM)) ||
	       str_equal(name, verdict_source_name(VERDICT_SRC_HPET)) || str_equal(name, "jiffies") ||
	       str_equal(name, verdict_source_name(VERDICT_SRC_HV_MSR));
}

const struct verdict_warning *verdict_find_warning(const struct verdict *v, const char *code)
{
	for (uint32_t i = 0; i < v->warning_count; i++)
		if (str_equal(v->warnings[i].code, code))
			return &v->warnings[i];
	return NULL;
}
