/* KVM's PTP pairings on arm64 over recorded rounds (include/arm64.h): each
 * answer decoded as Linux's ptp_kvm reads it, the pairing arithmetic shared
 * with x86's KVM_HC_CLOCK_PAIRING (kvm_pairing_summarize at CNTFRQ), and
 * the check x86's hypercall cannot make: the answer's counter must fall
 * between the guest's own stamps around the call, or the host's view of
 * the virtual counter and the guest's differ. */
#include "arm64.h"
#include "kvm_pv.h"

void arm64_ptp_summarize(const struct arm64_ptp_round *r, uint32_t n, uint64_t hz,
			 struct arm64_ptp_summary *out)
{
	*out = (struct arm64_ptp_summary){0};
	if (n > ARM64_PTP_MAX_ROUNDS)
		n = ARM64_PTP_MAX_ROUNDS;
	struct kvm_pairing_sample s[ARM64_PTP_MAX_ROUNDS];
	uint64_t rt[ARM64_PTP_MAX_ROUNDS];
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		arm64_kvm_ptp_decode(r[i].w, &s[i]);
		if (s[i].ret)
			continue;
		/* Round trips of the answered calls only, sorted below. */
		uint64_t d = r[i].t1 >= r[i].t0 ? r[i].t1 - r[i].t0 : 0;
		uint32_t j = m++;
		for (; j > 0 && rt[j - 1] > d; j--)
			rt[j] = rt[j - 1];
		rt[j] = d;
		int64_t off = 0;
		if (s[i].tsc < r[i].t0)
			off = -(int64_t)(r[i].t0 - s[i].tsc);
		else if (s[i].tsc > r[i].t1)
			off = (int64_t)(s[i].tsc - r[i].t1);
		if (off == 0) {
			out->inside++;
		} else {
			out->outside++;
			uint64_t a = off < 0 ? (uint64_t)-off : (uint64_t)off;
			uint64_t b = out->outside_max_ticks < 0 ? (uint64_t)-out->outside_max_ticks
								: (uint64_t)out->outside_max_ticks;
			if (a > b)
				out->outside_max_ticks = off;
		}
	}
	struct kvm_pairing_summary p;
	kvm_pairing_summarize(&p, s, n, hz);
	out->samples = p.samples;
	out->ok = p.ok;
	out->last_error = p.last_error;
	out->first_offset_ns = p.first_offset_ns;
	out->offset_min_ns = p.offset_min_ns;
	out->offset_max_ns = p.offset_max_ns;
	out->span_ns = p.span_ns;
	out->drift_valid = p.drift_valid;
	out->drift_ppb = p.drift_ppb;
	if (m) {
		out->rt_min_ticks = rt[0];
		out->rt_p50_ticks = rt[(m - 1) / 2];
		out->rt_max_ticks = rt[m - 1];
	}
}
