#include "measure.h"
#include "source.h"
#include "arch_api.h"

uint64_t measure_stamp(const struct measure_ctx *ctx, const struct source_desc *d, unsigned tries,
		       uint64_t *tsc_mid, uint64_t *bracket)
{
	uint64_t best_raw = 0, best_mid = 0, best_width = UINT64_MAX;
	for (unsigned i = 0; i < tries; i++) {
		bool was_on = irq_save();
		uint64_t a = tb_ordered(ctx->read);
		uint64_t v = d->read();
		uint64_t b = tb_ordered(ctx->read);
		irq_restore(was_on);
		if (b - a < best_width) {
			best_width = b - a;
			best_mid = a + (b - a) / 2;
			best_raw = v;
		}
	}
	*tsc_mid = best_mid;
	*bracket = best_width;
	return best_raw;
}
