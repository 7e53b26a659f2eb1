/* The timer stage's arithmetic and bookkeeping (src/analysis/timers.c) on
 * values recorded from a direct boot under TCG, -smp 4, default mode
 * (timers.lapic_oneshot.calibration and first_shots of that report, TSC
 * at 2095992917 Hz). */
#include "check.h"
#include "timers.h"

/* The calibration's readings: the current count fell 2036596 APIC ticks
 * while the TSC advanced 4267756. */
#define CAL_T0 7377022170ull
#define CAL_T1 7381289926ull
#define CAL_C0 4294943850u
#define CAL_C1 4292907254u
#define REC_TSC_HZ 2095992917ull

TEST(timers_ratio_from_recorded_calibration)
{
	uint64_t ratio = timers_apic_ratio(CAL_C0, CAL_T0, CAL_C1, CAL_T1);
	/* floor(4267756 * 2^32 / 2036596) */
	CHECK_EQ_U64(ratio, 9000249655ull);
	/* The report said apic_hz 1000219035: QEMU's APIC timer at 1 GHz
	 * (divide by 1) against the measured TSC rate, to 219 ppm. */
	CHECK_EQ_U64(timers_apic_hz(ratio, REC_TSC_HZ), 1000219035ull);
	/* A counter that did not count down, or time that did not pass. */
	CHECK_EQ_U64(timers_apic_ratio(CAL_C1, CAL_T0, CAL_C0, CAL_T1), 0);
	CHECK_EQ_U64(timers_apic_ratio(CAL_C0, CAL_T0, CAL_C0, CAL_T1), 0);
	CHECK_EQ_U64(timers_apic_ratio(CAL_C0, CAL_T1, CAL_C1, CAL_T0), 0);
	CHECK_EQ_U64(timers_apic_hz(0, REC_TSC_HZ), 0);
}

TEST(timers_count_and_due_round_trip)
{
	uint64_t ratio = 9000249655ull;
	/* 41920 TSC ticks (20 us) = 41920 / 2.0955339 = 20004.4 APIC ticks. */
	uint32_t c = timers_apic_count_for(41920, ratio);
	CHECK_EQ_U64(c, 20004);
	/* Due: the write's midpoint plus the count back in TSC ticks
	 * (20004 * 2.0955339 = 41919.1 -> 41919). */
	CHECK_EQ_U64(timers_oneshot_due(1000, 1100, c, ratio), 1050 + 41919);
	/* Clamped: never 0 (a 0 count stops the timer), never past 32 bits. */
	CHECK_EQ_U64(timers_apic_count_for(0, ratio), 1);
	CHECK_EQ_U64(timers_apic_count_for(UINT64_MAX >> 8, ratio), 0xffffffffu);
	CHECK_EQ_U64(timers_apic_count_for(41920, 0), 1);
}

TEST(timers_shot_delays_scattered_within_bounds)
{
	uint64_t lo = 41920, hi = 125760; /* 20 and 60 us at the recorded rate */
	uint64_t prev = 0, below_mid = 0;
	for (uint32_t i = 0; i < 256; i++) {
		uint64_t d = timers_shot_delay(i, lo, hi);
		CHECK(d >= lo && d <= hi);
		CHECK(d != prev);
		below_mid += d < (lo + hi) / 2;
		prev = d;
	}
	/* Spread over the range, not bunched at one end. */
	CHECK(below_mid > 96 && below_mid < 160);
	/* The same sequence every run. */
	CHECK_EQ_U64(timers_shot_delay(7, lo, hi), timers_shot_delay(7, lo, hi));
	CHECK_EQ_U64(timers_shot_delay(3, lo, lo), lo);
}

/* The first eight shots of the recorded boot, due and handler stamps. */
static const uint64_t rec_due[8] = { 7386151415ull, 7386893987ull, 7387115578ull, 7387395940ull,
				     7387662063ull, 7387856669ull, 7388061430ull, 7388411341ull };
static const uint64_t rec_handler[8] = { 7386410955ull, 7386890994ull, 7387242975ull, 7387505622ull,
					 7387711569ull, 7387952166ull, 7388153010ull, 7388606946ull };

static struct timer_shots shots;

