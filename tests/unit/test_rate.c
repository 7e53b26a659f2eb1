/* Hand-computed expectations; the arithmetic is shown next to each. */
#include "check.h"
#include "rate.h"
#include "counter.h"

TEST(rate_hpet_period_rules)
{
	CHECK_EQ_U64(rate_hpet_period_check(0), RATE_HPET_PERIOD_ZERO);
	CHECK_EQ_U64(rate_hpet_period_check(10000000), RATE_HPET_PERIOD_OK);
	CHECK_EQ_U64(rate_hpet_period_check(69841279), RATE_HPET_PERIOD_OK);
	CHECK_EQ_U64(rate_hpet_period_check(0x05F5E100), RATE_HPET_PERIOD_OK);
	CHECK_EQ_U64(rate_hpet_period_check(0x05F5E101),
		     RATE_HPET_PERIOD_ABOVE_SPEC_MAX);
	CHECK_EQ_U64(rate_hpet_period_check(100000), RATE_HPET_PERIOD_OK);
	CHECK_EQ_U64(rate_hpet_period_check(99999),
		     RATE_HPET_PERIOD_BELOW_LINUX_MIN);
	CHECK_EQ_U64(rate_hpet_period_check(0xFFFFFFFF),
		     RATE_HPET_PERIOD_ABOVE_SPEC_MAX);
}

TEST(rate_hpet_hz_values)
{
	/* QEMU: 10^15 / 10^7 fs = 100 MHz */
	CHECK_EQ_U64(rate_hpet_hz(10000000), 100000000);
	/* 10^15 / 69841279 = 14318179.94 -> 14318180 */
	CHECK_EQ_U64(rate_hpet_hz(69841279), 14318180);
	/* spec ceiling 10^8 fs = 10 MHz */
	CHECK_EQ_U64(rate_hpet_hz(0x05F5E100), 10000000);
	CHECK_EQ_U64(rate_hpet_hz(0), 0);
	/* 10^15 / 3 = 333333333333333.33 -> down; / 6 = ...666.67 -> up */
	CHECK_EQ_U64(rate_hpet_hz(3), 333333333333333ull);
	CHECK_EQ_U64(rate_hpet_hz(6), 166666666666667ull);
}

TEST(rate_window_pm_timer_wrap)
{
	/* 24-bit PM timer: starts at 0xF00000 (15728640), 3579000 ticks
	 * later reads (15728640 + 3579000) - 2^24 = 2530424: it wrapped. */
	uint64_t ticks = counter_delta(0xF00000, 2530424, 24);

	CHECK_EQ_U64(ticks, 3579000);
	/* 2595727000 * 3579545 / 3579000 = 2596122269.968 -> 2596122270 */
	CHECK_EQ_U64(rate_from_window(2595727000ull, RATE_ACPI_PM_HZ, ticks),
		     2596122270ull);
}

TEST(rate_window_hpet32_wrap)
{
	/* 32-bit HPET at 100 MHz: 0xFFFFFF00 -> 0x05F5E000 is
	 * 0x05F5E000 + 0x100 = 0x05F5E100 = 10^8 ticks = 1 s */
	uint64_t ticks = counter_delta(0xFFFFFF00u, 0x05F5E000u, 32);

	CHECK_EQ_U64(ticks, 100000000);
	CHECK_EQ_U64(rate_from_window(2596123456ull, 100000000, ticks),
		     2596123456ull);
}

TEST(rate_window_pit_down_wrap)
{
	/* PIT counts down: 0x0100 -> 0xF000 is 0x100 + 0x1000 = 4352 ticks
	 * = 4352 / 1193182 s = 3.64739 ms; a 1 GHz TSC advanced 3647390
	 * cycles: 3647390 * 1193182 / 4352 = 1000000021.8 -> 1000000022 */
	uint64_t ticks = counter_delta_down(0x0100, 0xF000, 16);

	CHECK_EQ_U64(ticks, 4352);
	CHECK_EQ_U64(rate_from_window(3647390, RATE_PIT_HZ, ticks), 1000000022);
}

TEST(rate_window_degenerate)
{
	CHECK_EQ_U64(rate_from_window(1000, RATE_ACPI_PM_HZ, 0), 0);
	CHECK_EQ_U64(rate_from_window(1000, 0, 10), 0);
	/* 128-bit intermediate: 2^63 * 2^20 / 2^20 */
	CHECK_EQ_U64(rate_from_window(1ull << 63, 1ull << 20, 1ull << 20),
		     1ull << 63);
}

