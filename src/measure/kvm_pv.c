/* KVM clock pairing (KVM_HC_CLOCK_PAIRING, what Linux ptp_kvm uses) and
 * steal time (MSR_KVM_STEAL_TIME), the hardware half.  Both only where
 * CPUID shows KVM (and, for steal time, feature bit 5): under TCG and
 * other hypervisors VMCALL/VMMCALL raise #UD and the MSR means nothing,
 * and "did it fault" is not how presence is decided (as kvmclock.c).
 * Neither runs in a memory-encrypted guest: the host would write into a
 * private page.  Both areas are static, 64-byte aligned, identity-mapped
 * (guest physical = our address); the steal area is handed back (MSR
 * written 0) before anything else can reuse the memory. */
#include "kvm_pv_measure.h"
#include "arch.h"
#include "fault.h"
#include "strbuf.h"

static struct kvm_clock_pairing pairing __attribute__((aligned(64)));
static struct kvm_steal_time steal_area __attribute__((aligned(64)));
static int use_vmmcall;

static uint64_t pair_once(uint64_t *ret)
{
	return hypercall_safe(KVM_HC_CLOCK_PAIRING, (uint64_t)(uintptr_t)&pairing, KVM_CLOCK_PAIRING_WALLCLOCK,
			      use_vmmcall, ret);
}

/* The measured operation: proved by the first call not to fault. */
static uint64_t op_pair(void)
{
	uint64_t ret;
	pair_once(&ret);
	return ret;
}

static const char *kvm_absent(const struct probe_facts *f)
{
	if (!f->hv.kvm.found)
		return f->hv.present ? "no KVM signature in the CPUID hypervisor leaves"
				     : "no hypervisor (CPUID.1:ECX[31] clear)";
	if (f->coco.memory_encrypted)
		return "memory-encrypted guest: the host cannot write into the probe's private pages";
	return NULL;
}

void kvm_pairing_run(struct kvm_pairing_result *out, const struct probe_facts *f, const struct measure_plan *plan,
		     uint64_t tsc_hz)
{
	memset(out, 0, sizeof *out);
	if ((out->reason = kvm_absent(f)))
		return;
	out->attempted = true;
	use_vmmcall = f->cpu.is_amd || f->cpu.is_hygon;
	out->instruction = use_vmmcall ? "vmmcall" : "vmcall";
	out->tsc_hz = tsc_hz;
	out->fault = (int)pair_once(&out->first_ret);
	if (out->fault) {
		out->reason = use_vmmcall ? "VMMCALL raised a fault" : "VMCALL raised a fault";
		return;
	}
	if (out->first_ret) {
		out->reason = out->first_ret == (uint64_t)-KVM_EOPNOTSUPP
				      ? "the host refused (eopnotsupp): its clocksource is not TSC-based, or the TSC "
					"is in catch-up mode"
				      : "the host refused the hypercall (see first_result)";
		return;
	}
	/* Pairings spread over ~48 ms: the host clock against the TSC. */
	uint64_t spacing = facts_ms_to_cycles(f, 3);
	for (unsigned i = 0; i < KVM_PAIRING_SAMPLES; i++) {
		uint64_t until = rdtsc() + spacing;
		while (i && rdtsc() < until)
			cpu_relax();
		struct kvm_pairing_sample *s = &out->samples[i];
		if (pair_once(&s->ret))
			break;
		s->sec = pairing.sec;
		s->nsec = pairing.nsec;
		s->tsc = pairing.tsc;
	}
	kvm_pairing_summarize(&out->summary, out->samples, KVM_PAIRING_SAMPLES, tsc_hz);
	/* Each call has the host read its clock and write the page: fewer
	 * samples than a read gets, as for kvm-clock's MSR write. */
	struct measure_plan few = *plan;
	few.samples = MIN(plan->samples, 512u);
	measure_op(&out->cost, op_pair, &few);
}

static bool steal_registered;
static bool steal_started;
static uint64_t steal_before;
static const char *steal_reason;
static uint32_t steal_version_start;

void kvm_steal_begin(const struct probe_facts *f)
{
	steal_registered = steal_started = false;
	if ((steal_reason = kvm_absent(f)))
		return;
	if (!f->hv.kvm.steal_time) {
		steal_reason = "KVM does not advertise steal time (CPUID 0x40000001 EAX bit 5 clear)";
		return;
	}
	memset(&steal_area, 0, sizeof steal_area);
	int fault = wrmsr_safe(MSR_KVM_STEAL_TIME, (uint64_t)(uintptr_t)&steal_area | KVM_MSR_ENABLED);
	if (fault) {
		steal_reason = "registering the steal-time area (WRMSR 0x4b564d03) faulted";
		return;
	}
	steal_registered = true;
	/* KVM fills the area on the vCPU's next entry: a bounded wait. */
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, 10);
	while (!steal_area.version && rdtsc() < deadline)
		cpu_relax();
	if (!steal_area.version) {
		steal_reason = "the steal-time area stayed empty after registration";
		return;
	}
	if (!kvm_steal_read(&steal_area, &steal_before, 1000)) {
		steal_reason = "the steal-time version never settled";
		return;
	}
	steal_version_start = steal_area.version;
	steal_started = true;
}

void kvm_steal_end(struct kvm_steal_window *out, uint64_t gap_total_ns, uint64_t window_ns)
{
	memset(out, 0, sizeof *out);
	out->attempted = steal_registered;
	out->reason = steal_reason;
	uint64_t after = 0;
	bool read = steal_started && kvm_steal_read(&steal_area, &after, 1000);
	out->version_start = steal_version_start;
	out->version_end = steal_area.version;
	out->preempted_end = steal_area.preempted;
	/* Handed back before anything else may use the memory. */
	if (steal_registered)
		wrmsr_safe(MSR_KVM_STEAL_TIME, 0);
	steal_registered = false;
	if (!steal_started)
		return;
	if (!read) {
		out->reason = "the steal-time version never settled after the window";
		return;
	}
	kvm_steal_explain(out, steal_before, after, gap_total_ns, window_ns);
}
