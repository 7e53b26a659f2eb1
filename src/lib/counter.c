#include "counter.h"

uint64_t counter_mask(unsigned width)
{
	if (width == 0 || width >= 64)
		return UINT64_MAX;
	return ((uint64_t)1 << width) - 1;
}

uint64_t counter_delta(uint64_t prev, uint64_t now, unsigned width)
{
	return (now - prev) & counter_mask(width);
}

uint64_t counter_delta_down(uint64_t prev, uint64_t now, unsigned width)
{
	return (prev - now) & counter_mask(width);
}

void counter_ext_init(struct counter_ext *e, unsigned width, bool counts_down,
		      uint64_t first_raw)
{
	e->mask = counter_mask(width);
	e->last_raw = first_raw & e->mask;
	e->ticks = 0;
	e->counts_down = counts_down;
}

uint64_t counter_ext_feed(struct counter_ext *e, uint64_t raw)
{
	uint64_t now = raw & e->mask;
	uint64_t step = e->counts_down ? e->last_raw - now : now - e->last_raw;

	e->ticks += step & e->mask;
	e->last_raw = now;
	return e->ticks;
}

enum counter_step counter_step_classify(uint64_t prev, uint64_t now,
					unsigned width, bool counts_down,
					uint64_t *distance)
{
	uint64_t mask = counter_mask(width);
	uint64_t half = (mask >> 1) + 1;
	uint64_t d;
	enum counter_step step;

	prev &= mask;
	now &= mask;
	d = counts_down ? counter_delta_down(prev, now, width) :
			  counter_delta(prev, now, width);
	if (d == 0) {
		step = COUNTER_STEP_SAME;
	} else if (d < half) {
		/* Passing through zero flips the raw order. */
		bool wrapped = counts_down ? now > prev : now < prev;

		step = wrapped ? COUNTER_STEP_WRAP : COUNTER_STEP_FORWARD;
	} else {
		step = COUNTER_STEP_BACKWARD;
		d = (mask - d) + 1;
	}
	if (distance)
		*distance = d;
	return step;
}
