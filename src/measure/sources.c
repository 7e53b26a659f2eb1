/* Every clock source through the engine: behaviour first (a counter that
 * never moves is an error, not a cost), then the read cost and whatever
 * the source measures beyond it; each source's facts collected again
 * before the report, and every source handed back at the end.  Knows the
 * sources only through struct clock_source. */
#include "measure.h"
#include "results.h"

void measure_source(const struct measure_ctx *ctx, struct source_result *s)
{
	if (s->status == SOURCE_OK) {
		/* A page of state (VMClock) has no count to move: its read is
		 * measured, its behaviour is not tested. */
		if (!s->desc.state_only)
			measure_behaviour(ctx, &s->behaviour, &s->desc);
		if (s->behaviour.frozen) {
			s->status = SOURCE_ERROR;
			str_copy(s->desc.reason, sizeof s->desc.reason, "counter never moved during the behaviour test");
		} else {
			measure_op(ctx, &s->cost, s->desc.read);
		}
	}
	if (s->status == SOURCE_OK && s->src->measure_extra)
		s->src->measure_extra(ctx);
	if (s->src->collect)
		s->src->collect(&s->facts);
}

void sources_collect(struct run_results *r)
{
	for (unsigned i = 0; i < r->source_count; i++)
		if (r->sources[i].src->collect)
			r->sources[i].src->collect(&r->sources[i].facts);
}

void sources_release(struct run_results *r)
{
	for (unsigned i = 0; i < r->source_count; i++)
		if (r->sources[i].src->finish)
			r->sources[i].src->finish();
}
