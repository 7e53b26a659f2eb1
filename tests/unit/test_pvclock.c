/* Expected values were computed offline with Python big integers from the
 * formulas in clock-abi-facts.md 2.4 / 3.3 and KVM's kvm_get_time_scale
 * (re-implemented in Python) - never from this code's output.  Each literal
 * carries the formula that produced it. */
#include "check.h"
#include "pvclock.h"

/* kvm_get_time_scale(10^9, 2,600,000,000 Hz): shift -1,
 * mul = (10^9 << 32) / 1.3e9 = 3303820996 */
#define MUL_2G6 3303820996u
/* 1 GHz TSC (TCG -icount): shift +1, mul = (10^9 << 32) / 2e9 = 2^31 */
#define MUL_1G 2147483648u
/* 5 GHz: shift -2, mul = (10^9 << 32) / 1.25e9 = 3435973836 */
#define MUL_5G 3435973836u
/* 100 MHz: shift +4, mul = (10^9 << 32) / 1.6e9 = 2684354560 */
#define MUL_100M 2684354560u

TEST(pvclock_layout_offsets)
{
	struct pvclock_time_info info;
	uint8_t raw[32];

	/* Decode a hand-made page: the fields must land on the ABI offsets. */
	for (unsigned i = 0; i < 32; i++)
		raw[i] = (uint8_t)i;
	raw[28] = 0xFF; /* tsc_shift = -1 */
	memcpy(&info, raw, sizeof(info));
	CHECK_EQ_U64(info.version, 0x03020100);
	CHECK_EQ_U64(info.tsc_timestamp, 0x0F0E0D0C0B0A0908ull);
	CHECK_EQ_U64(info.system_time, 0x1716151413121110ull);
	CHECK_EQ_U64(info.tsc_to_system_mul, 0x1B1A1918);
	CHECK_EQ_I64(info.tsc_shift, -1);
	CHECK_EQ_U64(info.flags, 0x1D);
}

TEST(pvclock_version_rule)
{
	CHECK(pvclock_version_consistent(2, 2));
	CHECK(!pvclock_version_consistent(3, 3));
	CHECK(!pvclock_version_consistent(2, 4));
	CHECK(pvclock_version_consistent(0, 0));
}

TEST(pvclock_scale_typical_kvm)
{
	/* 2.6e9 ticks = 1 s: (2.6e9 >> 1) * 3303820996 >> 32 = 999999999 */
	CHECK_EQ_U64(pvclock_scale_delta(2600000000ull, MUL_2G6, -1),
		     999999999);
	/* 26 cycles: (13 * 3303820996) >> 32 = 9 (10 ns truncated) */
	CHECK_EQ_U64(pvclock_scale_delta(26, MUL_2G6, -1), 9);
	/* odd delta: the shift drops the low bit first: 27 >> 1 = 13 */
	CHECK_EQ_U64(pvclock_scale_delta(27, MUL_2G6, -1), 9);
}

TEST(pvclock_scale_beyond_2_64)
{
	/* 2^40 >> 1 = 2^39; 2^39 * mul = 1.816e21 > 2^64;
	 * >> 32 = 2^7 * mul = 422889087488 */
	CHECK_EQ_U64(pvclock_scale_delta(1ull << 40, MUL_2G6, -1),
		     422889087488ull);
	/* 123456789012345 >> 1 = 61728394506172;
	 * * 3303820996 = 203939565818862105187312 (> 2^64); >> 32: */
	CHECK_EQ_U64(pvclock_scale_delta(123456789012345ull, MUL_2G6, -1),
		     47483380376096ull);
}

TEST(pvclock_scale_positive_and_extreme_shifts)
{
	/* 1 GHz, shift +1: (1000 << 1) * 2^31 >> 32 = 1000 */
	CHECK_EQ_U64(pvclock_scale_delta(1000, MUL_1G, 1), 1000);
	/* Linux drops bits shifted out: (2^63 + 5) << 1 = 10 mod 2^64 */
	CHECK_EQ_U64(pvclock_scale_delta((1ull << 63) + 5, MUL_1G, 1), 5);
	/* 5 GHz, shift -2: (5e9 >> 2) * 3435973836 >> 32 = 999999999 */
	CHECK_EQ_U64(pvclock_scale_delta(5000000000ull, MUL_5G, -2),
		     999999999);
	CHECK_EQ_U64(pvclock_scale_delta(UINT64_MAX, MUL_2G6, -64), 0);
	CHECK_EQ_U64(pvclock_scale_delta(UINT64_MAX, MUL_2G6, 64), 0);
	CHECK_EQ_U64(pvclock_scale_delta(UINT64_MAX, MUL_2G6, -128), 0);
	/* -63: UINT64_MAX >> 63 = 1; 1 * mul >> 32 = 0 */
	CHECK_EQ_U64(pvclock_scale_delta(UINT64_MAX, MUL_2G6, -63), 0);
	/* 0xFFFFFFFF mul, shift 0, delta 2^32: exactly mul */
	CHECK_EQ_U64(pvclock_scale_delta(1ull << 32, 0xFFFFFFFFu, 0),
		     0xFFFFFFFFu);
}

