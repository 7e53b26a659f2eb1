/* arm64 facts, decoded from recorded register values and firmware answers
 * (src/decode/arm64_cpu.c, src/decode/arm64_smccc.c): pure functions over
 * numbers, shared by the decoders and the arm64 verdict
 * (src/verdict/arm64.c), so a recorded MIDR or SMCCC answer is judged the
 * same way wherever it came from (the arm64 probe, clockprobe-guest, a
 * fixture).  Public like cpuid.h: the verdict may read include/ only. */
#ifndef CP_ARM64_H
#define CP_ARM64_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kvm_pv.h"

/* ---------------------------------------------------------------- MIDR */

/* MIDR_EL1's fields (Arm ARM D17.2.100). */
struct arm64_midr {
	uint8_t implementer;	/* [31:24]: 0x41 Arm, 0x48 HiSilicon, ... */
	uint8_t variant;	/* [23:20]: the r of rNpM */
	uint8_t architecture;	/* [19:16]: 0xf = by ID registers */
	uint16_t part;		/* [15:4] */
	uint8_t revision;	/* [3:0]: the p of rNpM */
};

void arm64_midr_decode(uint32_t midr, struct arm64_midr *out);
/* "Arm Cortex-A73" and the like, or NULL for a part not in the table. */
const char *arm64_midr_name(uint32_t midr);

/* ------------------------------------------------------------- errata */

/* The counter errata Linux's drivers/clocksource/arm_arch_timer.c (and
 * arch/arm64/kernel/cpu_errata.c for 1418040) works around, one bit each.
 * How each is matched and what it costs a guest: docs/verdict-rules.md,
 * "arm64". */
enum arm64_erratum {
	ARM64_ERRATUM_FSL_A008585 = 1u << 0,	 /* DT "fsl,erratum-a008585" */
	ARM64_ERRATUM_HISI_161010101 = 1u << 1, /* DT, or the GTDT's OEM ids */
	ARM64_ERRATUM_ARM_858921 = 1u << 2,	 /* MIDR: Cortex-A73, any revision */
	ARM64_ERRATUM_SUN50I_UNKNOWN1 = 1u << 3, /* DT "allwinner,erratum-unknown1" */
	ARM64_ERRATUM_ARM_1418040 = 1u << 4,	 /* MIDR: Cortex-A76 / Neoverse-N1 r0p0..r3p1 */
};
#define ARM64_ERRATA_COUNT 5
/* The erratum's name as Linux prints it ("ARM erratum 858921"). */
const char *arm64_erratum_name(unsigned bit_index);
/* The short code used in reports and fixtures ("arm_858921"). */
const char *arm64_erratum_code(unsigned bit_index);

/* Errata one CPU's MIDR matches (ARM64_ERRATUM_ARM_858921 / _1418040). */
uint32_t arm64_errata_from_midr(uint32_t midr);

/* Device-tree properties of the timer node that name an erratum. */
uint32_t arm64_errata_from_dt_property(const char *name);

/* The GTDT's header ids (ACPI: OEM ID 6 bytes, OEM table ID 8 bytes, both
 * space-padded, and the OEM revision), matched as
 * arch_timer_check_acpi_oem_erratum() does: all three exactly. */
uint32_t arm64_errata_from_acpi_oem(const char oem_id[6], const char oem_table_id[8], uint32_t oem_revision);

/* ------------------------------------------------------- ID registers */

/* ID_AA64MMFR0_EL1.ECV, [63:60]: 0 none, 1 FEAT_ECV (CNTVCTSS_EL0 and
 * CNTPCTSS_EL0, the self-synchronising counters), 2 also CNTPOFF_EL2
 * (FEAT_ECV_POFF: a physical offset a hypervisor can apply instead of
 * trapping CNTPCT). */
struct arm64_ecv {
	uint8_t level;
	bool cntvctss;		/* level >= 1 */
	bool cntpoff;		/* level >= 2 */
};
void arm64_ecv_decode(uint64_t id_aa64mmfr0, struct arm64_ecv *out);

/* CNTFRQ_EL0 judged: every CPU's value, the firmware's (a DT
 * "clock-frequency" on the timer node; 0 = none given), and a measured
 * rate with its uncertainty (0 = not measured). */
struct arm64_cntfrq_check {
	uint64_t hz;			/* CPU 0's CNTFRQ_EL0 */
	bool zero;			/* CPU 0 reads 0: firmware never set it */
	bool differs_across_cpus;	/* some CPU reads another value */
	bool firmware_overrides;	/* a DT clock-frequency Linux takes instead */
	uint64_t linux_hz;		/* the rate Linux uses: the DT's, else CNTFRQ_EL0 */
	bool measured;
	int64_t measured_ppm;		/* (measured - linux_hz) / linux_hz */
	bool measured_disagrees;	/* beyond the measurement's uncertainty */
};
void arm64_cntfrq_judge(const uint64_t *per_cpu, size_t n, uint64_t dt_clock_frequency,
			uint64_t measured_hz, uint64_t measured_uncertainty_ppm,
			struct arm64_cntfrq_check *out);

/* --------------------------------------------------------------- SMCCC */

/* The function IDs whose answers are decoded below (SMCCC 1.1+, DEN0028;
 * PSCI DEN0022; the KVM vendor-hypervisor service, Linux's
 * include/linux/arm-smccc.h; PV time DEN0057). */