TEST(timers_bookkeeping_on_recorded_shots)
{
	struct timer_result t = { 0 };
	timers_shots_init(&shots);
	for (int i = 0; i < 8; i++)
		timers_shot(&shots, 1000 + (uint64_t)i, rec_due[i], rec_handler[i]);
	/* A shot that never fired. */
	timers_shot(&shots, 5000, 7388611341ull, 0);
	CHECK_EQ_U64(shots.n, 8);
	CHECK_EQ_U64(shots.missed, 1);
	/* Shot 2 ran its handler 2993 ticks before the estimated expiry: the
	 * arming write's length puts that much doubt on the one-shot's due. */
	CHECK_EQ_U64(shots.early, 1);
	CHECK_EQ_U64(shots.most_early, 7386893987ull - 7386890994ull);
	CHECK_EQ_U64(shots.latency[0], 7386410955ull - 7386151415ull);
	CHECK_EQ_U64(shots.latency[1], 0);
	CHECK_EQ_U64(shots.raw_n, 8);
	CHECK_EQ_U64(shots.raw_handler[7], rec_handler[7]);
	timers_finish(&t, &shots);
	CHECK_EQ_U64(t.status, TIMER_OK);
	CHECK_EQ_U64(t.fired, 8);
	CHECK_EQ_U64(t.missed, 1);
	CHECK_EQ_U64(t.early, 1);
	/* Latencies sorted: 0, 49506, 91580, 95497, 109682, 127397, 195605,
	 * 259540; nearest rank p50 = the 4th. */
	CHECK_EQ_U64(t.latency_cycles.n, 8);
	CHECK_EQ_U64(t.latency_cycles.min, 0);
	CHECK_EQ_U64(t.latency_cycles.p50, 95497);
	CHECK_EQ_U64(t.latency_cycles.max, 259540);
	CHECK_EQ_U64(t.arm_cycles.p50, 1003);
	CHECK_EQ_U64(t.raw_n, 8);
	CHECK_EQ_U64(t.raw_due[0], rec_due[0]);
}

/* The TSC-deadline path: due is the deadline written, so a handler that
 * ran before it is the hypervisor firing early (KVM's timer advance). */
TEST(timers_deadline_path_bookkeeping)
{
	struct timer_result t = { 0 };
	timers_shots_init(&shots);
	uint64_t deadline = 7386151415ull;
	timers_shot(&shots, 2300, deadline, deadline + 6100);
	timers_shot(&shots, 2400, deadline + 100000, deadline + 100000 - 700);
	timers_shot(&shots, 2200, deadline + 200000, deadline + 200000 + 5900);
	timers_finish(&t, &shots);
	CHECK_EQ_U64(t.status, TIMER_OK);
	CHECK_EQ_U64(t.early, 1);
	CHECK_EQ_U64(t.most_early_ticks, 700);
	CHECK_EQ_U64(t.latency_cycles.min, 0);
	CHECK_EQ_U64(t.latency_cycles.p50, 5900);
	CHECK_EQ_U64(t.latency_cycles.max, 6100);
	CHECK_EQ_U64(t.arm_cycles.p50, 2300);

	/* Every shot missed: not ok, the stage then says why. */
	struct timer_result none = { 0 };
	timers_shots_init(&shots);
	for (int i = 0; i < 4; i++)
		timers_shot(&shots, 2300, deadline, 0);
	timers_finish(&none, &shots);
	CHECK(none.status != TIMER_OK);
	CHECK_EQ_U64(none.missed, 4);
	CHECK_EQ_U64(none.fired, 0);
	CHECK_EQ_U64(none.latency_cycles.n, 0);
}

TEST(timers_not_measured_names_both)
{
	struct timers_result r;
	timers_not_measured(&r, "not measured: the TSC source did not measure ok (it times the shots)");
	CHECK_EQ_U64(r.lapic_oneshot.status, TIMER_ERROR);
	CHECK_EQ_U64(r.tsc_deadline.status, TIMER_ERROR);
	CHECK(strstr(r.tsc_deadline.reason, "TSC source") != NULL);
	CHECK(strcmp(timers_status_name(TIMER_ABSENT), "absent") == 0);
	CHECK(strcmp(timers_status_name(TIMER_OK), "ok") == 0);
	/* A reason longer than the buffer is cut, still terminated. */
	char lng[REASON_LEN * 2];
	memset(lng, 'x', sizeof lng - 1);
	lng[sizeof lng - 1] = 0;
	timers_set_both(&r, TIMER_ABSENT, lng, "tail");
	CHECK(strlen(r.lapic_oneshot.reason) < REASON_LEN);
}
