/* KVM's PTP pairings on arm64 over recorded rounds (include/arm64.h): each
 * answer decoded as Linux's ptp_kvm reads it, the pairing arithmetic shared
 * with x86's KVM_HC_CLOCK_PAIRING (kvm_pairing_summarize at CNTFRQ), and
 * the check x86's hypercall cannot make: the answer's counter must fall
 * between the guest's own stamps around the call, or the host's view of
 * the virtual counter and the guest's differ. */
#include "arm64.h"
#include "kvm_pv.h"
#include "stats.h"

void arm64_ptp_summarize(const struct arm64_ptp_round *r, uint32_t n, uint64_t hz,
			 struct arm64_ptp_summary *out)
{
	*out = (struct arm64_ptp_summary){0};
	if (n > ARM64_PTP_MAX_ROUNDS)
		n = ARM64_PTP_MAX_ROUNDS;
	struct kvm_pairing_sample s[ARM64_PTP_MAX_ROUNDS] = {0};
	uint64_t rt[ARM64_PTP_MAX_ROUNDS];
	uint32_t m = 0;
	uint64_t worst = 0;
	for (uint32_t i = 0; i < n; i++) {
		arm64_kvm_ptp_decode(r[i].w, &s[i]);
		if (s[i].ret)
			continue;
		rt[m++] = r[i].t1 >= r[i].t0 ? r[i].t1 - r[i].t0 : 0;
		/* The host's counter is the host's to give: its distance from
		 * the call, unsigned, saturated before it takes a sign. */
		bool below = s[i].tsc < r[i].t0, above = s[i].tsc > r[i].t1;
		if (!below && !above) {
			out->inside++;
			continue;
		}
		out->outside++;
		uint64_t d = below ? r[i].t0 - s[i].tsc : s[i].tsc - r[i].t1;
		if (d > worst) {
			worst = d;
			int64_t mag = d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
			out->outside_max_ticks = below ? -mag : mag;
		}
	}
	kvm_pairing_summarize(&out->pair, s, n, hz);
	stats_sort_u64(rt, m);
	if (m) {
		out->rt_min_ticks = rt[0];
		out->rt_p50_ticks = stats_percentile_sorted(rt, m, STATS_P50);
		out->rt_max_ticks = rt[m - 1];
	}
}
