/* The one table from warning code to its fix: the full text for
 * warnings[].fix and a few words for the summary line.  Codes are report
 * names (docs/architecture.md, "The report contract"): extend, never rename. */
#include "verdict_model.h"

#define BRIEF_INVTSC \
	"expose invariant TSC (QEMU -cpu <model>,+invtsc; libvirt <feature policy='require' name='invtsc'/>)"

/* Linux cannot learn the TSC rate: the same fix whether the warning is the
 * cause (NO_CALIBRATION_REFERENCE) or the outcome (JIFFIES_FALLBACK). */
#define FIX_CALIBRATION \
	"Linux has no way to learn the TSC frequency: no hypervisor frequency (kvm-clock, Hyper-V " \
	"frequency MSRs, VMware GETHZ), no CPUID 0x15 crystal, and no PIT, HPET or PM timer to " \
	"calibrate against. Guests may fail to calibrate the TSC and the LAPIC timer or hang at " \
	"boot. Add a timer (QEMU -machine hpet=on, keep the PIT, keep ACPI for the PM timer) or " \
	"advertise the rate (kvm-clock; QEMU -cpu ...,+invtsc,tsc-frequency=)."
#define BRIEF_CALIBRATION \
	"give the guest a reference timer (HPET/PIT/PM timer) or an advertised TSC frequency"

