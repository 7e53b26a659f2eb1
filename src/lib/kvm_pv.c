/* KVM clock pairing and steal time over recorded values (include/kvm_pv.h). */
#include "kvm_pv.h"
#include "rate.h"

const char *kvm_hc_result_name(uint64_t rax)
{
	if (rax == 0)
		return "ok";
	switch ((int64_t)rax) {
	case -KVM_ENOSYS: return "enosys";
	case -KVM_EOPNOTSUPP: return "eopnotsupp";
	case -KVM_EFAULT: return "efault";
	case -KVM_EPERM: return "eperm";
	case -KVM_EINVAL: return "einval";
	case -KVM_E2BIG: return "e2big";
	}
	return "unknown";
}

static int64_t offset_ns(const struct kvm_pairing_sample *s, uint64_t tsc_hz)
{
	/* CLOCK_REALTIME in ns fits int64 until 2262; the TSC in ns at the
	 * measured rate fits while the TSC counts under 292 years. */
	int64_t host = s->sec * 1000000000ll + s->nsec;
	int64_t guest = (int64_t)mul_div_u64(s->tsc, 1000000000ull, tsc_hz);
	return host - guest;
}

void kvm_pairing_summarize(struct kvm_pairing_summary *out, const struct kvm_pairing_sample *s, uint32_t n,
			   uint64_t tsc_hz)
{
	memset(out, 0, sizeof *out);
	out->samples = n;
	const struct kvm_pairing_sample *first = NULL, *last = NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].ret) {
			out->last_error = s[i].ret;
			continue;
		}
		out->ok++;
		if (!tsc_hz)
			continue;
		int64_t off = offset_ns(&s[i], tsc_hz);
		if (!first) {
			first = &s[i];
			out->first_offset_ns = out->offset_min_ns = out->offset_max_ns = off;
		}
		out->offset_min_ns = MIN(out->offset_min_ns, off);
		out->offset_max_ns = MAX(out->offset_max_ns, off);
		last = &s[i];
	}
	if (!first || last == first)
		return;
	int64_t span = (last->sec - first->sec) * 1000000000ll + (last->nsec - first->nsec);
	if (span <= 0)
		return;
	out->span_ns = (uint64_t)span;
	/* Under 1 ms the TSC's and the host clock's own resolution dominate. */
	if (span < 1000000)
		return;
	int64_t change = offset_ns(last, tsc_hz) - offset_ns(first, tsc_hz);
	uint64_t mag = change < 0 ? (uint64_t)-change : (uint64_t)change;
	int64_t ppb = (int64_t)mul_div_u64(mag, 1000000000ull, (uint64_t)span);
	out->drift_ppb = change < 0 ? -ppb : ppb;
	out->drift_valid = true;
}

bool kvm_steal_read(const volatile struct kvm_steal_time *st, uint64_t *steal, uint32_t max_tries)
{
	for (uint32_t t = 0; t < max_tries; t++) {
		uint32_t v1 = st->version;
		BARRIER();
		uint64_t value = st->steal;
		BARRIER();
		if (!(v1 & 1) && st->version == v1) {
			*steal = value;
			return true;
		}
	}
	return false;
}

void kvm_steal_explain(struct kvm_steal_window *w, uint64_t steal_before, uint64_t steal_after,
		       uint64_t gap_total_ns, uint64_t window_ns)
{
	w->measured = true;
	w->reason = NULL;
	/* The counter only grows; a smaller value is a host that reset it
	 * (re-registration, migration): nothing to explain with. */
	if (steal_after < steal_before) {
		w->measured = false;
		w->reason = "the steal counter went backwards during the window";
		return;
	}
	w->steal_ns = steal_after - steal_before;
	w->gap_total_ns = gap_total_ns;
	w->explained_ppm = gap_total_ns ? mul_div_u64(w->steal_ns, 1000000ull, gap_total_ns) : 0;
	w->window_share_ppm = window_ns ? mul_div_u64(w->steal_ns, 1000000ull, window_ns) : 0;
}
