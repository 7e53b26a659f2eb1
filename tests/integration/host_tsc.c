/* The host's TSC rate: RDTSC against CLOCK_MONOTONIC_RAW over 300 ms.
 * Under TCG without icount the guest's TSC is the host's, so this is what
 * the probe's measured frequency must match.  /proc/cpuinfo's "cpu MHz" is
 * the core clock, not the TSC. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	uint64_t n0 = now_ns(), t0 = __rdtsc();
	uint64_t n1, t1;
	do {
		n1 = now_ns();
		t1 = __rdtsc();
	} while (n1 - n0 < 300000000ull);
	printf("%llu\n", (unsigned long long)((t1 - t0) * 1000000000.0 / (double)(n1 - n0)));
	return 0;
}
