/* The arm64 decoders (src/decode/arm64_cpu.c, arm64_smccc.c) on recorded
 * values: tests/fixtures/arm64/registers.txt (MIDRs from real guests and
 * Linux's tables, CNTFRQ cases) and smccc.txt (firmware answers), each
 * line carrying its own expectation. */
#include "check.h"
#include "arm64.h"
#include "kvm_pv.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t codes_to_bits(const char *codes)
{
	uint32_t bits = 0;
	if (!strcmp(codes, "-"))
		return 0;
	for (unsigned b = 0; b < ARM64_ERRATA_COUNT; b++)
		if (strstr(codes, arm64_erratum_code(b)))
			bits |= 1u << b;
	return bits;
}

static FILE *fixture(const char *name)
{
	char path[128];
	snprintf(path, sizeof path, "tests/fixtures/arm64/%s", name);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	return f;
}

TEST(midr_lines)
{
	FILE *f = fixture("registers.txt");
	char line[256], codes[64], src[96];
	unsigned n = 0;
	unsigned long v, imp, var, part, rev;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "midr %lx %lx %lx %lx %lx %63s %95s", &v, &imp, &var, &part, &rev, codes, src) != 7)
			continue;
		struct arm64_midr m;
		arm64_midr_decode((uint32_t)v, &m);
		CHECK_EQ_U64(m.implementer, imp);
		CHECK_EQ_U64(m.variant, var);
		CHECK_EQ_U64(m.part, part);
		CHECK_EQ_U64(m.revision, rev);
		CHECK_EQ_U64(arm64_errata_from_midr((uint32_t)v), codes_to_bits(codes));
		n++;
	}
	if (f)
		fclose(f);
	CHECK(n >= 10);
}

static size_t split_u64(const char *s, uint64_t *out, size_t cap)
{
	size_t n = 0;
	while (*s && n < cap) {
		char *end;
		out[n++] = strtoull(s, &end, 0);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s != ',')
			break;
	}
	return n;
}

TEST(cntfrq_lines)
{
	FILE *f = fixture("registers.txt");
	char line[256], list[128];
	unsigned long long dt, meas, unc, lhz;
	int zero, differs, over, dis;
	long long ppm;
	unsigned n = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "cntfrq %127s %llu %llu %llu %d %d %d %llu %lld %d", list, &dt, &meas, &unc, &zero,
			   &differs, &over, &lhz, &ppm, &dis) != 10)
			continue;
		uint64_t per[8];
		size_t k = split_u64(list, per, 8);
		struct arm64_cntfrq_check c;
		arm64_cntfrq_judge(per, k, dt, meas, unc, &c);
		CHECK_EQ_U64(c.zero, (unsigned)zero);
		CHECK_EQ_U64(c.differs_across_cpus, (unsigned)differs);
		CHECK_EQ_U64(c.firmware_overrides, (unsigned)over);
		CHECK_EQ_U64(c.linux_hz, lhz);
		CHECK_EQ_I64(c.measured_ppm, ppm);
		CHECK_EQ_U64(c.measured_disagrees, (unsigned)dis);
		CHECK_EQ_U64(c.measured, meas && lhz);
		n++;
	}
	if (f)
		fclose(f);
	CHECK(n >= 5);
}

