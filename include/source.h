/* One clock source = its files in src/arch/x86/sources/ filling one of these.  The
 * measurement engine knows sources only through this interface; the
 * registry (source_registry.h) lists them. */
#ifndef CP_SOURCE_H
#define CP_SOURCE_H
#include "facts.h"
#include "json.h"
#include "source_registry.h"

enum source_status { SOURCE_OK, SOURCE_ABSENT, SOURCE_ERROR };

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
	/* What the read executes around the TSC, for a source that reads it
	 * ("rdtscp", "lfence; rdtsc", ...); NULL for the others. */
	const char *instructions;
	char reason[REASON_LEN]; /* why absent / what failed */
	/* Set with SOURCE_ERROR when the source refused to touch what a table
	 * named (the HPET's "HPET_NOT_PROVEN"): the run copies it, with the
	 * reason, into errors[], so a refusal is never only a source status. */
	const char *error_code;
};

struct measure_ctx;
struct source_result;
struct verdict_input;

/* What a source says about itself while running (watch mode re-reads it
 * every interval): kvm-clock's pvclock page, the VMClock page's marker
 * and generation. */
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
	const char *name; /* Linux clocksource name where one exists: the verdict
			   * joins its rules' clocksources to the sources by it */

	/* The hardware side, src/arch/x86/sources/<name>.c. */

	/* Decides presence and prepares the counter (enables a halted HPET,
	 * registers the pvclock page).  Runs with interrupts on, may call the
	 * platform.  Fills d (d->read on OK); on ABSENT/ERROR d->reason says
	 * why. */
	enum source_status (*prepare)(struct source_desc *d, const struct probe_facts *f);
	/* Undoes prepare (restores HPET configuration, unregisters pvclock). */
	void (*finish)(void);
	/* Source-specific measurements after the read cost (may be NULL):
	 * kvm-clock times its MSR registration and read-back. */
	void (*measure_extra)(const struct measure_ctx *ctx);
	/* Copies what the source learned into its member of *out (may be
	 * NULL); run after measurement and again before the report, since some
	 * counts (pvclock retries) grow while other stages read the source. */
	void (*collect)(union source_facts *out);
	/* The source's state now, for a long watch (may be NULL). */
	void (*live_state)(struct source_live_state *out);

	/* The pure side, src/arch/x86/sources/<name>_facts.c (host-tested); each may
	 * be NULL. */

	/* Its own members inside its sources[] entry. */
	void (*report_extra)(struct json *j, const union source_facts *f);
	/* A member of its own at the report's top level, after sources[]:
	 * written in every report, with the source measured or not (then f
	 * is all zero).  tsc_hz is the rate the report converts TSC ticks at
	 * (results_tsc_hz), for a section that sets a rate its source
	 * advertises beside it (vmclock). */
	void (*report_section)(struct json *j, const union source_facts *f, uint64_t tsc_hz);
	/* What the verdict's input learns from it beyond the read cost every
	 * source gives (status, cost, path). */
	void (*verdict_facts)(struct verdict_input *in, const struct source_result *s);
};
/* What every source that reads the TSC itself (tsc, rdtscp) says of its
 * counter: 64 bits, the TSC, at the rough rate the loops are bounded with
 * until the run measures it. */
static inline void source_desc_tsc_counter(struct source_desc *d, const struct probe_facts *f)
{
	d->width_bits = 64;
	d->is_tsc = true;
	d->reads_tsc = true;
	d->freq_hz = f->tsc_hz_rough;
	d->freq_origin = f->tsc_hz_rough_source;
}

#endif