TEST(pvclock_ns_at_recorded)
{
	struct pvclock_time_info info = {
		.version = 4,
		.tsc_timestamp = 0x0000123456789ABCull,
		.system_time = 1000000000000ull,
		.tsc_to_system_mul = MUL_2G6,
		.tsc_shift = -1,
		.flags = PVCLOCK_TSC_STABLE_BIT,
	};

	/* 7.8e9 ticks later = 3 s: 10^12 + (3.9e9 * mul >> 32); mul is
	 * truncated, so the product falls 1 ns short: 1002999999999 */
	CHECK_EQ_U64(pvclock_ns_at(&info, 0x0000123456789ABCull + 7800000000ull),
		     1002999999999ull);
	CHECK_EQ_U64(pvclock_ns_at(&info, 0x0000123456789ABCull),
		     1000000000000ull);
	/* one tick before the stamp: delta wraps to 2^64 - 1, >> 1, scaled:
	 * (10^12 + ((2^63 - 1) * mul >> 32)) mod 2^64 */
	CHECK_EQ_U64(pvclock_ns_at(&info, 0x0000123456789ABBull),
		     7094902564829073407ull);
}

TEST(pvclock_tsc_hz_matches_kvm_scale)
{
	/* (10^9 << 32) / mul, then << 1 for shift -1 */
	CHECK_EQ_U64(pvclock_tsc_hz(MUL_2G6, -1), 2600000000ull);
	CHECK_EQ_U64(pvclock_tsc_hz(MUL_1G, 1), 1000000000ull);
	CHECK_EQ_U64(pvclock_tsc_hz(MUL_5G, -2), 5000000000ull);
	CHECK_EQ_U64(pvclock_tsc_hz(MUL_100M, 4), 100000000ull);
	/* 2,596,123,456 Hz: shift -1, mul 3308754278 -> 2596123456 */
	CHECK_EQ_U64(pvclock_tsc_hz(3308754278u, -1), 2596123456ull);
	CHECK_EQ_U64(pvclock_tsc_hz(0, -1), 0);
	/* tiny mul with a big negative shift saturates rather than wraps:
	 * (10^9 << 32) / 1 << 40 > 2^64 */
	CHECK_EQ_U64(pvclock_tsc_hz(1, -40), UINT64_MAX);
}

TEST(pvclock_tsc_khz_linux_truncates)
{
	/* Linux: (10^6 << 32) / mul, then shift */
	CHECK_EQ_U64(pvclock_tsc_khz_linux(MUL_2G6, -1), 2600000);
	/* (10^6 << 32) / 3308754278 = 1298061, << 1 = 2596122 (not 2596123) */
	CHECK_EQ_U64(pvclock_tsc_khz_linux(3308754278u, -1), 2596122);
	CHECK_EQ_U64(pvclock_tsc_khz_linux(MUL_1G, 1), 1000000);
}

TEST(hv_ref_time_math)
{
	/* scale for a nominal 2.6 GHz TSC: floor(10^7 * 2^64 / 2.6e9)
	 * = 70949015668113660 */
	uint64_t scale = 70949015668113660ull;

	/* 10^10 ticks = 3.846 s = 38461538 x 100 ns (product < 2^128) */
	CHECK_EQ_U64(hv_ref_time(10000000000ull, scale, 0), 38461538);
	/* tsc = 0x0123456789ABCDEF: (tsc * scale) >> 64 = 315328958524949 */
	CHECK_EQ_U64(hv_ref_time(0x0123456789ABCDEFull, scale, 0),
		     315328958524949ull);
	CHECK_EQ_U64(hv_ref_time(0x0123456789ABCDEFull, scale, -5000000),
		     315328953524949ull);
	CHECK_EQ_U64(hv_ref_time(0, scale, 1234), 1234);
	/* scale 2^63 halves the TSC */
	CHECK_EQ_U64(hv_ref_time(UINT64_MAX, 1ull << 63, 0),
		     (1ull << 63) - 1);
}

TEST(hv_tsc_hz_inverse)
{
	CHECK_EQ_U64(hv_tsc_hz_from_scale(70949015668113660ull), 2600000000ull);
	/* KVM's emulated page derives scale from pvclock:
	 * mul * 2^(32 + shift) / 100 = 3303820996 * 2^31 / 100
	 * = 70949015669765570; floor of the inverse is 2599999999,
	 * rounding to nearest gives 2600000000 */
	CHECK_EQ_U64(hv_tsc_hz_from_scale(70949015669765570ull), 2600000000ull);
	CHECK_EQ_U64(hv_tsc_hz_from_scale(0), 0);
	/* scale 2^64 / 2 (not representable as 2^64): 2^63 -> 2 * 10^7 */
	CHECK_EQ_U64(hv_tsc_hz_from_scale(1ull << 63), 20000000);
}

/* Linux's unstable path: a reading at or below the global last_value
 * returns it; a later one publishes itself.  Readings from two vCPUs whose
 * pvclock areas disagree by 500 ns (the case the cmpxchg exists for) come
 * out non-decreasing. */
TEST(pvclock_monotonic_clamps_to_last_value)
{
	uint64_t last = 0;
	CHECK_EQ_U64(pvclock_monotonic(&last, 1000), 1000);
	CHECK_EQ_U64(last, 1000);
	CHECK_EQ_U64(pvclock_monotonic(&last, 999), 1000); /* behind: the last value */
	CHECK_EQ_U64(last, 1000);
	CHECK_EQ_U64(pvclock_monotonic(&last, 1000), 1000);
	CHECK_EQ_U64(pvclock_monotonic(&last, 1001), 1001);
	/* vCPU A reads 10000 + 100 i, vCPU B (500 ns behind) 9500 + 100 i,
	 * interleaved A, B, A, B ... */
	last = 0;
	uint64_t prev = 0;
	for (uint64_t i = 0; i < 20; i++) {
		uint64_t a = pvclock_monotonic(&last, 10000 + 100 * i);
		uint64_t b = pvclock_monotonic(&last, 9500 + 100 * i);
		CHECK(a >= prev);
		CHECK(b >= a);
		prev = b;
	}
	CHECK_EQ_U64(last, 10000 + 100 * 19);
}
