/* Firmware and hypervisor answers over SMCCC, decoded from the recorded
 * return registers (include/arm64.h): the SMCCC and PSCI versions, the
 * vendor-hypervisor UID, KVM's feature bitmap (its PTP service, what
 * ptp_kvm uses) and the PV stolen-time discovery, each the way Linux's
 * drivers/firmware/smccc/ (kvm_guest.c kvm_init_hyp_services()) and
 * arch/arm64/kernel/paravirt.c (has_pv_steal_clock()) read them. */
#include "arm64.h"
#include "kvm_pv.h"

void arm64_version_decode(uint32_t w0, struct arm64_version *out)
{
	/* Every negative w0 is an error code (NOT_SUPPORTED = -1, ...);
	 * a version has bit 31 clear (major <= 0x7fff). */
	out->known = (w0 & 0x80000000u) == 0;
	out->major = out->known ? (uint16_t)(w0 >> 16) : 0;
	out->minor = out->known ? (uint16_t)(w0 & 0xffff) : 0;
}

/* KVM's UID 28b46fb6-2ec5-11e9-a9ca-4b564d003a74 as w0..w3
 * (ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_0..3). */
static const uint32_t kvm_uid[4] = {0xb66fb428u, 0xe911c52eu, 0x564bcaa9u, 0x743a004du};

enum arm64_hyp_uid arm64_hyp_uid_decode(const uint32_t w[4])
{
	/* A firmware without the call answers NOT_SUPPORTED in w0 (and
	 * whatever in the rest). */
	if (w[0] == ARM64_SMCCC_NOT_SUPPORTED)
		return ARM64_HYP_UID_NONE;
	if (w[0] == kvm_uid[0] && w[1] == kvm_uid[1] && w[2] == kvm_uid[2] && w[3] == kvm_uid[3])
		return ARM64_HYP_UID_KVM;
	return ARM64_HYP_UID_OTHER;
}

const char *arm64_hyp_uid_name(enum arm64_hyp_uid u)
{
	switch (u) {
	case ARM64_HYP_UID_KVM:
		return "kvm";
	case ARM64_HYP_UID_OTHER:
		return "other";
	default:
		return "none";
	}
}

void arm64_kvm_features_decode(enum arm64_hyp_uid uid, uint32_t w0, struct arm64_kvm_features *out)
{
	*out = (struct arm64_kvm_features){0};
	/* kvm_init_hyp_services() asks for the bitmap only after the UID
	 * matched; another hypervisor's function 0x86000000 means something
	 * else, and NOT_SUPPORTED is all ones. */
	if (uid != ARM64_HYP_UID_KVM || w0 == ARM64_SMCCC_NOT_SUPPORTED)
		return;
	out->bitmap = w0;
	out->features = (w0 & 1u) != 0;
	out->ptp = (w0 & 2u) != 0;
}

void arm64_pv_time_decode(uint32_t arch_features_w0, uint32_t pv_time_features_st_w0, struct arm64_pv_time *out)
{
	/* SMCCC_RET_SUCCESS is 0; anything else (NOT_SUPPORTED) is no. */
	out->features_implemented = arch_features_w0 == 0;
	out->stolen_time = out->features_implemented && pv_time_features_st_w0 == 0;
}

void arm64_kvm_ptp_decode(const uint32_t w[4], struct kvm_pairing_sample *out)
{
	*out = (struct kvm_pairing_sample){0};
	if ((int32_t)w[0] < 0) {
		out->ret = (uint64_t)-(int64_t)KVM_EOPNOTSUPP;
		return;
	}
	uint64_t ns = (uint64_t)w[0] << 32 | w[1];
	out->sec = (int64_t)(ns / 1000000000u);
	out->nsec = (int64_t)(ns % 1000000000u);
	out->tsc = (uint64_t)w[2] << 32 | w[3];
}

bool arm64_pv_time_st_ipa(uint64_t x0, uint64_t *ipa)
{
	/* SMC64: NOT_SUPPORTED is -1 in all of x0. */
	if (x0 == UINT64_MAX || (x0 & 63u) != 0 || x0 == 0)
		return false;
	*ipa = x0;
	return true;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

void arm64_stolen_time_decode(const uint8_t raw[64], struct arm64_stolen_time *out)
{
	out->revision = (uint32_t)le(raw, 4);
	out->attributes = (uint32_t)le(raw + 4, 4);
	out->stolen_ns = le(raw + 8, 8);
	out->valid = out->revision == 0 && out->attributes == 0;
}
