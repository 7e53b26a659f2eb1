/* KVM's PTP service and PV stolen time (docs/architecture.md,
 * "src/arch/arm64"): what Linux's ptp_kvm (drivers/ptp/ptp_kvm_arm.c) and
 * the steal clock (arch/arm64/kernel/paravirt.c) read, measured beneath
 * the guest.
 *
 * Guard.  Nothing here runs unless smccc.c's discovery chain proved it:
 * the vendor UID was KVM's and its feature bitmap has the PTP bit, or
 * PV_TIME_FEATURES(ST) answered SUCCESS.  Under TCG neither is true (QEMU's
 * PSCI answers PSCI ids only), so the code is exercised on recorded answers
 * (tests/unit/test_arm64_decode.c) and on a KVM host.
 *
 * Deadline.  A call that never comes back can be abandoned only on a CPU
 * the report does not depend on: the calls are made on the first CPU
 * cpus.c starts, which the boot CPU waits for with a counter deadline
 * (A64_KVM_PV_BUDGET_MS on top of its other work); with one CPU they are
 * not made, and the report says so.  The same rule as x86's
 * KVM_HC_CLOCK_PAIRING (src/arch/x86/measure/kvm_pv.c).
 *
 * Pairings.  PTP_ROUNDS calls PTP_SPACING_US apart, each between two
 * ordered counter stamps: the answer's counter must lie between them
 * (arm64_ptp_summarize), and the call's round trip bounds how well the
 * pairing ties the host's CLOCK_REALTIME to the counter.
 *
 * Stolen time.  PV_TIME_ST gives the IPA of this CPU's structure; it is
 * read only where EL1's tables map that page to itself as Normal memory
 * (UEFI maps RAM it knows; the hypervisor's region may be outside it, and
 * then the reason says so), once before the pairings and once after. */
#include "a64.h"
#include "a64_probe.h"
#include "arch_api.h"
/* The report's field writers (pure, shared with x86's report). */
#include "../../report/report_parts.h"
#include "json.h"
#include "kvm_pv.h"
#include "strbuf.h"

#define PTP_ROUNDS 16u
#define PTP_SPACING_US 4000u
#define PTP_BUDGET_MS 150u

static bool ptp_offered(const struct a64_run *r)
{
	return r->smccc.hyp == ARM64_HYP_UID_KVM && r->smccc.kvm.ptp;
}

bool a64_kvm_pv_wanted(const struct a64_run *r)
{
	return !r->kvm_pv.planned && r->cntfrq &&
	       (ptp_offered(r) || (r->smccc.pv_time_called && r->smccc.pv_time.stolen_time));
}

static void stolen_read(const struct a64_run *r, struct arm64_stolen_time *out, uint64_t *t)
{
	const volatile uint64_t *p = (const volatile uint64_t *)(uintptr_t)r->kvm_pv.st_x0;
	uint8_t raw[64];
	/* Eight aligned 64-bit loads: the host updates stolen_time as one. */
	for (unsigned i = 0; i < 8; i++) {
		uint64_t v = p[i];
		for (unsigned b = 0; b < 8; b++)
			raw[8 * i + b] = (uint8_t)(v >> (8 * b));
	}
	*t = tb_stamp_begin(STAMP_FENCE_ISB);
	arm64_stolen_time_decode(raw, out);
}

