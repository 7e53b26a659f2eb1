/* What discovery learned about the machine, handed read-only to the clock
 * sources and the measurement engine. */
#ifndef CP_FACTS_H
#define CP_FACTS_H
#include "acpi.h"
#include "coco.h"
#include "cpuid.h"
#include "hypervisor.h"
#include "settings.h"
#include "platform.h"

/* Deadlines need some rate before anything is measured; 4 GHz errs on the
 * long side for every real TSC, and only bounds loops. */
#define FACTS_ASSUMED_TSC_HZ 4000000000ull

struct probe_facts {
	struct platform *plat;
	struct settings settings;
	struct cpu_info cpu;
	struct hv_info hv;
	struct coco_info coco;  /* SEV / SEV-ES / SNP / TDX (discover/coco.c) */
	struct acpi_info acpi;
	bool acpi_parsed;
	/* A TSC rate good enough for deadlines before the real frequency
	 * measurement: advertised, or a quick calibration, or a safe guess. */
	uint64_t tsc_hz_rough;
	const char *tsc_hz_rough_source;
};

/* Cycles in ms at the rough TSC rate (deadlines only, never reported). */
static inline uint64_t facts_ms_to_cycles(const struct probe_facts *f, uint64_t ms)
{
	return f->tsc_hz_rough / 1000 * ms;
}
#endif