#define ARM64_SMCCC_VERSION 0x80000000u
#define ARM64_SMCCC_ARCH_FEATURES 0x80000001u
#define ARM64_PSCI_VERSION 0x84000000u
#define ARM64_SMCCC_VENDOR_HYP_CALL_UID 0x8600ff01u
#define ARM64_SMCCC_VENDOR_HYP_KVM_FEATURES 0x86000000u
#define ARM64_SMCCC_VENDOR_HYP_KVM_PTP 0x86000001u
#define ARM64_SMCCC_HV_PV_TIME_FEATURES 0xc5000020u
#define ARM64_SMCCC_HV_PV_TIME_ST 0xc5000021u
#define ARM64_SMCCC_NOT_SUPPORTED 0xffffffffu	/* -1 in w0 */

/* A version word (major << 16 | minor) as SMCCC_VERSION and PSCI_VERSION
 * return it; NOT_SUPPORTED (or any negative) -> known false.  For
 * SMCCC_VERSION a caller with PSCI >= 1.0 and NOT_SUPPORTED has SMCCC
 * 1.0 (the call did not exist yet). */
struct arm64_version {
	bool known;
	uint16_t major, minor;
};
void arm64_version_decode(uint32_t w0, struct arm64_version *out);

/* The vendor-hypervisor UID (VENDOR_HYP_CALL_UID's w0..w3). */
enum arm64_hyp_uid { ARM64_HYP_UID_NONE, ARM64_HYP_UID_KVM, ARM64_HYP_UID_OTHER };
enum arm64_hyp_uid arm64_hyp_uid_decode(const uint32_t w[4]);
const char *arm64_hyp_uid_name(enum arm64_hyp_uid u);

/* KVM's feature bitmap (VENDOR_HYP_KVM_FEATURES w0): bit n = function n
 * of the KVM vendor service is there.  ptp: bit 1, the PTP service that
 * Linux's ptp_kvm uses (the host's counter and wall clock in one call).
 * Only meaningful when the UID was KVM's. */
struct arm64_kvm_features {
	uint32_t bitmap;
	bool features;		/* bit 0 */
	bool ptp;		/* bit 1 */
};
void arm64_kvm_features_decode(enum arm64_hyp_uid uid, uint32_t w0, struct arm64_kvm_features *out);

/* Stolen time, as Linux's has_pv_steal_clock() asks: ARCH_FEATURES
 * (HV_PV_TIME_FEATURES) must answer 0 (implemented), then
 * HV_PV_TIME_FEATURES(HV_PV_TIME_ST) 0 (stolen time is there). */
struct arm64_pv_time {
	bool features_implemented;
	bool stolen_time;
};
void arm64_pv_time_decode(uint32_t arch_features_w0, uint32_t pv_time_features_st_w0,
			  struct arm64_pv_time *out);

/* KVM's PTP service (VENDOR_HYP_KVM_PTP, argument ARM64_KVM_PTP_VIRT_COUNTER):
 * the host's CLOCK_REALTIME and the guest's virtual counter at one instant,
 * w0:w1 the realtime in ns, w2:w3 the counter, as Linux's
 * kvm_arch_ptp_get_crosststamp() (drivers/ptp/ptp_kvm_arm.c) reads them; a
 * negative w0 is the host saying no (KVM leaves NOT_SUPPORTED there when
 * its own clocksource is not the arch counter).  Decoded into the x86
 * pairing's sample (include/kvm_pv.h), so that one summary
 * (kvm_pairing_summarize, at CNTFRQ) serves both: ret 0, or -EOPNOTSUPP as
 * ptp_kvm returns it; tsc holds the counter. */
#define ARM64_KVM_PTP_VIRT_COUNTER 0u
#define ARM64_KVM_PTP_PHYS_COUNTER 1u
void arm64_kvm_ptp_decode(const uint32_t w[4], struct kvm_pairing_sample *out);

/* PV_TIME_ST's x0: the IPA of this CPU's stolen-time structure (DEN0057),
 * 64-byte aligned; NOT_SUPPORTED (all ones) or a misaligned answer is
 * false. */
bool arm64_pv_time_st_ipa(uint64_t x0, uint64_t *ipa);

/* The stolen-time structure (DEN0057; Linux's struct
 * pvclock_vcpu_stolen_time): revision and attributes, both 0 in the one
 * revision defined, then the stolen time in ns, all little-endian, 64
 * bytes.  valid: the revision and attributes this decoder knows. */
struct arm64_stolen_time {
	uint32_t revision, attributes;
	uint64_t stolen_ns;
	bool valid;
};
void arm64_stolen_time_decode(const uint8_t raw[64], struct arm64_stolen_time *out);

/* One PTP call as the probe makes it: the guest's ordered counter stamps
 * either side (t0, t1) and the four answer words. */
struct arm64_ptp_round {
	uint64_t t0, t1;
	uint32_t w[4];
};
#define ARM64_PTP_MAX_ROUNDS 32u
/* Over a run of calls (src/analysis/arm64_ptp.c): the pairing summary at
 * CNTFRQ (offset of the host's realtime from counter time, its spread,
 * the drift over the span), how many answers' counter fell inside the
 * call's own stamps (the host's counter and the guest's agree; outside:
 * an offset the two do not share, e.g. a VMM-set CNTVOFF the host's
 * answer does not subtract), and the calls' round trips in ticks, which
 * bound each pairing's precision. */
struct arm64_ptp_summary {
	struct kvm_pairing_summary pair;	/* offsets, drift, refusals: x86's summary */
	uint32_t inside, outside;
	uint64_t rt_min_ticks, rt_p50_ticks, rt_max_ticks;
	int64_t outside_max_ticks;	/* the farthest an answer's counter fell outside, signed: below t0 negative */
};
void arm64_ptp_summarize(const struct arm64_ptp_round *r, uint32_t n, uint64_t hz,
			 struct arm64_ptp_summary *out);
#endif
