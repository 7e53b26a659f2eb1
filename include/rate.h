/* Frequencies: HPET period, CPUID 0x15/0x16, rates measured over a window
 * against a reference counter, ppm comparisons and cycle/ns conversion.
 * All results are integers; "milli" variants carry 3 decimals (value *
 * 1000), e.g. 10.000 ns is 10000. */
#ifndef CP_RATE_H
#define CP_RATE_H
#include "util.h"

#define RATE_ACPI_PM_HZ 3579545ull
#define RATE_PIT_HZ 1193182ull
/* HPET spec ceiling: 10^8 fs = 100 ns per tick, i.e. at least 10 MHz. */
#define RATE_HPET_PERIOD_MAX_FS 0x05F5E100u
/* Linux HPET_MIN_PERIOD: faster than 10 GHz is taken as garbage. */
#define RATE_HPET_PERIOD_MIN_FS 100000u

enum rate_hpet_period {
	RATE_HPET_PERIOD_OK,
	RATE_HPET_PERIOD_ZERO,
	RATE_HPET_PERIOD_ABOVE_SPEC_MAX,	/* spec violation */
	RATE_HPET_PERIOD_BELOW_LINUX_MIN,	/* Linux refuses the HPET */
};

enum rate_hpet_period rate_hpet_period_check(uint32_t period_fs);
/* round(10^15 / period_fs); 0 for period 0. */
uint64_t rate_hpet_hz(uint32_t period_fs);

/* TSC (or any counter) rate over a window timed by a reference counter:
 * round(delta * ref_hz / ref_ticks), 128-bit intermediate.  ref_ticks is
 * the wrap-corrected reference delta (counter_delta).  0 if ref_ticks or
 * ref_hz is 0. */
uint64_t rate_from_window(uint64_t delta, uint64_t ref_hz, uint64_t ref_ticks);

/* (a - ref) / ref in ppm, rounded to nearest with halves away from zero,
 * saturated to the int64 range.  False (and *out = 0) when ref is 0. */
bool rate_ppm_diff(uint64_t a_hz, uint64_t ref_hz, int64_t *out);
bool rate_ppm_diff_milli(uint64_t a_hz, uint64_t ref_hz, int64_t *out);

/* Worst-case uncertainty of a window measurement, in milli-ppm, rounded
 * up:   (2 * ref_tick + 2 * read_cost) / window * 10^6 ppm.
 * Each end of the window is only known to within one reference tick
 * (quantisation) plus the time one reference read takes (we do not know
 * where inside the read the counter was sampled); two ends give the
 * factor 2.  ref_tick = 1/ref_hz, taken as ceil(10^15 / ref_hz) fs.
 * UINT64_MAX when ref_hz or window_ns is 0. */
uint64_t rate_window_uncertainty_mppm(uint64_t ref_hz, uint64_t read_cost_ns,
				      uint64_t window_ns);

/* CPUID 0x15 as Linux's native_calibrate_tsc reads it, but in Hz (Linux
 * truncates the crystal to kHz first):
 *   den (EAX) or num (EBX) 0      -> unknown (tsc_hz 0);
 *   crystal (ECX) != 0            -> tsc = crystal * num / den, "known";
 *   crystal 0, leaf 0x16 base > 0 -> crystal = base_hz * den / num
 *                                    (truncated), then the same ratio:
 *                                    about the 0x16 base frequency;
 *   otherwise                     -> unknown.
 * Pass leaf16_eax = 0 when leaf 0x16 is out of range.  Linux uses this
 * only on Intel CPUs; that policy is the caller's. */
struct rate_cpuid15 {
	uint64_t tsc_hz;
	uint64_t crystal_hz;
	bool crystal_reported;	/* ECX != 0: Linux marks TSC_KNOWN_FREQ */
};

void rate_cpuid15_decode(struct rate_cpuid15 *out, uint32_t eax_den,
			 uint32_t ebx_num, uint32_t ecx_crystal_hz,
			 uint32_t leaf16_eax);
/* CPUID 0x16 EAX[15:0] MHz -> Hz; 0 when not enumerated. */
uint64_t rate_cpuid16_base_hz(uint32_t leaf16_eax);

/* round(cycles * 10^12 / tsc_hz): ns with 3 decimals; 0 if tsc_hz is 0. */
uint64_t rate_cycles_to_ns_milli(uint64_t cycles, uint64_t tsc_hz);
/* The same for a figure that is itself x1000 (an estimate, a mean):
 * round(milli_cycles * 10^9 / tsc_hz), ns x1000, rounded, never cut. */
uint64_t rate_milli_cycles_to_ns_milli(uint64_t milli_cycles, uint64_t tsc_hz);
/* round(cycles * 10^9 / tsc_hz); 0 if tsc_hz is 0. */
uint64_t rate_cycles_to_ns(uint64_t cycles, uint64_t tsc_hz);
/* Inside 100 MHz..10 GHz, where every x86 TSC runs: a rate outside must
 * not size a deadline. */
#define RATE_TSC_HZ_MIN 100000000ull
#define RATE_TSC_HZ_MAX 10000000000ull
bool rate_tsc_hz_plausible(uint64_t hz);
/* round(ns * tsc_hz / 10^9). */
uint64_t rate_ns_to_cycles(uint64_t ns, uint64_t tsc_hz);
#endif
