/* One clock source = one file in src/sources/ filling one of these.  The
 * measurement engine knows sources only through this interface; adding a
 * source touches its file and the table in src/sources/registry.c. */
#ifndef CP_SOURCE_H
#define CP_SOURCE_H
#include "facts.h"
#include "json.h"

enum source_status { SOURCE_OK, SOURCE_ABSENT, SOURCE_ERROR };

/* Every source the probe knows, in report order; the registry and the
 * run's results are indexed by it. */
enum source_id {
	SOURCE_ID_TSC,
	SOURCE_ID_RDTSCP,
	SOURCE_ID_KVMCLOCK,
	SOURCE_ID_HV_TSC_PAGE,
	SOURCE_ID_HV_MSR,
	SOURCE_ID_HPET,
	SOURCE_ID_ACPI_PM,
	SOURCE_ID_PIT,
	SOURCE_ID_VMCLOCK,
	SOURCE_ID_COUNT,
};

struct source_desc {
	/* One read of the counter: the measured operation, chosen by prepare
	 * for the hardware found (port or MMIO flavour).  No arguments, so the
	 * harness around it is identical for every source. */
	uint64_t (*read)(void);
	uint64_t freq_hz;     /* counter ticks per second */
	unsigned width_bits;  /* counter width, for wrap-safe deltas */
	bool counts_down;     /* PIT */
	bool is_tsc;          /* counts TSC cycles: its rate is the measured TSC rate */
	bool reads_tsc;       /* one read executes RDTSC/RDTSCP (an exit where RDTSC traps) */
	/* One read returns the device's state, not a moving count (the
	 * VMClock page without a counter relation): its cost is measured, but
	 * there is no behaviour test, no rate (freq_hz 0) and it is nobody's
	 * reference. */
	bool state_only;
	const char *freq_origin; /* "ACPI spec", "HPET capabilities", ... */
	char reason[160];     /* why absent / what failed */
};

struct measure_plan;
struct source_facts;

/* What a source says about itself while running (watch mode re-reads it
 * every interval): kvm-clock's pvclock page. */
struct source_live_state {
	bool valid;
	bool stable;          /* stable flag set and allowed by CPUID */
	uint32_t version;
	uint8_t flags;
	uint64_t tsc_hz;      /* implied by mul/shift */
	/* The VMClock page (vmclock.c). */
	bool vmclock_valid;   /* a consistent snapshot was read */
	uint64_t disruption_marker, vm_generation_counter;
	uint8_t clock_status;
};

struct clock_source {
	const char *name; /* Linux clocksource name where one exists */
	/* Decides presence and prepares the counter (enables a halted HPET,
	 * registers the pvclock page).  Runs with interrupts on, may call the
	 * platform.  Fills d (d->read on OK); on ABSENT/ERROR d->reason says
	 * why. */
	enum source_status (*prepare)(struct source_desc *d, const struct probe_facts *f);
	/* Undoes prepare (restores HPET configuration, unregisters pvclock). */
	void (*finish)(void);
	/* Source-specific measurements after the read cost (may be NULL):
	 * kvm-clock times its MSR registration and read-back. */
	void (*measure_extra)(const struct measure_plan *plan);
	/* Copies what the source learned into its result (may be NULL); run
	 * after measurement and again before the report, since some counts
	 * (pvclock retries) grow while other stages read the source. */
	void (*collect)(struct source_facts *out);
	/* Source-specific figures for the report, from its facts (may be NULL). */
	void (*report_extra)(struct json *j, const struct source_facts *facts);
	/* The source's state now, for a long watch (may be NULL). */
	void (*live_state)(struct source_live_state *out);
};

extern const struct clock_source *const clock_sources[];

extern const unsigned clock_source_count;
#endif
