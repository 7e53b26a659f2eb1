/* Synthetic counters: the true tick count is generated first, the raw
 * reading is (start +/- truth) mod 2^width, and the code under test must
 * recover the truth. */
#include "check.h"
#include "counter.h"

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

TEST(counter_masks)
{
	CHECK_EQ_U64(counter_mask(16), 0xFFFF);
	CHECK_EQ_U64(counter_mask(24), 0xFFFFFF);
	CHECK_EQ_U64(counter_mask(32), 0xFFFFFFFFull);
	CHECK_EQ_U64(counter_mask(64), UINT64_MAX);
	CHECK_EQ_U64(counter_mask(0), UINT64_MAX);
	CHECK_EQ_U64(counter_mask(99), UINT64_MAX);
}

TEST(counter_delta_wraps)
{
	CHECK_EQ_U64(counter_delta(0xFFFFF0, 0x000010, 24), 0x20);
	CHECK_EQ_U64(counter_delta(0x000010, 0x000030, 24), 0x20);
	CHECK_EQ_U64(counter_delta(0xFFFFFFFF, 0, 32), 1);
	CHECK_EQ_U64(counter_delta(UINT64_MAX, 5, 64), 6);
	CHECK_EQ_U64(counter_delta(0xFFFF, 0x0000, 16), 1);
	/* upper garbage in a 32-bit IN of a 24-bit timer is ignored */
	CHECK_EQ_U64(counter_delta(0xAB000005, 0x12000009, 24), 4);
}

TEST(counter_delta_pit_down)
{
	CHECK_EQ_U64(counter_delta_down(0x0005, 0xFFFB, 16), 10);
	CHECK_EQ_U64(counter_delta_down(0x8000, 0x7000, 16), 0x1000);
	CHECK_EQ_U64(counter_delta_down(0x0000, 0xFFFF, 16), 1);
}

TEST(counter_ext_hand_sequence)
{
	struct counter_ext e;

	counter_ext_init(&e, 24, false, 0xFFFFFE);
	CHECK_EQ_U64(counter_ext_feed(&e, 0x000001), 3);
	CHECK_EQ_U64(counter_ext_feed(&e, 0x800000), 3 + 0x7FFFFF);
	CHECK_EQ_U64(counter_ext_feed(&e, 0xFFFFFF), 3 + 2 * 0x7FFFFFull);
	/* 0xFFFFFF -> 0x7FFFFF is 0x800000 forward: still under one wrap */
	CHECK_EQ_U64(counter_ext_feed(&e, 0x7FFFFF), 25165825);
	CHECK_EQ_U64(counter_ext_feed(&e, 0x7FFFFF), 25165825);
}

static void run_up_stream(unsigned width, uint64_t start, uint64_t max_step,
			  uint32_t reads)
{
	uint64_t mask = counter_mask(width), truth = 0;
	struct counter_ext e;

	counter_ext_init(&e, width, false, start);
	for (uint32_t i = 0; i < reads; i++) {
		truth += rng_next() % (max_step + 1);
		uint64_t got = counter_ext_feed(&e, (start + truth) & mask);

		if (got != truth) {
			CHECK_EQ_U64(got, truth);
			return;
		}
	}
	/* the stream must really have wrapped many times */
	CHECK(truth >> width > 1000);
}

TEST(counter_ext_24bit_many_wraps)
{
	run_up_stream(24, 0xABCDEF, 0xFFFFFF, 20000);
}

TEST(counter_ext_32bit_many_wraps)
{
	run_up_stream(32, 0xFFFFFF00u, 0xFFFFFFFFull, 20000);
}

TEST(counter_ext_pit_down_many_wraps)
{
	struct counter_ext e;
	uint64_t truth = 0, start = 0x1234;

	counter_ext_init(&e, 16, true, start);
	for (uint32_t i = 0; i < 50000; i++) {
		truth += rng_next() % 0x10000;
		uint64_t got = counter_ext_feed(&e, (start - truth) & 0xFFFF);

		if (got != truth) {
			CHECK_EQ_U64(got, truth);
			return;
		}
	}
	CHECK(truth >> 16 > 10000);
}

TEST(counter_ext_pit_hand)
{
	struct counter_ext e;

	/* PIT at 1,193,182 Hz: 0x0010 -> 0xFFF0 is 0x20 ticks through 0 */
	counter_ext_init(&e, 16, true, 0x0010);
	CHECK_EQ_U64(counter_ext_feed(&e, 0xFFF0), 0x20);
	CHECK_EQ_U64(counter_ext_feed(&e, 0x8000), 0x20 + 0x7FF0);
}