void a64_kvm_pv_here(struct a64_run *r)
{
	struct a64_kvm_pv *k = &r->kvm_pv;
	/* Published before the first call: a boot CPU that gives up on this
	 * one reads it to tell a lost call from an earlier stall. */
	__atomic_store_n(&k->attempted, true, __ATOMIC_RELEASE);
	k->cpu_mpidr = a64_mpidr();
	bool st = r->smccc.pv_time_called && r->smccc.pv_time.stolen_time;
	if (st) {
		k->st_x0 = a64_smccc_call(&r->smccc, ARM64_SMCCC_HV_PV_TIME_ST, 0).a0;
		uint64_t ipa;
		struct arm64_pt_walk w;
		if (!arm64_pv_time_st_ipa(k->st_x0, &ipa))
			k->st_absent = "PV_TIME_ST gave no 64-byte aligned address";
		else if ((k->st_absent = a64_memory_mapped(r, ipa, &w)) == NULL)
			stolen_read(r, &k->st_before, &k->st_t0);
	} else {
		k->st_absent = "PV_TIME_FEATURES(ST) did not answer SUCCESS";
	}
	if (ptp_offered(r)) {
		uint64_t hz = r->cntfrq;
		uint64_t deadline = tb_now() + hz / 1000u * PTP_BUDGET_MS;
		for (uint32_t i = 0; i < PTP_ROUNDS && i < ARM64_PTP_MAX_ROUNDS; i++) {
			if (tb_now() > deadline) {
				k->deadline_hit = true;
				break;
			}
			struct arm64_ptp_round *q = &k->rounds[i];
			q->t0 = tb_stamp_begin(STAMP_FENCE_ISB);
			struct a64_smccc_res res =
				a64_smccc_call(&r->smccc, ARM64_SMCCC_VENDOR_HYP_KVM_PTP, ARM64_KVM_PTP_VIRT_COUNTER);
			q->t1 = tb_stamp_end(false, STAMP_FENCE_ISB);
			q->w[0] = (uint32_t)res.a0;
			q->w[1] = (uint32_t)res.a1;
			q->w[2] = (uint32_t)res.a2;
			q->w[3] = (uint32_t)res.a3;
			k->rounds_done = i + 1;
			uint64_t next = q->t1 + hz / 1000000u * PTP_SPACING_US;
			while (tb_now() < next && tb_now() <= deadline)
				cpu_relax();
		}
	}
	if (st && !k->st_absent)
		stolen_read(r, &k->st_after, &k->st_t1);
}

void a64_kvm_pv_not_finished(struct a64_run *r)
{
	r->kvm_pv.lost = true;
}

void a64_kvm_pv_finish(struct a64_run *r)
{
	struct a64_kvm_pv *k = &r->kvm_pv;
	if (!r->smccc.uid_called)
		k->absent = "the vendor-hypervisor UID was not asked: the SMCCC chain stopped before it "
			    "(smccc.stopped says where)";
	else if (!ptp_offered(r))
		k->absent = r->smccc.hyp != ARM64_HYP_UID_KVM ? "the vendor-hypervisor UID is not KVM's: no PTP service"
							      : "KVM's feature bitmap has no PTP bit";
	else if (!k->planned)
		k->absent = "not issued: no other CPU started to try it on, and a first call on the boot CPU "
			    "could never be abandoned";
	else if (k->lost)
		k->absent = "the first KVM PTP call on the started CPU did not come back within its deadline: "
			    "that CPU is left there";
	else if (!k->attempted)
		k->absent = "the started CPU did not reach the calls";
	else if (!k->rounds_done)
		k->absent = "the deadline passed before the first call";
	if (k->planned && !k->attempted && !k->st_absent)
		k->st_absent = "the started CPU did not reach the read";
	else if (!k->planned && !k->st_absent)
		k->st_absent = !r->smccc.pv_time_called ? "PV_TIME_FEATURES was not asked: the SMCCC chain stopped "
							  "before it (smccc.stopped says where)"
			       : r->smccc.pv_time.stolen_time ? "not read: no other CPU started to ask PV_TIME_ST on"
							      : "PV_TIME_FEATURES(ST) did not answer SUCCESS";
	if (!k->absent)
		arm64_ptp_summarize(k->rounds, k->rounds_done, r->cntfrq, &k->sum);
}

static void json_ticks_ns(struct json *j, const char *key, uint64_t ticks, uint64_t hz)
{
	json_fixed(j, key, (int64_t)a64_ticks_to_ps(ticks * 1000u, hz), 3);
}

