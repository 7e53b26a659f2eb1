/* kvm-clock: the paravirtual clock KVM publishes in a guest-registered
 * pvclock page.  Gated strictly on CPUID (KVM signature + clocksource
 * feature bits): under TCG the MSRs neither fault nor do anything, so "did
 * the write fault" would prove nothing.  The page is unregistered in
 * finish() so the host never writes into memory the firmware reuses. */
#include "kvmclock.h"
#include "source.h"
#include "x86.h"
#include "fault.h"
#include "msr.h"
#include "fault_x86.h"
#include "rate.h"
#include "strbuf.h"

#define PVCLOCK_READ_RETRIES 1000

static struct pvclock_time_info bsp_area __attribute__((aligned(64)));
static struct kvmclock_facts facts;
static uint32_t system_time_msr;
static uint64_t registration_value;
static bool active; /* registered and not yet unregistered */
static bool stable_allowed; /* CPUID lets a guest honour the stable flag */

/* The guest's fast path (Linux pvclock_clocksource_read): version check,
 * the CPU's ordered TSC read (as Linux's rdtsc_ordered(), so the TSC
 * cannot be read before the fields), scaling.  Bounded: a version that
 * never settles returns the last computed value and counts retries. */
static inline __attribute__((always_inline)) uint64_t read_area(const volatile struct pvclock_time_info *area,
								 enum tsc_read how)
{
	uint64_t ns = 0;
	for (int tries = 0; tries < PVCLOCK_READ_RETRIES; tries++) {
		uint32_t v1 = area->version;
		compiler_barrier();
		struct pvclock_time_info copy;
		copy.tsc_timestamp = area->tsc_timestamp;
		copy.system_time = area->system_time;
		copy.tsc_to_system_mul = area->tsc_to_system_mul;
		copy.tsc_shift = area->tsc_shift;
		uint64_t tsc = rdtsc_ordered_as(how);
		compiler_barrier();
		uint32_t v2 = area->version;
		ns = pvclock_ns_at(&copy, tsc);
		if (pvclock_version_consistent(v1, v2))
			return ns;
		__atomic_add_fetch(&facts.retries, 1, __ATOMIC_RELAXED); /* any CPU */
	}
	return ns;
}

uint64_t kvmclock_read_area_as(const volatile struct pvclock_time_info *area, enum tsc_read how)
{
	return read_area(area, how);
}

/* The measured read, one per ordered read: the instructions a guest
 * runs, nothing chosen at run time. */
static uint64_t kvmclock_read_lfence(void) { return read_area(&bsp_area, TSC_READ_LFENCE); }
static uint64_t kvmclock_read_mfence(void) { return read_area(&bsp_area, TSC_READ_MFENCE); }
static uint64_t kvmclock_read_rdtscp(void) { return read_area(&bsp_area, TSC_READ_RDTSCP); }

/* The unstable path: the fast read, then the global last_value
 * (pvclock_monotonic, as Linux's pvclock_clocksource_read without the
 * stable bit). */
static uint64_t last_value;
static uint64_t kvmclock_unstable_lfence(void) { return pvclock_monotonic(&last_value, kvmclock_read_lfence()); }
static uint64_t kvmclock_unstable_mfence(void) { return pvclock_monotonic(&last_value, kvmclock_read_mfence()); }
static uint64_t kvmclock_unstable_rdtscp(void) { return pvclock_monotonic(&last_value, kvmclock_read_rdtscp()); }

/* Measured only after prepare's guarded write proved the MSR. */
static uint64_t op_register(void)
{
	wrmsr(system_time_msr, registration_value);
	return 0;
}

static uint64_t op_read_back(void) { return rdmsr(system_time_msr); }

bool kvmclock_register_area(struct pvclock_time_info *cpu_area)
{
	return system_time_msr &&
	       wrmsr_safe(system_time_msr, (uint64_t)(uintptr_t)cpu_area | 1) == FAULT_NONE;
}

void kvmclock_unregister_this_cpu(void)
{
	if (system_time_msr)
		wrmsr_safe(system_time_msr, 0);
}

