/* KVM clock pairing (KVM_HC_CLOCK_PAIRING, what Linux ptp_kvm uses) and
 * steal time (MSR_KVM_STEAL_TIME), the hardware half.  Both only where
 * CPUID shows KVM (and, for steal time, feature bit 5): under TCG and
 * other hypervisors VMCALL/VMMCALL raise #UD and the MSR means nothing,
 * and "did it fault" is not how presence is decided (as kvmclock.c).
 * Neither runs in a memory-encrypted guest: the host would write into a
 * private page.  No state of its own: the pairing page is the
 * instruction wrapper's (src/arch/kvm_hypercall.c), the steal area and
 * what was read before the window are the caller's session, and the area
 * is handed back (MSR written 0) before anything else can reuse it. */
#include "kvm_pv_measure.h"
#include "arch.h"
#include "facts.h"
#include "fault.h"
#include "strbuf.h"

static const char *kvm_absent(const struct probe_facts *f)
{
	if (!f->hv.kvm.found)
		return f->hv.present ? "no KVM signature in the CPUID hypervisor leaves"
				     : "no hypervisor (CPUID.1:ECX[31] clear)";
	if (f->coco.memory_encrypted)
		return "memory-encrypted guest: the host cannot write into the probe's private pages";
	return NULL;
}

void kvm_pairing_run(struct kvm_pairing_result *out, const struct measure_ctx *ctx, const struct probe_facts *f,
		     uint64_t tsc_hz)
{
	memset(out, 0, sizeof *out);
	if ((out->reason = kvm_absent(f)))
		return;
	out->attempted = true;
	int vmmcall = f->cpu.is_amd || f->cpu.is_hygon;
	out->instruction = vmmcall ? "vmmcall" : "vmcall";
	out->tsc_hz = tsc_hz;
	struct kvm_pairing_sample first;
	out->fault = kvm_clock_pairing_once(vmmcall, &first);
	out->first_ret = first.ret;
	if (out->fault) {
		out->reason = vmmcall ? "VMMCALL raised a fault" : "VMCALL raised a fault";
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
		if (kvm_clock_pairing_once(vmmcall, &out->samples[i]))
			break;
	}
	kvm_pairing_summarize(&out->summary, out->samples, KVM_PAIRING_SAMPLES, tsc_hz);
	/* Each call has the host read its clock and write the page: fewer
	 * samples than a read gets, as for kvm-clock's MSR write. */
	struct measure_ctx few = *ctx;
	few.plan.samples = MIN(ctx->plan.samples, 512u);
	measure_op(&few, &out->cost, vmmcall ? kvm_clock_pairing_vmmcall : kvm_clock_pairing_vmcall);
}

void kvm_steal_begin(struct kvm_steal_session *s, const struct probe_facts *f)
{
	memset(s, 0, sizeof *s);
	if ((s->reason = kvm_absent(f)))
		return;
	if (!f->hv.kvm.steal_time) {
		s->reason = "KVM does not advertise steal time (CPUID 0x40000001 EAX bit 5 clear)";
		return;
	}
	int fault = wrmsr_safe(MSR_KVM_STEAL_TIME, (uint64_t)(uintptr_t)&s->area | KVM_MSR_ENABLED);
	if (fault) {
		s->reason = "registering the steal-time area (WRMSR 0x4b564d03) faulted";
		return;
	}
	s->registered = true;
	/* KVM fills the area on the vCPU's next entry: a bounded wait. */
	volatile struct kvm_steal_time *area = &s->area;
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, 10);
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, 10)); /* the 10 ms at the spin cost: a stopped TSC */
	for (uint64_t spins = 0; !area->version && rdtsc() < deadline && spins < cap; spins++)
		cpu_relax();
	if (!area->version) {
		s->reason = "the steal-time area stayed empty after registration";
		return;
	}
	if (!kvm_steal_read(area, &s->steal_before, 1000)) {
		s->reason = "the steal-time version never settled";
		return;
	}
	s->version_start = area->version;
	s->started = true;
}

void kvm_steal_end(struct kvm_steal_session *s, struct kvm_steal_window *out, uint64_t gap_total_ns,
		   uint64_t window_ns)
{
	volatile struct kvm_steal_time *area = &s->area;
	memset(out, 0, sizeof *out);
	out->attempted = s->registered;
	out->reason = s->reason;
	uint64_t after = 0;
	bool read = s->started && kvm_steal_read(area, &after, 1000);
	out->version_start = s->version_start;
	out->version_end = area->version;
	out->preempted_end = area->preempted;
	/* Handed back before anything else may use the memory. */
	if (s->registered)
		wrmsr_safe(MSR_KVM_STEAL_TIME, 0);
	s->registered = false;
	if (!s->started)
		return;
	if (!read) {
		out->reason = "the steal-time version never settled after the window";
		return;
	}
	kvm_steal_explain(out, s->steal_before, after, gap_total_ns, window_ns);
}