void a64_kvm_pv_json(struct json *j, const struct a64_run *r)
{
	const struct a64_kvm_pv *k = &r->kvm_pv;
	const struct arm64_ptp_summary *s = &k->sum;
	bool m = k->absent == NULL;
	json_object_begin(j, "kvm_ptp");
	json_bool(j, "measured", m);
	json_string(j, "absent", k->absent);
	json_bool(j, "lost_cpu", k->lost);
	hex_or_null_json(j, "cpu_mpidr", k->attempted, k->cpu_mpidr);
	json_u64(j, "calls", k->rounds_done);
	json_u64(j, "answered", m ? s->pair.ok : 0);
	json_string(j, "last_refusal", m && s->pair.last_error ? kvm_hc_result_name(s->pair.last_error) : NULL);
	json_u64(j, "counter_inside_call", m ? s->inside : 0);
	json_u64(j, "counter_outside_call", m ? s->outside : 0);
	if (m && s->outside)
		json_i64(j, "counter_outside_max_ticks", s->outside_max_ticks);
	else
		json_null(j, "counter_outside_max_ticks");
	if (m && s->pair.ok) {
		json_u64(j, "round_trip_ticks_min", s->rt_min_ticks);
		json_u64(j, "round_trip_ticks_p50", s->rt_p50_ticks);
		json_u64(j, "round_trip_ticks_max", s->rt_max_ticks);
		json_ticks_ns(j, "round_trip_ns_min", s->rt_min_ticks, r->cntfrq);
		json_ticks_ns(j, "round_trip_ns_p50", s->rt_p50_ticks, r->cntfrq);
		json_ticks_ns(j, "round_trip_ns_max", s->rt_max_ticks, r->cntfrq);
		json_i64(j, "first_offset_ns", s->pair.first_offset_ns);
		json_i64(j, "offset_min_ns", s->pair.offset_min_ns);
		json_i64(j, "offset_max_ns", s->pair.offset_max_ns);
		json_u64(j, "span_ns", s->pair.span_ns);
	} else {
		static const char *const none[] = {"round_trip_ticks_min", "round_trip_ticks_p50",
						   "round_trip_ticks_max", "round_trip_ns_min", "round_trip_ns_p50",
						   "round_trip_ns_max", "first_offset_ns", "offset_min_ns",
						   "offset_max_ns", "span_ns"};
		for (unsigned i = 0; i < sizeof none / sizeof none[0]; i++)
			json_null(j, none[i]);
	}
	if (m && s->pair.drift_valid)
		json_i64(j, "drift_ppb", s->pair.drift_ppb);
	else
		json_null(j, "drift_ppb");
	json_bool(j, "deadline_hit", k->deadline_hit);
	json_object_end(j);

	bool st = k->st_absent == NULL;
	json_object_begin(j, "stolen_time");
	json_bool(j, "measured", st);
	json_string(j, "absent", k->st_absent);
	hex_or_null_json(j, "st_answer", k->st_x0 != 0, k->st_x0);
	if (st) {
		json_u64(j, "revision", k->st_before.revision);
		json_u64(j, "attributes", k->st_before.attributes);
		json_bool(j, "known_layout", k->st_before.valid && k->st_after.valid);
		json_u64(j, "stolen_ns_before", k->st_before.stolen_ns);
		json_u64(j, "stolen_ns_after", k->st_after.stolen_ns);
		json_ticks_ns(j, "window_ns", k->st_t1 - k->st_t0, r->cntfrq);
	} else {
		static const char *const none[] = {"revision", "attributes", "known_layout", "stolen_ns_before",
						   "stolen_ns_after", "window_ns"};
		for (unsigned i = 0; i < sizeof none / sizeof none[0]; i++)
			json_null(j, none[i]);
	}
	json_object_end(j);
}

void a64_kvm_pv_line(struct strbuf *sb, const struct a64_run *r)
{
	const struct a64_kvm_pv *k = &r->kvm_pv;
	sb_str(sb, "kvm ptp  ");
	if (k->absent) {
		sb_str(sb, "not measured: ");
		sb_str(sb, k->absent);
	} else {
		sb_u64(sb, k->sum.pair.ok);
		sb_str(sb, "/");
		sb_u64(sb, k->rounds_done);
		sb_str(sb, " answered, round trip p50 ");
		sb_u64(sb, k->sum.rt_p50_ticks);
		sb_str(sb, " ticks, counter inside the call ");
		sb_u64(sb, k->sum.inside);
		sb_str(sb, k->sum.pair.drift_valid ? ", host clock against the counter " : "");
		if (k->sum.pair.drift_valid) {
			sb_i64(sb, k->sum.pair.drift_ppb);
			sb_str(sb, " ppb");
		}
	}
}

void a64_stolen_line(struct strbuf *sb, const struct a64_run *r)
{
	const struct a64_kvm_pv *k = &r->kvm_pv;
	sb_str(sb, "stolen   ");
	if (k->st_absent) {
		sb_str(sb, "not read: ");
		sb_str(sb, k->st_absent);
	} else {
		if (k->st_after.stolen_ns < k->st_before.stolen_ns) {
			sb_str(sb, "went backwards over the pairings (the host reset it)");
		} else {
			sb_u64(sb, k->st_after.stolen_ns - k->st_before.stolen_ns);
			sb_str(sb, " ns stolen over the pairings");
		}
	}
}
