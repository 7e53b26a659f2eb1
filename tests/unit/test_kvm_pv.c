/* KVM clock pairing and steal time, pure half (src/lib/kvm_pv.c).  No
 * KVM here to record from: the values are CONSTRUCTED from the ABI
 * (hypercalls.rst, kvm_para.h, x86.c kvm_pv_clock_pairing) -- pairings as
 * a host at a known realtime and TSC rate would return them, and the
 * error KVM returns when its own clocksource is not the TSC (a nested
 * KVM whose L1 runs on kvm-clock: -KVM_EOPNOTSUPP). */
#include "check.h"
#include "kvm_pv.h"

TEST(layouts_are_the_abis)
{
	CHECK_EQ_U64(sizeof(struct kvm_clock_pairing), 64);
	CHECK_EQ_U64(sizeof(struct kvm_steal_time), 64);
	CHECK_EQ_U64(__builtin_offsetof(struct kvm_clock_pairing, tsc), 16);
	CHECK_EQ_U64(__builtin_offsetof(struct kvm_clock_pairing, flags), 24);
	CHECK_EQ_U64(__builtin_offsetof(struct kvm_steal_time, version), 8);
	CHECK_EQ_U64(__builtin_offsetof(struct kvm_steal_time, preempted), 16);
}

TEST(result_codes_named)
{
	CHECK_STR(kvm_hc_result_name(0), "ok");
	CHECK_STR(kvm_hc_result_name((uint64_t)-95), "eopnotsupp");
	CHECK_STR(kvm_hc_result_name((uint64_t)-14), "efault");
	CHECK_STR(kvm_hc_result_name((uint64_t)-1000), "enosys");
	CHECK_STR(kvm_hc_result_name((uint64_t)-1), "eperm");
	CHECK_STR(kvm_hc_result_name(12345), "unknown");
}

/* A host at 2026-01-01T00:00:00.5 when the guest TSC read 10^12 at
 * 2.5 GHz (400 s of TSC time): offset = realtime - 400 s.  Ten pairings
 * 1 ms apart in host time, the TSC 1 ms + 20 ns apart each (the TSC
 * 20 ppm fast against the host at the measured rate): offset falls by
 * 20 ns per pairing, drift -20,000 ppb. */
TEST(pairing_offset_and_drift)
{
	struct kvm_pairing_sample s[10];
	const uint64_t hz = 2500000000ull;
	for (int i = 0; i < 10; i++) {
		s[i].ret = 0;
		s[i].sec = 1767225600;
		s[i].nsec = 500000000 + i * 1000000;
		s[i].tsc = 1000000000000ull + (uint64_t)i * (2500000 + 50); /* 1 ms + 20 ns of TSC */
	}
	struct kvm_pairing_summary p;
	kvm_pairing_summarize(&p, s, 10, hz);
	CHECK_EQ_U64(p.samples, 10);
	CHECK_EQ_U64(p.ok, 10);
	CHECK_EQ_U64(p.last_error, 0);
	CHECK_EQ_I64(p.first_offset_ns, (1767225600ll - 400) * 1000000000ll + 500000000);
	CHECK_EQ_I64(p.offset_max_ns - p.offset_min_ns, 9 * 20);
	CHECK_EQ_U64(p.span_ns, 9000000);
	CHECK(p.drift_valid);
	CHECK_EQ_I64(p.drift_ppb, -20000);
}

/* The nested case: every pairing refused.  And one refusal among good
 * ones is named but does not spoil the others. */
TEST(pairing_refused)
{
	struct kvm_pairing_sample s[3] = {
		{ (uint64_t)-KVM_EOPNOTSUPP, 0, 0, 0 },
		{ (uint64_t)-KVM_EOPNOTSUPP, 0, 0, 0 },
		{ (uint64_t)-KVM_EOPNOTSUPP, 0, 0, 0 },
	};
	struct kvm_pairing_summary p;
	kvm_pairing_summarize(&p, s, 3, 2500000000ull);
	CHECK_EQ_U64(p.ok, 0);
	CHECK_STR(kvm_hc_result_name(p.last_error), "eopnotsupp");
	CHECK(!p.drift_valid);
	s[1] = (struct kvm_pairing_sample){ 0, 100, 0, 2500000000ull };
	kvm_pairing_summarize(&p, s, 3, 2500000000ull);
	CHECK_EQ_U64(p.ok, 1);
	CHECK_EQ_I64(p.first_offset_ns, 99000000000ll);
	CHECK(!p.drift_valid); /* one pairing: no span */
	/* Two pairings under 1 ms apart: a span, but no drift figure. */
	s[2] = (struct kvm_pairing_sample){ 0, 100, 500000, 2500000000ull + 1250000 };
	kvm_pairing_summarize(&p, s, 3, 2500000000ull);
	CHECK_EQ_U64(p.span_ns, 500000);
	CHECK(!p.drift_valid);
}

TEST(steal_read_and_explain)
{
	struct kvm_steal_time st = { .steal = 123456789, .version = 4 };
	uint64_t v = 0;
	CHECK(kvm_steal_read(&st, &v, 10));
	CHECK_EQ_U64(v, 123456789);
	st.version = 5; /* the host is writing it */
	CHECK(!kvm_steal_read(&st, &v, 10));

	/* 250 ms window, gaps totalling 40 ms, 30 ms of it stolen: 75 %. */
	struct kvm_steal_window w = { 0 };
	kvm_steal_explain(&w, 1000000000ull, 1030000000ull, 40000000ull, 250000000ull);
	CHECK(w.measured);
	CHECK_EQ_U64(w.steal_ns, 30000000);
	CHECK_EQ_U64(w.explained_ppm, 750000);
	CHECK_EQ_U64(w.window_share_ppm, 120000);
	/* Steal the scan could not see as gaps (each under its threshold). */
	kvm_steal_explain(&w, 0, 5000000, 0, 250000000ull);
	CHECK_EQ_U64(w.explained_ppm, 0);
	CHECK_EQ_U64(w.window_share_ppm, 20000);
	kvm_steal_explain(&w, 10, 5, 0, 1);
	CHECK(!w.measured);
	CHECK_STR(w.reason, "the steal counter went backwards during the window");
}