TEST(smccc_lines)
{
	FILE *f = fixture("smccc.txt");
	char line[256], word[32];
	unsigned long w[4], x[4], cnt;
	int a, b, c;
	unsigned n = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "version %lx %d %d %d", &w[0], &a, &b, &c) == 4) {
			struct arm64_version v;
			arm64_version_decode((uint32_t)w[0], &v);
			CHECK_EQ_U64(v.known, (unsigned)a);
			CHECK_EQ_U64(v.major, (unsigned)b);
			CHECK_EQ_U64(v.minor, (unsigned)c);
			n++;
		} else if (sscanf(line, "uid %lx %lx %lx %lx %31s", &w[0], &w[1], &w[2], &w[3], word) == 5) {
			uint32_t r[4] = {(uint32_t)w[0], (uint32_t)w[1], (uint32_t)w[2], (uint32_t)w[3]};
			CHECK(!strcmp(arm64_hyp_uid_name(arm64_hyp_uid_decode(r)), word));
			n++;
		} else if (sscanf(line, "kvm_features %31s %lx %d %d", word, &w[0], &a, &b) == 4) {
			struct arm64_kvm_features k;
			enum arm64_hyp_uid u = !strcmp(word, "kvm") ? ARM64_HYP_UID_KVM : ARM64_HYP_UID_OTHER;
			arm64_kvm_features_decode(u, (uint32_t)w[0], &k);
			CHECK_EQ_U64(k.features, (unsigned)a);
			CHECK_EQ_U64(k.ptp, (unsigned)b);
			n++;
		} else if (sscanf(line, "ptp %lx %lx %lx %lx %31s %d %d %lx", &x[0], &x[1], &x[2], &x[3], word, &a,
				  &b, &cnt) == 8) {
			uint32_t r[4] = {(uint32_t)x[0], (uint32_t)x[1], (uint32_t)x[2], (uint32_t)x[3]};
			struct kvm_pairing_sample ps;
			arm64_kvm_ptp_decode(r, &ps);
			CHECK(!strcmp(kvm_hc_result_name(ps.ret), word));
			CHECK_EQ_U64((uint64_t)ps.sec, (uint64_t)a);
			CHECK_EQ_U64((uint64_t)ps.nsec, (uint64_t)b);
			CHECK_EQ_U64(ps.tsc, (uint64_t)cnt);
			n++;
		} else if (sscanf(line, "pv_st %lx %d", &w[0], &a) == 2) {
			uint64_t ipa = 0;
			CHECK_EQ_U64(arm64_pv_time_st_ipa((uint64_t)w[0], &ipa), (unsigned)a);
			if (a)
				CHECK_EQ_U64(ipa, (uint64_t)w[0]);
			n++;
		} else if (sscanf(line, "stolen %d %d %lx %d", &a, &b, &w[0], &c) == 4) {
			uint8_t raw[64] = {0};
			for (unsigned i = 0; i < 4; i++) {
				raw[i] = (uint8_t)((unsigned)a >> (8 * i));
				raw[4 + i] = (uint8_t)((unsigned)b >> (8 * i));
			}
			for (unsigned i = 0; i < 8; i++)
				raw[8 + i] = (uint8_t)((uint64_t)w[0] >> (8 * i));
			struct arm64_stolen_time st;
			arm64_stolen_time_decode(raw, &st);
			CHECK_EQ_U64(st.revision, (unsigned)a);
			CHECK_EQ_U64(st.attributes, (unsigned)b);
			CHECK_EQ_U64(st.stolen_ns, (uint64_t)w[0]);
			CHECK_EQ_U64(st.valid, (unsigned)c);
			n++;
		} else if (sscanf(line, "pv_time %lx %lx %d %d", &w[0], &w[1], &a, &b) == 4) {
			struct arm64_pv_time p;
			arm64_pv_time_decode((uint32_t)w[0], (uint32_t)w[1], &p);
			CHECK_EQ_U64(p.features_implemented, (unsigned)a);
			CHECK_EQ_U64(p.stolen_time, (unsigned)b);
			n++;
		}
	}
	if (f)
		fclose(f);
	CHECK(n >= 25);
}

/* The PTP pairing through the x86 pairing's summary, at CNTFRQ: a host
 * clock 1,000 ns ahead after 10 ms of counter shows as +99,990 ppb (the
 * change over the host's own span, 10.001 ms, as for KVM's x86 pairing);
 * an answer the host refused counts as an error, not a
 * sample. */
TEST(ptp_pairing_summary)
{
	const uint64_t hz = 62500000u, t0 = 1780000000000000000ull, c0 = 1000000u;
	struct kvm_pairing_sample s[3];
	uint64_t ns[2] = {t0, t0 + 10000000u + 1000u};          /* 10 ms + 100 ppm */
	uint64_t cnt[2] = {c0, c0 + hz / 100u};                 /* 10 ms of counter */
	for (unsigned i = 0; i < 2; i++) {
		uint32_t r[4] = {(uint32_t)(ns[i] >> 32), (uint32_t)ns[i], (uint32_t)(cnt[i] >> 32), (uint32_t)cnt[i]};
		arm64_kvm_ptp_decode(r, &s[i]);
	}
	uint32_t bad[4] = {0xffffffffu, 0, 0, 0};
	arm64_kvm_ptp_decode(bad, &s[2]);
	struct kvm_pairing_summary sum;
	kvm_pairing_summarize(&sum, s, 3, hz);
	CHECK_EQ_U64(sum.samples, 3);
	CHECK_EQ_U64(sum.ok, 2);
	CHECK(!strcmp(kvm_hc_result_name(sum.last_error), "eopnotsupp"));
	CHECK(sum.drift_valid);
	CHECK_EQ_U64((uint64_t)sum.drift_ppb, 99990u);
	CHECK_EQ_U64(sum.span_ns, 10001000u);
}

/* Rounds as KVM's kvm_ptp_get_time() would answer them at 62.5 MHz: the
 * host's realtime = a base + counter time, the counter taken inside the
 * guest's stamps (t0 + 3 ticks of a 10-tick call), 4 ms apart; one round
 * answered with a counter 1000 ticks past its own t1 (an offset the host
 * does not share), one refused. */