static enum source_status kvmclock_prepare(struct source_desc *d, const struct probe_facts *f)
{
	const struct hv_kvm *kvm = &f->hv.kvm;
	if (!kvm->found) {
		str_copy(d->reason, sizeof d->reason,
			 f->hv.present ? "no KVM signature in the CPUID hypervisor leaves"
				       : "no hypervisor (CPUID.1:ECX[31] clear)");
		return SOURCE_ABSENT;
	}
	if (!kvm->clocksource2 && !kvm->clocksource) {
		str_copy(d->reason, sizeof d->reason,
			 "KVM does not advertise kvmclock (CPUID 0x40000001 EAX bits 0 and 3 clear)");
		return SOURCE_ABSENT;
	}
	/* The host writes the page: in a memory-encrypted guest ours is
	 * private, and Linux uses a decrypted one (kvmclock.c hv_clock_boot). */
	if (f->coco.memory_encrypted) {
		str_copy(d->reason, sizeof d->reason,
			 "memory-encrypted guest: the pvclock page would have to be shared with the host");
		return SOURCE_ABSENT;
	}
	/* The new MSR keeps the host in master-clock mode; the old one can
	 * switch it off, which would change what we measure. */
	system_time_msr = kvm->clocksource2 ? MSR_KVM_SYSTEM_TIME_NEW : MSR_KVM_SYSTEM_TIME;
	facts.msr = system_time_msr;
	registration_value = (uint64_t)(uintptr_t)&bsp_area | 1;
	int fault = wrmsr_safe(system_time_msr, registration_value);
	if (fault) {
		struct strbuf sb;
		sb_init(&sb, d->reason, sizeof d->reason);
		sb_str(&sb, "registering the pvclock page (WRMSR 0x");
		sb_hex(&sb, system_time_msr, 1);
		sb_str(&sb, ") raised ");
		sb_str(&sb, fault_name(fault));
		system_time_msr = 0;
		return SOURCE_ERROR;
	}
	active = true;
	/* The host fills the page on its next entry; give it a bounded wait. */
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, 10);
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, 10)); /* the 10 ms at the spin cost: a stopped TSC */
	for (uint64_t spins = 0; !bsp_area.tsc_to_system_mul && rdtsc() < deadline && spins < cap; spins++)
		cpu_relax();
	if (!bsp_area.tsc_to_system_mul) {
		str_copy(d->reason, sizeof d->reason, "pvclock page stayed empty after registration");
		kvmclock_unregister_this_cpu();
		active = false;
		return SOURCE_ERROR;
	}
	/* Registered and live: only now do the cross-CPU test and the report
	 * treat kvm-clock as measured. */
	facts.registered = true;
	memcpy(&facts.snapshot, &bsp_area, sizeof facts.snapshot);
	stable_allowed = kvm->stable_bit;
	facts.stable = kvm->stable_bit && (bsp_area.flags & PVCLOCK_TSC_STABLE_BIT);
	facts.tsc_hz = pvclock_tsc_hz(bsp_area.tsc_to_system_mul, bsp_area.tsc_shift);
	d->read = f->tsc_read == TSC_READ_RDTSCP   ? kvmclock_read_rdtscp
		  : f->tsc_read == TSC_READ_MFENCE ? kvmclock_read_mfence
						   : kvmclock_read_lfence;
	d->instructions = tsc_read_name(f->tsc_read);
	d->reads_tsc = true; /* pvclock scales an RDTSC */
	d->width_bits = 64;
	d->freq_hz = 1000000000;
	d->freq_origin = "pvclock system time (ns)";
	return SOURCE_OK;
}

/* MSR costs are measured once the harness is known (engine order). */
static void kvmclock_measure_msrs(const struct measure_ctx *ctx)
{
	if (!active)
		return;
	struct measure_ctx few = *ctx;
	/* Each write makes the host rewrite the page: fewer samples than the
	 * reads get (the batch throughput adds its own fixed count). */
	few.plan.samples = MIN(ctx->plan.samples, 512u);
	measure_op(&few, &facts.msr_write, op_register);
	measure_op(&few, &facts.msr_read, op_read_back);
	/* The re-registrations above may have changed the page: its flag now. */
	if (stable_allowed && (bsp_area.flags & PVCLOCK_TSC_STABLE_BIT))
		return;
	uint64_t (*op)(void) = ctx->read == TSC_READ_RDTSCP   ? kvmclock_unstable_rdtscp
			       : ctx->read == TSC_READ_MFENCE ? kvmclock_unstable_mfence
							      : kvmclock_unstable_lfence;
	measure_op(ctx, &facts.unstable_read, op);
	facts.unstable_measured = true;
}

static void kvmclock_finish(void)
{
	if (active)
		kvmclock_unregister_this_cpu();
	active = false;
}

static void kvmclock_collect(union source_facts *out)
{
	out->kvmclock = facts;
	out->kvmclock.retries = __atomic_load_n(&facts.retries, __ATOMIC_RELAXED);
}

/* The host may rewrite the page at any time (migration, master-clock
 * changes): a consistent snapshot, bounded like a read. */
static void kvmclock_live_state(struct source_live_state *out)
{
	memset(out, 0, sizeof *out);
	if (!active)
		return;
	for (int tries = 0; tries < PVCLOCK_READ_RETRIES; tries++) {
		uint32_t v1 = bsp_area.version;
		compiler_barrier();
		uint32_t mul = bsp_area.tsc_to_system_mul;
		int8_t shift = bsp_area.tsc_shift;
		uint8_t flags = bsp_area.flags;
		compiler_barrier();
		uint32_t v2 = bsp_area.version;
		if (!pvclock_version_consistent(v1, v2))
			continue;
		out->valid = true;
		out->version = v2;
		out->flags = flags;
		out->stable = stable_allowed && (flags & PVCLOCK_TSC_STABLE_BIT);
		out->tsc_hz = pvclock_tsc_hz(mul, shift);
		return;
	}
}

const struct clock_source source_kvmclock = {
	.name = "kvm-clock",
	.prepare = kvmclock_prepare,
	.finish = kvmclock_finish,
	.measure_extra = kvmclock_measure_msrs,
	.collect = kvmclock_collect,
	.live_state = kvmclock_live_state,
	.report_extra = kvmclock_report_extra,
	.report_section = kvmclock_report_section,
	.verdict_facts = kvmclock_verdict_facts,
};