TEST(counter_classify_rules)
{
	uint64_t d = 77;

	CHECK_EQ_U64(counter_step_classify(100, 100, 24, false, &d),
		     COUNTER_STEP_SAME);
	CHECK_EQ_U64(d, 0);
	CHECK_EQ_U64(counter_step_classify(100, 200, 24, false, &d),
		     COUNTER_STEP_FORWARD);
	CHECK_EQ_U64(d, 100);
	CHECK_EQ_U64(counter_step_classify(0xFFFFF0, 0x10, 24, false, &d),
		     COUNTER_STEP_WRAP);
	CHECK_EQ_U64(d, 0x20);
	CHECK_EQ_U64(counter_step_classify(200, 100, 24, false, &d),
		     COUNTER_STEP_BACKWARD);
	CHECK_EQ_U64(d, 100);
	/* a small step back across zero is still a step back, not a wrap */
	CHECK_EQ_U64(counter_step_classify(0x10, 0xFFFFF0, 24, false, &d),
		     COUNTER_STEP_BACKWARD);
	CHECK_EQ_U64(d, 0x20);
}

TEST(counter_classify_half_range_boundary)
{
	uint64_t d;

	CHECK_EQ_U64(counter_step_classify(0, 0x7FFFFF, 24, false, &d),
		     COUNTER_STEP_FORWARD);
	CHECK_EQ_U64(d, 0x7FFFFF);
	CHECK_EQ_U64(counter_step_classify(0, 0x800000, 24, false, &d),
		     COUNTER_STEP_BACKWARD);
	CHECK_EQ_U64(d, 0x800000);
	CHECK_EQ_U64(counter_step_classify(0, 0x7FFFFFFF, 32, false, &d),
		     COUNTER_STEP_FORWARD);
	CHECK_EQ_U64(counter_step_classify(0, 0x80000000u, 32, false, &d),
		     COUNTER_STEP_BACKWARD);
	CHECK_EQ_U64(d, 0x80000000u);
}

TEST(counter_classify_down_and_64)
{
	uint64_t d;

	CHECK_EQ_U64(counter_step_classify(0x0010, 0xFFF0, 16, true, &d),
		     COUNTER_STEP_WRAP);
	CHECK_EQ_U64(d, 0x20);
	CHECK_EQ_U64(counter_step_classify(0x100, 0x80, 16, true, &d),
		     COUNTER_STEP_FORWARD);
	CHECK_EQ_U64(d, 0x80);
	CHECK_EQ_U64(counter_step_classify(0x80, 0x100, 16, true, &d),
		     COUNTER_STEP_BACKWARD);
	CHECK_EQ_U64(d, 0x80);
	CHECK_EQ_U64(counter_step_classify(5, 3, 64, false, &d),
		     COUNTER_STEP_BACKWARD);
	CHECK_EQ_U64(d, 2);
	CHECK_EQ_U64(counter_step_classify(UINT64_MAX, 1, 64, false, &d),
		     COUNTER_STEP_WRAP);
	CHECK_EQ_U64(d, 2);
	CHECK_EQ_U64(counter_step_classify(1, 2, 64, false, NULL),
		     COUNTER_STEP_FORWARD);
}

TEST(counter_classify_stream_with_one_step_back)
{
	/* 24-bit PM-timer-like stream: constant forward steps of 0x123457
	 * ticks, except read 3000 which steps back by 5.  Expected wraps are
	 * counted from the true position: each time floor(pos / 2^24) grows. */
	uint64_t pos = 0xFFF000, prev_raw = pos & 0xFFFFFF;
	uint64_t wraps = 0, backs = 0, back_size = 0, expect_wraps = 0;

	for (uint32_t i = 1; i <= 10000; i++) {
		uint64_t d, prev_pos = pos;

		pos = i == 3000 ? pos - 5 : pos + 0x123457;
		if (pos >> 24 > prev_pos >> 24)
			expect_wraps++;
		uint64_t now = pos & 0xFFFFFF;

		switch (counter_step_classify(prev_raw, now, 24, false, &d)) {
		case COUNTER_STEP_WRAP:
			wraps++;
			break;
		case COUNTER_STEP_BACKWARD:
			backs++;
			back_size = d;
			break;
		default:
			break;
		}
		prev_raw = now;
	}
	CHECK_EQ_U64(backs, 1);
	CHECK_EQ_U64(back_size, 5);
	CHECK_EQ_U64(wraps, expect_wraps);
	/* 9999 steps of 0x123457 = 1,193,047 each: about 711 wraps */
	CHECK(expect_wraps > 700);
}
