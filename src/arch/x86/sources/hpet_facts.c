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
	json_string(j, "set_aside_by", f->hpet.set_aside_by[0] ? f->hpet.set_aside_by : NULL);
	const struct pci_scan *p = &f->hpet.pci;
	if (!f->hpet.pci_checked) {
		json_null(j, "pci_scan");
	} else {
		json_object_begin(j, "pci_scan");
		json_bool(j, "ran", p->ran);
		json_bool(j, "complete", p->complete);
		json_u64(j, "windows", p->windows);
		json_u64(j, "windows_read", p->windows_read);
		json_u64(j, "buses", p->buses);
		json_u64(j, "functions", p->functions);
		json_u64(j, "bridges", p->bridges);
		json_u64(j, "memory_bars", p->bars);
		json_u64(j, "config_reads", p->config_reads);
		json_u64(j, "elapsed_us", p->elapsed_us);
		json_string(j, "note", p->note[0] ? p->note : NULL);
		json_object_end(j);
	}
	json_object_end(j);
}

/* The rate from its capabilities, whenever the device is there (it may
 * still have failed later, a counter that never moved). */
void hpet_verdict_facts(struct verdict_input *in, const struct source_result *s)
{
	if (s->status != SOURCE_ABSENT)
		in->hpet_freq_hz = s->desc.freq_hz;
}
