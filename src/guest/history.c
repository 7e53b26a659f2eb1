/* Keeping the kernel log's clock lines within a fixed list (guest.h,
 * history_slot).  Pure. */
#include "guest.h"

#define KEEP_FIRST (GUEST_MAX_LINES / 2)
#define RING (GUEST_MAX_LINES - KEEP_FIRST)

struct klog_line *history_slot(struct guest_results *r, uint32_t *ring_next)
{
	if (r->n_lines < GUEST_MAX_LINES)
		return &r->lines[r->n_lines++];
	r->lines_dropped++;
	struct klog_line *l = &r->lines[KEEP_FIRST + *ring_next];
	*ring_next = (*ring_next + 1) % RING;
	return l;
}

static void reverse(struct klog_line *a, uint32_t n)
{
	for (uint32_t i = 0; i < n / 2; i++) {
		struct klog_line t = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = t;
	}
}

void history_finish(struct guest_results *r, uint32_t ring_next)
{
	if (!r->lines_dropped || !ring_next)
		return;
	/* The ring's oldest line sits at ring_next: rotate it to the front
	 * (three reversals, in place). */
	struct klog_line *ring = &r->lines[KEEP_FIRST];
	reverse(ring, ring_next);
	reverse(ring + ring_next, RING - ring_next);
	reverse(ring, RING);
}
