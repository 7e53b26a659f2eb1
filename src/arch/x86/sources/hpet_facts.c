/* What the HPET source learned beyond its read cost, as the report and
 * the verdict take it.  Pure (the hardware side is hpet.c). */
#include "hpet.h"
#include "hpet_regs.h"
#include "results.h"

void hpet_report_extra(struct json *j, const union source_facts *f)
{
	uint64_t cap = f->hpet.capabilities;
	json_object_begin(j, "hpet");
	json_u64(j, "period_fs", cap >> 32);
	json_bool(j, "counter_64bit", cap & HPET_COUNT_SIZE_CAP);
	json_u64(j, "timers", ((cap >> 8) & 31) + 1);
	json_u64(j, "vendor_id", (cap >> 16) & 0xffff);
	json_bool(j, "enabled_by_probe", f->hpet.enabled_by_probe);
	json_object_end(j);
}

/* The rate from its capabilities, whenever the device is there (it may
 * still have failed later, a counter that never moved). */
void hpet_verdict_facts(struct verdict_input *in, const struct source_result *s)
{
	if (s->status != SOURCE_ABSENT)
		in->hpet_freq_hz = s->desc.freq_hz;
}
