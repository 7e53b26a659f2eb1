/* What the firmware and hypervisor answer through PSCI and SMCCC, asked
 * in the order Linux asks (drivers/firmware/psci/psci.c, then
 * drivers/firmware/smccc/kvm_guest.c and arch/arm64/kernel/paravirt.c; the
 * facts in docs/architecture.md, "src/arch/arm64"): each call is made only
 * once the one before it proved it exists, through the conduit the FADT
 * names (or, where the FADT names none, as under -machine virt,acpi=off,
 * the DT's /psci node: Linux's psci_dt_init() reads the same).  A function an implementation does not know answers
 * NOT_SUPPORTED (-1) only inside an SMCCC it implements: QEMU's TCG PSCI,
 * for one, answers PSCI ids alone and turns any other HVC into an
 * undefined instruction, which UEFI halts on.  The answers are decoded by
 * src/decode/arm64_smccc.c. */
#include "a64.h"
#include "a64_probe.h"

#define PSCI_FEATURES 0x8400000au
#define PSCI_CPU_ON_64 0xc4000003u

struct a64_smccc_res a64_smccc_call(const struct a64_smccc *s, uint32_t fn, uint64_t a1)
{
	return s->conduit == ACPI_ARM_CONDUIT_HVC ? a64_hvc(fn, a1, 0, 0) : a64_smc(fn, a1, 0, 0);
}

void a64_smccc_conduit(struct a64_run *r)
{
	struct a64_smccc *s = &r->smccc;
	const struct fdt_facts *dt = &r->dt.facts;
	if (s->boot.conduit != ACPI_ARM_CONDUIT_NONE) {
		s->conduit = s->boot.conduit;
		s->conduit_source = "acpi_fadt";
		return;
	}
	/* The DT's method is taken only for PSCI 0.2 and later: PSCI 0.1 has
	 * no PSCI_VERSION, the probe's first call (fdt.c says so in
	 * psci_reason). */
	if (r->dt.found && dt->psci_found && !dt->psci_reason) {
		s->conduit = dt->psci_method == FDT_PSCI_HVC ? ACPI_ARM_CONDUIT_HVC : ACPI_ARM_CONDUIT_SMC;
		s->conduit_source = "dt";
		return;
	}
	s->conduit = ACPI_ARM_CONDUIT_NONE;
	/* The FADT's word where it spoke, else the DT's. */
	if (!s->boot.present && r->dt.found)
		s->conduit_reason = dt->psci_reason ? dt->psci_reason : "no PSCI conduit in the DT";
	else
		s->conduit_reason = s->boot.reason;
}

static uint32_t call(const struct a64_smccc *s, uint32_t fn, uint64_t a1)
{
	return (uint32_t)a64_smccc_call(s, fn, a1).a0;
}

void a64_smccc_discover(struct a64_run *r)
{
	struct a64_smccc *s = &r->smccc;
	s->features_smccc_version = 1;
	s->features_cpu_on = 1;
	if (s->conduit == ACPI_ARM_CONDUIT_NONE) {
		s->stopped = s->conduit_reason ? s->conduit_reason : "no PSCI conduit";
		return;
	}
	s->psci_called = true;
	arm64_version_decode(call(s, ARM64_PSCI_VERSION, 0), &s->psci);
	if (!s->psci.known) {
		s->stopped = "PSCI_VERSION answered NOT_SUPPORTED";
		return;
	}
	if (s->psci.major < 1) {
		/* PSCI 0.2 has no PSCI_FEATURES, so SMCCC_VERSION cannot be
		 * asked for: SMCCC 1.0, and no vendor call is safe. */
		s->stopped = "PSCI before 1.0: no PSCI_FEATURES, SMCCC taken as 1.0";
		s->smccc = (struct arm64_version){true, 1, 0};
		return;
	}
	s->psci_features = true;
	s->features_cpu_on = (int32_t)call(s, PSCI_FEATURES, PSCI_CPU_ON_64);
	s->features_smccc_version = (int32_t)call(s, PSCI_FEATURES, ARM64_SMCCC_VERSION);
	if (s->features_smccc_version < 0) {
		s->smccc = (struct arm64_version){true, 1, 0};
		s->stopped = "PSCI_FEATURES(SMCCC_VERSION) is NOT_SUPPORTED: SMCCC 1.0, no vendor or "
			     "architecture call is made";
		return;
	}
	s->smccc_called = true;
	arm64_version_decode(call(s, ARM64_SMCCC_VERSION, 0), &s->smccc);
	if (!s->smccc.known || (s->smccc.major == 1 && s->smccc.minor < 1)) {
		s->stopped = "SMCCC before 1.1: Linux makes no vendor call there, nor does the probe";
		return;
	}
	s->uid_called = true;
	struct a64_smccc_res u = a64_smccc_call(s, ARM64_SMCCC_VENDOR_HYP_CALL_UID, 0);
	s->uid[0] = (uint32_t)u.a0;
	s->uid[1] = (uint32_t)u.a1;
	s->uid[2] = (uint32_t)u.a2;
	s->uid[3] = (uint32_t)u.a3;
	s->hyp = arm64_hyp_uid_decode(s->uid);
	if (s->hyp == ARM64_HYP_UID_KVM) {
		s->kvm_features_called = true;
		arm64_kvm_features_decode(s->hyp, call(s, ARM64_SMCCC_VENDOR_HYP_KVM_FEATURES, 0), &s->kvm);
	}
	uint32_t pv = call(s, ARM64_SMCCC_ARCH_FEATURES, ARM64_SMCCC_HV_PV_TIME_FEATURES);
	uint32_t st = (int32_t)pv < 0 ? ARM64_SMCCC_NOT_SUPPORTED
				      : call(s, ARM64_SMCCC_HV_PV_TIME_FEATURES, ARM64_SMCCC_HV_PV_TIME_ST);
	s->pv_time_called = true;
	arm64_pv_time_decode(pv, st, &s->pv_time);
}
