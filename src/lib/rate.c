#include "rate.h"

#define FS_PER_SEC 1000000000000000ull
#define FS_PER_NS 1000000ull
#define NS_PER_SEC 1000000000ull

/* round(n / d) for a 128-bit numerator; saturates like u128_div_u64. */
static uint64_t div_round(unsigned __int128 n, uint64_t d)
{
	return u128_div_u64(n + d / 2, d);
}

static uint64_t div_ceil(unsigned __int128 n, uint64_t d)
{
	return u128_div_u64(n + d - 1, d);
}

enum rate_hpet_period rate_hpet_period_check(uint32_t period_fs)
{
	if (period_fs == 0)
		return RATE_HPET_PERIOD_ZERO;
	if (period_fs > RATE_HPET_PERIOD_MAX_FS)
		return RATE_HPET_PERIOD_ABOVE_SPEC_MAX;
	if (period_fs < RATE_HPET_PERIOD_MIN_FS)
		return RATE_HPET_PERIOD_BELOW_LINUX_MIN;
	return RATE_HPET_PERIOD_OK;
}

uint64_t rate_hpet_hz(uint32_t period_fs)
{
	if (period_fs == 0)
		return 0;
	return div_round(FS_PER_SEC, period_fs);
}

uint64_t rate_from_window(uint64_t delta, uint64_t ref_hz, uint64_t ref_ticks)
{
	if (ref_ticks == 0 || ref_hz == 0)
		return 0;
	return div_round((unsigned __int128)delta * ref_hz, ref_ticks);
}

/* round((a - ref) * scale / ref), halves away from zero. */
static bool scaled_diff(uint64_t a, uint64_t ref, uint64_t scale, int64_t *out)
{
	bool negative = a < ref;
	uint64_t magnitude;

	*out = 0;
	if (ref == 0)
		return false;
	magnitude = div_round((unsigned __int128)(negative ? ref - a : a - ref) *
				      scale, ref);
	if (magnitude > (uint64_t)INT64_MAX)
		magnitude = INT64_MAX;
	*out = negative ? -(int64_t)magnitude : (int64_t)magnitude;
	return true;
}

bool rate_ppm_diff(uint64_t a_hz, uint64_t ref_hz, int64_t *out)
{
	return scaled_diff(a_hz, ref_hz, 1000000ull, out);
}

bool rate_ppm_diff_milli(uint64_t a_hz, uint64_t ref_hz, int64_t *out)
{
	return scaled_diff(a_hz, ref_hz, 1000000000ull, out);
}

uint64_t rate_window_uncertainty_mppm(uint64_t ref_hz, uint64_t read_cost_ns,
				      uint64_t window_ns)
{
	unsigned __int128 err_fs;

	if (ref_hz == 0 || window_ns == 0)
		return UINT64_MAX;
	err_fs = 2 * ((unsigned __int128)div_ceil(FS_PER_SEC, ref_hz) +
		      (unsigned __int128)read_cost_ns * FS_PER_NS);
	/* milli-ppm = err / window * 10^9 = err_fs * 1000 / window_ns */
	return div_ceil(err_fs * 1000, window_ns);
}

void rate_cpuid15_decode(struct rate_cpuid15 *out, uint32_t eax_den,
			 uint32_t ebx_num, uint32_t ecx_crystal_hz,
			 uint32_t leaf16_eax)
{
	uint64_t base_hz = rate_cpuid16_base_hz(leaf16_eax);

	memset(out, 0, sizeof(*out));
	if (eax_den == 0 || ebx_num == 0)
		return;
	out->crystal_reported = ecx_crystal_hz != 0;
	out->crystal_hz = ecx_crystal_hz;
	if (!out->crystal_reported && base_hz)
		out->crystal_hz = mul_div_u64(base_hz, eax_den, ebx_num);
	if (out->crystal_hz == 0)
		return;
	out->tsc_hz = mul_div_u64(out->crystal_hz, ebx_num, eax_den);
}

uint64_t rate_cpuid16_base_hz(uint32_t leaf16_eax)
{
	return (uint64_t)(leaf16_eax & 0xFFFF) * 1000000ull;
}

uint64_t rate_cycles_to_ns_milli(uint64_t cycles, uint64_t tsc_hz)
{
	if (tsc_hz == 0)
		return 0;
	return div_round((unsigned __int128)cycles * (NS_PER_SEC * 1000), tsc_hz);
}

uint64_t rate_milli_cycles_to_ns_milli(uint64_t milli_cycles, uint64_t tsc_hz)
{
	if (tsc_hz == 0)
		return 0;
	return div_round((unsigned __int128)milli_cycles * NS_PER_SEC, tsc_hz);
}

uint64_t rate_cycles_to_ns(uint64_t cycles, uint64_t tsc_hz)
{
	if (tsc_hz == 0)
		return 0;
	return div_round((unsigned __int128)cycles * NS_PER_SEC, tsc_hz);
}

uint64_t rate_ns_to_cycles(uint64_t ns, uint64_t tsc_hz)
{
	return div_round((unsigned __int128)ns * tsc_hz, NS_PER_SEC);
}

bool rate_tsc_hz_plausible(uint64_t hz)
{
	return hz >= RATE_TSC_HZ_MIN && hz <= RATE_TSC_HZ_MAX;
}
