#include "pvclock.h"

#define NSEC_PER_SEC 1000000000ull
#define HV_REF_HZ 10000000ull

bool pvclock_version_consistent(uint32_t v1, uint32_t v2)
{
	return v1 == v2 && !(v1 & 1);
}

uint64_t pvclock_scale_delta(uint64_t delta, uint32_t mul, int8_t shift)
{
	if (shift <= -64 || shift >= 64)
		return 0;
	if (shift < 0)
		delta >>= -shift;
	else
		delta <<= shift;
	return (uint64_t)(((unsigned __int128)delta * mul) >> 32);
}

uint64_t pvclock_ns_at(const struct pvclock_time_info *info, uint64_t tsc)
{
	uint64_t delta = tsc - info->tsc_timestamp;

	return info->system_time +
	       pvclock_scale_delta(delta, info->tsc_to_system_mul,
				   info->tsc_shift);
}

/* (scaled << 32) / mul, then the pvclock shift reversed: a negative shift
 * means the hypervisor halved the TSC before scaling, so the rate doubles. */
static uint64_t rate_from_mul(uint64_t per_sec, uint32_t mul, int8_t shift)
{
	unsigned __int128 rate;

	if (mul == 0)
		return 0;
	rate = (per_sec << 32) / mul; /* 64-bit division: per_sec < 2^32 */
	if (shift < 0) {
		if (shift <= -64)
			return UINT64_MAX;
		rate <<= -shift;
	} else {
		if (shift >= 64)
			return 0;
		rate >>= shift;
	}
	return rate > UINT64_MAX ? UINT64_MAX : (uint64_t)rate;
}

uint64_t pvclock_tsc_hz(uint32_t mul, int8_t shift)
{
	return rate_from_mul(NSEC_PER_SEC, mul, shift);
}

uint64_t pvclock_tsc_khz_linux(uint32_t mul, int8_t shift)
{
	return rate_from_mul(1000000ull, mul, shift);
}

uint64_t hv_ref_time(uint64_t tsc, uint64_t scale, int64_t offset)
{
	uint64_t scaled = (uint64_t)(((unsigned __int128)tsc * scale) >> 64);

	return scaled + (uint64_t)offset;
}

uint64_t hv_tsc_hz_from_scale(uint64_t scale)
{
	if (scale == 0)
		return 0;
	return u128_div_u64(((unsigned __int128)HV_REF_HZ << 64) + scale / 2,
			    scale);
}

uint64_t pvclock_monotonic(uint64_t *last_value, uint64_t ns)
{
	uint64_t last = __atomic_load_n(last_value, __ATOMIC_RELAXED);
	do {
		if (ns <= last)
			return last;
	} while (!__atomic_compare_exchange_n(last_value, &last, ns, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return ns;
}
