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
#include "spincap.h"
#include "tsc_order.h"

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
	/* This CPU's one ordered TSC read (tsc_order.h), set by the engine's
	 * stage before any source is prepared: the sources that read the TSC
	 * (tsc, kvm-clock's pvclock, the Hyper-V TSC page) read it so. */
	enum tsc_read tsc_read;
	/* TSC ticks one busy-wait spin (rdtsc, pause) takes on the BSP,
	 * timed at run start (src/measure/spincost.c); 0 = unknown (the TSC
	 * did not advance), and caps then assume 1 tick a spin.  What sizes
	 * every loop's iteration cap (facts_spin_cap). */
	uint64_t spin_cycles;
	const char *spin_cycles_basis;
};

/* Times the spin and sets spin_cycles and spin_cycles_basis. */
void facts_measure_spin_cycles(struct probe_facts *f);

/* Cycles in ms at the rough TSC rate (deadlines only, never reported). */
static inline uint64_t facts_ms_to_cycles(const struct probe_facts *f, uint64_t ms)
{
	return f->tsc_hz_rough / 1000 * ms;
}

/* The iteration cap of a busy wait whose deadline is budget_cycles TSC
 * ticks away (spincap.h: margin, floor, saturation). */
static inline uint64_t facts_spin_cap(const struct probe_facts *f, uint64_t budget_cycles)
{
	return spin_cap(budget_cycles, f->spin_cycles);
}
#endif