const struct warning_kind warning_kinds[WARN_CODE_COUNT] = {
	[WARN_ACPI_PM_FALLBACK] = {
		"ACPI_PM_FALLBACK",
		"Expose invariant TSC: QEMU/KVM -cpu <model>,+invtsc, libvirt <feature policy='require' "
		"name='invtsc'/> (pin tsc-frequency= for live migration); and/or unhide kvm-clock (drop "
		"kvm=off, libvirt <kvm><hidden state='off'/></kvm>). A guest HPET (QEMU -machine hpet=on, "
		"libvirt <timer name='hpet' present='yes'/>) is a smaller step up. Guest-side last resort: "
		"clocksource=tsc tsc=reliable (no watchdog, no sync check: risky if the TSCs really differ).",
		BRIEF_INVTSC,
	},
	[WARN_HPET_FALLBACK] = {
		"HPET_FALLBACK",
		"The TSC (or kvm-clock) is the real fix: QEMU/KVM -cpu <model>,+invtsc or libvirt "
		"<feature policy='require' name='invtsc'/>; keep kvm-clock visible (no kvm=off). The HPET "
		"only limits the damage (each read is an MMIO exit).",
		"expose invariant TSC or kvm-clock; HPET reads still exit to the hypervisor",
	},
	[WARN_JIFFIES_FALLBACK] = { "JIFFIES_FALLBACK", FIX_CALIBRATION, BRIEF_CALIBRATION },
	[WARN_TSC_UNSYNCED] = {
		"TSC_UNSYNCED",
		"The TSCs of the vCPUs disagree. Host: check that the host TSC is stable and synchronized "
		"(host dmesg 'TSC unstable', BIOS TSC/C-state settings), keep all vCPUs of a VM on hosts "
		"with one TSC rate, let KVM sync the vCPU TSCs (do not write IA32_TSC per vCPU); VMware/"
		"Hyper-V: use a current virtual hardware version. Never paper over warps with "
		"tsc=reliable: time would go backwards across CPUs.",
		"fix the host TSC sync (check host dmesg for TSC unstable; pin vCPUs)",
	},
	[WARN_KVMCLOCK_WARP] = {
		"KVMCLOCK_WARP",
		"kvm-clock went backwards between vCPUs although the host publishes it as one clock. "
		"Host: KVM's master-clock mode needs a stable host TSC clocksource (host dmesg 'TSC "
		"unstable', nested virtualization, TSC scaling mismatches break it); check "
		"/sys/kernel/debug/kvm/*/vcpu*/ for TSC offsets, keep the VM on hosts with one TSC rate. "
		"A guest on this host can see time step backwards across CPUs.",
		"make the host keep KVM in master-clock mode (stable host TSC)",
	},
	[WARN_KERNEL_DEPENDENT] = {
		"KERNEL_DEPENDENT",
		"Older guest kernels choose a slower clocksource here (see by_kernel). Either run the "
		"guest on 6.12 or later, or expose invariant TSC (QEMU -cpu <model>,+invtsc; libvirt "
		"<feature policy='require' name='invtsc'/>), which fixes every kernel version.",
		"use a 6.12+ guest kernel, or expose invariant TSC",
	},
	[WARN_KVMCLOCK_NOT_STABLE] = {
		"KVMCLOCK_NOT_STABLE",
		"kvm-clock has no stable bit, so every clock_gettime is a syscall and reads funnel through "
		"one shared cache line. Host side: KVM sets PVCLOCK_TSC_STABLE_BIT only in master-clock "
		"mode: host clocksource must be tsc (cat /sys/devices/system/clocksource/clocksource0/"
		"current_clocksource on the host), vCPU TSCs written in sync, QEMU -cpu "
		"...,kvmclock-stable-bit=on (libvirt default). Or expose invtsc so 5.1+ guests use tsc.",
		"make the host run KVM's master clock (host clocksource tsc, synced vCPU TSCs)",
	},
	[WARN_KVMCLOCK_HIDDEN] = {
		"KVMCLOCK_HIDDEN",
		"Let the guest see KVM and kvm-clock: remove kvm=off from QEMU -cpu (or libvirt "
		"<kvm><hidden state='off'/></kvm>), keep kvmclock on (-cpu ...,kvmclock=on, "
		"kvmclock-stable-bit=on; libvirt <timer name='kvmclock' present='yes'/>). Better still, "
		"also expose invtsc (-cpu ...,+invtsc) so 5.1+ guests use the TSC directly.",
		"unhide KVM (drop kvm=off; libvirt <kvm><hidden state='off'/></kvm>) so kvm-clock is used",
	},
	[WARN_TSC_NOT_INVARIANT] = {
		"TSC_NOT_INVARIANT",
		"Expose invariant TSC to the guest: QEMU/KVM -cpu <model>,+invtsc (TCG cannot emulate it); "
		"libvirt <feature policy='require' name='invtsc'/> in <cpu>; Proxmox cpu flag +invtsc. "
		"invtsc blocks live migration unless the TSC rate is pinned (QEMU tsc-frequency=, same on "
		"every host). Without it, keep kvm-clock visible. Last resort in the guest: tsc=reliable "
		"(turns off the watchdog and the sync check: a TSC that really drifts or warps then makes "
		"time jump or go backwards).",
		BRIEF_INVTSC,
	},
	[WARN_HYPERV_MSR_CLOCKSOURCE] = {
		"HYPERV_MSR_CLOCKSOURCE",
		"The guest reads the Hyper-V reference counter through an MSR: a syscall plus a VM exit "
		"per read. Offer the reference TSC page (QEMU/KVM -cpu ...,hv-time,hv-frequencies; on "
		"Hyper-V it is standard on current hosts) or TSC invariant control so 5.6+ guests use tsc.",
		"offer the Hyper-V reference TSC page (QEMU hv-time) or invariant TSC",
	},
	[WARN_TSC_FREQ_MISMATCH] = {
		"TSC_FREQ_MISMATCH",
		"The advertised TSC frequency disagrees with the measured one: guests that trust it "
		"(TSC_KNOWN_FREQ, no refinement) keep time at the wrong rate until NTP steers. QEMU/KVM: "
		"set -cpu ...,tsc-frequency=<host TSC Hz> on hosts with TSC scaling, or let kvm-clock "
		"advertise it; guest override: tsc_early_khz=<kHz>. On bare metal, report it to the "
		"firmware/CPU vendor (CPUID 0x15 crystal).",
		"pin the guest TSC frequency (QEMU tsc-frequency=) or fix the advertised value",
	},
	[WARN_NO_CALIBRATION_REFERENCE] = {
		"NO_CALIBRATION_REFERENCE", FIX_CALIBRATION, BRIEF_CALIBRATION
	},
	[WARN_LARGE_GAPS] = {
		"LARGE_GAPS",
		"The vCPU was not running for measurable stretches (host preemption, SMIs, steal). Reduce "
		"host CPU overcommit, pin vCPUs (libvirt <vcputune><vcpupin>), isolate host CPUs, check "
		"host SMI counts; in the guest, steal time (kvm steal_time) accounts for it.",
		"reduce host overcommit / pin vCPUs",
	},
	[WARN_SOURCE_DRIFT] = {
		"SOURCE_DRIFT",
		"Two clock sources disagree on the rate of time. If the TSC is the outlier, its advertised "
		"or calibrated frequency is off (see TSC_FREQ_MISMATCH); if HPET/PM timer is, the device "
		"model's clock is. Keep NTP/chrony in the guest; a drift above ~500 ppm makes Linux's "
		"clocksource watchdog distrust the TSC.",
		"find which clock is wrong (compare with TSC_FREQ_MISMATCH), keep NTP in the guest",
	},
	[WARN_FREQ_REFERENCES_DISAGREE] = {
		"FREQ_REFERENCES_DISAGREE",
		"The HPET and the ACPI PM timer disagree on how fast time passes, beyond what either "
		"measurement allows: one of the two emulated (or real) timers runs at the wrong rate. "
		"Linux calibrates the TSC against them and uses them as the clocksource watchdog; "
		"check the device model (QEMU hpet/acpi timers, host clock) or the board's crystal.",
		"find which of HPET and PM timer runs at the wrong rate",
	},
	[WARN_CLOCK_READ_CONTENDED] = {
		"CLOCK_READ_CONTENDED",
		"Reads of this clock serialize behind a lock in the device model: the more vCPUs read it "
		"at once, the longer each read takes (QEMU took the big lock for every HPET and PM timer "
		"access until 10.2, which made them lock-free; a 240-vCPU Windows guest went from not "
		"booting in 30 minutes to 1-2 minutes). Give the guest a clocksource without a "
		"device-model lock: invariant TSC (QEMU -cpu <model>,+invtsc, libvirt <feature "
		"policy='require' name='invtsc'/>), kvm-clock with its stable bit, or Hyper-V's "
		"reference TSC page (hv-time); or run a hypervisor release whose device model reads "
		"these timers without the lock.",
		"a clocksource without a device-model lock (invariant TSC, kvm-clock, TSC page) or a lock-free device model",
	},
	[WARN_GUEST_CANNOT_BOOT] = {
		"GUEST_CANNOT_BOOT",
		"This kernel cannot start the guest: it lacks a confidential-VM feature the VM runs with "
		"(TDX, SEV-ES, SEV-SNP, or an SNP feature such as Secure TSC that the host enabled). Run a "
		"guest kernel of the release the evidence names or newer, or start the VM without that "
		"feature (e.g. QEMU sev-snp-guest without secure-tsc=on).",
		"run a guest kernel new enough for this confidential VM, or drop the feature",
	},
};

/* A new warning begins as its kind in the table above: code, fix and brief
 * filled in, message and evidence empty.  NULL when the list is full. */
struct verdict_warning *verdict_add_warning(struct verdict *v, enum warn_code code, enum verdict_severity severity)
{
	if (v->warning_count >= VERDICT_MAX_WARNINGS)
		return NULL;
	const struct warning_kind *k = &warning_kinds[code];
	struct verdict_warning *w = &v->warnings[v->warning_count++];
	w->code = k->code;
	w->severity = severity;
	w->fix = k->fix;
	w->fix_brief = k->brief;
	w->message[0] = 0;
	w->evidence[0] = 0;
	return w;
}

/* Every code the verdict can raise, for a host tool to check a name it is
 * given (clockprobe --fail-on) against the table itself, not a copy. */
size_t verdict_warning_code_count(void)
{
	return WARN_CODE_COUNT;
}

const char *verdict_warning_code_name(size_t i)
{
	return i < WARN_CODE_COUNT ? warning_kinds[i].code : NULL;
}
