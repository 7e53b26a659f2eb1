/* KVM clock pairing (KVM_HC_CLOCK_PAIRING, what Linux ptp_kvm uses) and
 * steal time (MSR_KVM_STEAL_TIME), the hardware half.  Both only where
 * CPUID shows KVM (and, for steal time, feature bit 5): under TCG and
 * other hypervisors VMCALL/VMMCALL raise #UD and the MSR means nothing,
 * and "did it fault" is not how presence is decided (as kvmclock.c).
 * Neither runs in a memory-encrypted guest: the host would write into a
 * private page.  No state of its own: the pairing page is the
 * instruction wrapper's (src/arch/x86/kvm_hypercall.c), the steal area and
 * what was read before the window are the caller's session, and the area
 * is handed back (MSR written 0) before anything else can reuse it. */
#include "kvm_pv_measure.h"
#include "x86.h"
#include "facts.h"
#include "fault.h"
#include "fault_x86.h"
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

/* The first call, on an AP (SysV convention; the platform wraps it),
 * through the fault guard loaded on that CPU for the call alone. */
static void first_call_on_ap(void *arg)
{
	struct kvm_pairing_first_call *c = arg;
	struct descriptor_table_ptr firmware_idt;
	sidt(&firmware_idt);
	fault_guard_load_on_this_cpu();
	c->fault = kvm_clock_pairing_once(c->vmmcall, &c->sample);
	lidt(&firmware_idt);
	__atomic_store_n(&c->returned, true, __ATOMIC_RELEASE);
}

static int first_ap(const struct platform_cpu *cpus, unsigned cpu_count)
{
	for (unsigned i = 0; i < cpu_count && i < PLATFORM_MAX_CPUS; i++)
		if (!cpus[i].bsp && cpus[i].enabled && cpus[i].healthy)
			return (int)i;
	return -1;
}

/* A host can show the KVM signature and still never finish the
 * instruction: a nested KVM of the PVM kind rewrites VMMCALL into VMCALL
 * and retries it forever, and the guest sees neither an exit nor a fault.
 * Nothing the boot CPU runs can be abandoned, and it carries the report;
 * an AP can.  So the first call goes to an AP with a deadline, and the
 * boot CPU issues the hypercall only once an AP came back from it.
 * Returns false when the AP did not (it is left inside the instruction:
 * the platform gives it no more work). */
static bool first_call(struct kvm_pairing_result *out, const struct probe_facts *f, const struct platform_cpu *cpus,
		       unsigned cpu_count, int vmmcall)
{
	struct platform *p = f->plat;
	out->first.vmmcall = vmmcall;
	if (f->settings.pairing == PAIRING_BSP) {
		out->first_on = "bsp";
		out->first.fault = kvm_clock_pairing_once(vmmcall, &out->first.sample);
		out->first.returned = true;
		return true;
	}
	int ap = first_ap(cpus, cpu_count);
	if (ap < 0 || !p || !p->ap_start || !p->aps_wait) {
		out->not_issued = true;
		out->reason = ap >= 0 ? "not issued: this boot path cannot run code on another CPU, and a first call "
					"on the boot CPU could never be abandoned (pairing=bsp issues it there)"
				      : cpu_count < 2 ? "not issued: one CPU only, and a first call on the boot CPU could "
							"never be abandoned if the host retries it forever (pairing=bsp "
							"issues it there)"
						      : "not issued: no AP answered to try it on, and a first call on the "
							"boot CPU could never be abandoned (pairing=bsp issues it there)";
		return true;
	}
	out->first_on = "ap";
	out->first_cpu = (uint32_t)ap;
	out->first_apic_id = cpus[ap].apic_id;
	out->first_deadline_ms = KVM_PAIRING_FIRST_DEADLINE_MS;
	uint64_t t0 = rdtsc();
	if (p->ap_start((unsigned)ap, first_call_on_ap, &out->first, KVM_PAIRING_FIRST_DEADLINE_MS * 1000)) {
		out->not_issued = true;
		out->first_on = NULL;
		out->reason = "not issued: the AP to try it on did not take the work";
		return true;
	}
	p->aps_wait(KVM_PAIRING_FIRST_DEADLINE_MS * 1000);
	out->first_waited_us = facts_ms_to_cycles(f, 1) ? (rdtsc() - t0) * 1000 / facts_ms_to_cycles(f, 1) : 0;
	if (__atomic_load_n(&out->first.returned, __ATOMIC_ACQUIRE))
		return true;
	out->first_lost = true;
	out->reason = vmmcall ? "the first VMMCALL, on an AP, did not come back within its deadline: this host shows "
				"KVM but does not complete the hypercall (a nested KVM that retries it forever); the AP "
				"is left there and the boot CPU never issues it"
			      : "the first VMCALL, on an AP, did not come back within its deadline: this host shows "
				"KVM but does not complete the hypercall (a nested KVM that retries it forever); the AP "
				"is left there and the boot CPU never issues it";
	return false;
}

bool kvm_pairing_run(struct kvm_pairing_result *out, const struct measure_ctx *ctx, const struct probe_facts *f,
		     const struct platform_cpu *cpus, unsigned cpu_count, uint64_t tsc_hz)
{
	memset(out, 0, sizeof *out);
	if ((out->reason = kvm_absent(f)))
		return true;
	if (f->settings.pairing == PAIRING_OFF) {
		out->not_issued = true;
		out->reason = "not issued: pairing=off";
		return true;
	}
	int vmmcall = f->cpu.is_amd || f->cpu.is_hygon;
	out->instruction = vmmcall ? "vmmcall" : "vmcall";
	out->tsc_hz = tsc_hz;
	if (!first_call(out, f, cpus, cpu_count, vmmcall))
		return false;
	if (out->not_issued)
		return true;
	out->attempted = true;
	out->fault = out->first.fault;
	out->first_ret = out->first.sample.ret;
	if (out->fault) {
		out->reason = vmmcall ? "VMMCALL raised a fault" : "VMCALL raised a fault";
		return true;
	}
	if (out->first_ret) {
		out->reason = out->first_ret == (uint64_t)-KVM_EOPNOTSUPP
				      ? "the host refused (eopnotsupp): its clocksource is not TSC-based, or the TSC "
					"is in catch-up mode"
				      : "the host refused the hypercall (see first_result)";
		return true;
	}
	/* Pairings spread over ~48 ms, on the boot CPU (whose TSC the rest of
	 * the report is in): the host clock against the TSC. */
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
	return true;
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