TEST(rate_ppm_values)
{
	int64_t v;

	/* (2596123456 - 2596000000) / 2596e6 * 1e6 = 47.556 ppm */
	CHECK(rate_ppm_diff(2596123456ull, 2596000000ull, &v));
	CHECK_EQ_I64(v, 48);
	CHECK(rate_ppm_diff_milli(2596123456ull, 2596000000ull, &v));
	CHECK_EQ_I64(v, 47556);
	/* -8 / 2.6e9 * 1e6 = -0.003077 ppm */
	CHECK(rate_ppm_diff(2599999992ull, 2600000000ull, &v));
	CHECK_EQ_I64(v, 0);
	CHECK(rate_ppm_diff_milli(2599999992ull, 2600000000ull, &v));
	CHECK_EQ_I64(v, -3);
	/* exact halves round away from zero: +-0.5 ppm */
	CHECK(rate_ppm_diff(2000001, 2000000, &v));
	CHECK_EQ_I64(v, 1);
	CHECK(rate_ppm_diff(1999999, 2000000, &v));
	CHECK_EQ_I64(v, -1);
	CHECK(rate_ppm_diff(2600000000ull, 2600000000ull, &v));
	CHECK_EQ_I64(v, 0);
	/* double the rate: +1,000,000 ppm */
	CHECK(rate_ppm_diff(200, 100, &v));
	CHECK_EQ_I64(v, 1000000);
	CHECK(!rate_ppm_diff(200, 0, &v));
	CHECK_EQ_I64(v, 0);
	/* saturation: (2^64 - 1 - 1) * 10^9 / 1 does not fit */
	CHECK(rate_ppm_diff_milli(UINT64_MAX, 1, &v));
	CHECK_EQ_I64(v, INT64_MAX);
}

TEST(rate_uncertainty_formula)
{
	/* PM timer: tick = ceil(10^15 / 3579545) = 279365115 fs; read 1 us;
	 * window 100 ms: 2 * (279365115 + 10^9) fs * 1000 / 10^8 ns
	 * = 25587.302 -> 25588 milli-ppm (rounded up) */
	CHECK_EQ_U64(rate_window_uncertainty_mppm(RATE_ACPI_PM_HZ, 1000,
						  100000000),
		     25588);
	/* HPET 100 MHz: tick 10^7 fs, read 500 ns, 1 s window:
	 * 2 * (10^7 + 5 * 10^8) * 1000 / 10^9 = 1020 exactly */
	CHECK_EQ_U64(rate_window_uncertainty_mppm(100000000, 500, 1000000000),
		     1020);
	CHECK_EQ_U64(rate_window_uncertainty_mppm(0, 500, 1000000000),
		     UINT64_MAX);
	CHECK_EQ_U64(rate_window_uncertainty_mppm(100000000, 500, 0),
		     UINT64_MAX);
}

TEST(rate_cpuid15_known_crystal)
{
	struct rate_cpuid15 r;

	/* 38.4 MHz crystal, ratio 130/2: 38400000 * 130 / 2 = 2.496 GHz */
	rate_cpuid15_decode(&r, 2, 130, 38400000, 0);
	CHECK_EQ_U64(r.tsc_hz, 2496000000ull);
	CHECK_EQ_U64(r.crystal_hz, 38400000);
	CHECK(r.crystal_reported);
	/* 24 MHz, 176/2 = 2.112 GHz; leaf 0x16 is ignored when ECX != 0 */
	rate_cpuid15_decode(&r, 2, 176, 24000000, 3000);
	CHECK_EQ_U64(r.tsc_hz, 2112000000ull);
}

TEST(rate_cpuid15_crystal_from_leaf16)
{
	struct rate_cpuid15 r;

	/* Skylake-style: ECX = 0, 0x16 base 2600 MHz, ratio 216/2:
	 * crystal = 2600e6 * 2 / 216 = 24074074 (truncated);
	 * tsc = 24074074 * 216 / 2 = 2599999992 */
	rate_cpuid15_decode(&r, 2, 216, 0, 2600);
	CHECK_EQ_U64(r.crystal_hz, 24074074);
	CHECK_EQ_U64(r.tsc_hz, 2599999992ull);
	CHECK(!r.crystal_reported);
	/* exact case: 2400 MHz, 200/2 -> crystal 24 MHz, tsc 2.4 GHz;
	 * upper bits of 0x16 EAX are reserved and ignored */
	rate_cpuid15_decode(&r, 2, 200, 0, 0xABCD0000u | 2400);
	CHECK_EQ_U64(r.crystal_hz, 24000000);
	CHECK_EQ_U64(r.tsc_hz, 2400000000ull);
}