TEST(ptp_rounds)
{
	const uint64_t hz = 62500000u, base = 1780000000000000000ull;
	struct arm64_ptp_round r[6];
	for (unsigned i = 0; i < 6; i++) {
		uint64_t t0 = 5000000u + i * 250000u, c = t0 + 3, ns = base + c * 16u;
		r[i] = (struct arm64_ptp_round){.t0 = t0, .t1 = t0 + 10u + i,
						.w = {(uint32_t)(ns >> 32), (uint32_t)ns, (uint32_t)(c >> 32), (uint32_t)c}};
	}
	uint64_t moved = r[4].t1 + 996u;	/* 996 ticks past the call's own t1 */
	r[4].w[2] = (uint32_t)(moved >> 32);
	r[4].w[3] = (uint32_t)moved;
	r[5].w[0] = 0xffffffffu;	/* refused: NOT_SUPPORTED */
	struct arm64_ptp_summary sum;
	arm64_ptp_summarize(r, 6, hz, &sum);
	CHECK_EQ_U64(sum.pair.samples, 6);
	CHECK_EQ_U64(sum.pair.ok, 5);
	CHECK_EQ_U64(sum.inside, 4);
	CHECK_EQ_U64(sum.outside, 1);
	CHECK_EQ_U64((uint64_t)sum.outside_max_ticks, 996u);
	CHECK(!strcmp(kvm_hc_result_name(sum.pair.last_error), "eopnotsupp"));
	/* Round trips of the five answered calls: 10..14 ticks. */
	CHECK_EQ_U64(sum.rt_min_ticks, 10);
	CHECK_EQ_U64(sum.rt_p50_ticks, 12);
	CHECK_EQ_U64(sum.rt_max_ticks, 14);
	/* Host time is counter time plus the base exactly, but for the moved
	 * round, whose counter time is 1,007 ticks (16,112 ns) later: the
	 * offsets span that, over 4 rounds of 4 ms of host time. */
	CHECK(sum.pair.drift_valid);
	CHECK_EQ_U64((uint64_t)sum.pair.first_offset_ns, base);
	CHECK_EQ_U64((uint64_t)sum.pair.offset_max_ns, base);
	CHECK_EQ_U64((uint64_t)sum.pair.offset_min_ns, base - 16112u);
	CHECK_EQ_U64(sum.pair.span_ns, 4u * 4000000u);
}

TEST(dt_and_acpi_errata)
{
	CHECK_EQ_U64(arm64_errata_from_dt_property("fsl,erratum-a008585"), ARM64_ERRATUM_FSL_A008585);
	CHECK_EQ_U64(arm64_errata_from_dt_property("hisilicon,erratum-161010101"), ARM64_ERRATUM_HISI_161010101);
	CHECK_EQ_U64(arm64_errata_from_dt_property("allwinner,erratum-unknown1"), ARM64_ERRATUM_SUN50I_UNKNOWN1);
	CHECK_EQ_U64(arm64_errata_from_dt_property("allwinner,erratum-unknown2"), 0);
	CHECK_EQ_U64(arm64_errata_from_dt_property(NULL), 0);
	/* The GTDT header of a D05 (HIP07) as Linux matches it. */
	CHECK_EQ_U64(arm64_errata_from_acpi_oem("HISI  ", "HIP07   ", 0), ARM64_ERRATUM_HISI_161010101);
	CHECK_EQ_U64(arm64_errata_from_acpi_oem("HISI  ", "HIP05   ", 0), ARM64_ERRATUM_HISI_161010101);
	/* HIP08 (Kunpeng 920) is not affected; revision must be 0. */
	CHECK_EQ_U64(arm64_errata_from_acpi_oem("HISI  ", "HIP08   ", 0), 0);
	CHECK_EQ_U64(arm64_errata_from_acpi_oem("HISI  ", "HIP07   ", 1), 0);
	CHECK_EQ_U64(arm64_errata_from_acpi_oem("BOCHS ", "BXPC    ", 0), 0);
}

TEST(ecv_levels)
{
	struct arm64_ecv e;
	arm64_ecv_decode(0, &e);
	CHECK(!e.cntvctss && !e.cntpoff && e.level == 0);
	arm64_ecv_decode(1ull << 60, &e);
	CHECK(e.cntvctss && !e.cntpoff);
	arm64_ecv_decode(2ull << 60 | 0x0ffffffffull, &e);
	CHECK(e.cntvctss && e.cntpoff && e.level == 2);
}

TEST(names)
{
	CHECK(!strcmp(arm64_midr_name(0x410fd090), "Arm Cortex-A73"));
	CHECK(arm64_midr_name(0x000f0510) == NULL);
	CHECK(arm64_erratum_code(ARM64_ERRATA_COUNT) == NULL);
	CHECK(!strcmp(arm64_erratum_name(2), "ARM erratum 858921"));
}