TEST(rate_cpuid15_unknown)
{
	struct rate_cpuid15 r;

	rate_cpuid15_decode(&r, 0, 216, 24000000, 2600);
	CHECK_EQ_U64(r.tsc_hz, 0);
	rate_cpuid15_decode(&r, 2, 0, 24000000, 2600);
	CHECK_EQ_U64(r.tsc_hz, 0);
	CHECK(!r.crystal_reported);
	/* neither crystal nor leaf 0x16 */
	rate_cpuid15_decode(&r, 2, 216, 0, 0);
	CHECK_EQ_U64(r.tsc_hz, 0);
	CHECK_EQ_U64(r.crystal_hz, 0);
	/* extreme ratio must not overflow: 65535 MHz * 2^32-1 / 1 */
	rate_cpuid15_decode(&r, 0xFFFFFFFFu, 1, 0, 0xFFFF);
	CHECK_EQ_U64(r.crystal_hz, UINT64_MAX); /* saturated, not wrapped */
}

TEST(rate_cpuid16_base)
{
	CHECK_EQ_U64(rate_cpuid16_base_hz(2600), 2600000000ull);
	CHECK_EQ_U64(rate_cpuid16_base_hz(0), 0);
	CHECK_EQ_U64(rate_cpuid16_base_hz(0x00010000u | 3000), 3000000000ull);
}

TEST(rate_cycles_ns)
{
	/* 26 cycles at 2.6 GHz = 10.000 ns */
	CHECK_EQ_U64(rate_cycles_to_ns_milli(26, 2600000000ull), 10000);
	CHECK_EQ_U64(rate_cycles_to_ns(26, 2600000000ull), 10);
	/* 3 cycles at 2596123456 Hz = 1.15557 ns -> 1.156 */
	CHECK_EQ_U64(rate_cycles_to_ns_milli(3, 2596123456ull), 1156);
	/* 1 GHz icount TSC: 1 cycle = 1.000 ns */
	CHECK_EQ_U64(rate_cycles_to_ns_milli(1, 1000000000), 1000);
	CHECK_EQ_U64(rate_cycles_to_ns_milli(26, 0), 0);
	/* 10 us at 2596123456 Hz = 25961.23 -> 25961 cycles */
	CHECK_EQ_U64(rate_ns_to_cycles(10000, 2596123456ull), 25961);
	/* 100 us: 259612.3456 -> 259612 */
	CHECK_EQ_U64(rate_ns_to_cycles(100000, 2596123456ull), 259612);
	/* large values stay exact: 2^40 cycles at 2^30 Hz = 1024 s */
	CHECK_EQ_U64(rate_cycles_to_ns(1ull << 40, 1ull << 30),
		     1024000000000ull);
}

TEST(rate_tsc_plausible_range)
{
	CHECK(rate_tsc_hz_plausible(2445000000ull));
	CHECK(rate_tsc_hz_plausible(RATE_TSC_HZ_MIN));
	CHECK(rate_tsc_hz_plausible(RATE_TSC_HZ_MAX));
	CHECK(!rate_tsc_hz_plausible(RATE_TSC_HZ_MIN - 1));
	CHECK(!rate_tsc_hz_plausible(RATE_TSC_HZ_MAX + 1));
	CHECK(!rate_tsc_hz_plausible(1000)); /* a kHz leaf read as Hz */
	CHECK(!rate_tsc_hz_plausible(0xffffffffull * 1000)); /* garbage tsc_khz */
}

/* An estimate x1000 to ns x1000: rounded, never cut (1.000 tick at 1 GHz
 * printed "0.9 ns" when it was truncated on the way). */
TEST(rate_milli_cycles_round)
{
	CHECK_EQ_U64(rate_milli_cycles_to_ns_milli(1000, 1000000000), 1000);
	CHECK_EQ_U64(rate_milli_cycles_to_ns_milli(999, 1000000000), 999);
	/* 15.3 ticks at 2.445 GHz = 6.2576... ns */
	CHECK_EQ_U64(rate_milli_cycles_to_ns_milli(15300, 2445000000ull), 6258);
	/* 1 milli-tick at 3 GHz = 0.333 ps: rounds to 0 */
	CHECK_EQ_U64(rate_milli_cycles_to_ns_milli(1, 3000000000ull), 0);
	CHECK_EQ_U64(rate_milli_cycles_to_ns_milli(2, 3000000000ull), 1);
	CHECK_EQ_U64(rate_milli_cycles_to_ns_milli(5, 0), 0);
}
