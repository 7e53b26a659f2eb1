/* The other CPUs: started one at a time through PSCI CPU_ON (DEN0022),
 * each records its own MIDR, MPIDR and CNTFRQ_EL0, then answers a
 * ping-pong with the boot CPU over shared memory that checks their
 * counters against each other, then powers itself off with CPU_OFF.
 * (docs/architecture.md, "src/arch/arm64".)
 *
 * Why PSCI and not UEFI: AAVMF (edk2 2022.11) installs no
 * EFI_MP_SERVICES_PROTOCOL (the report's mp_services says what was found).
 * CPU_ON is made only when the FADT (or the DT's /psci) named a conduit
 * and PSCI said it has CPU_ON (PSCI_FEATURES from 1.0; mandatory in 0.2),
 * for the CPUs the MADT's GICC entries list as enabled (without a MADT:
 * the DT's cpu nodes with enable-method psci).  A started CPU runs only this
 * file's code and touches only its own slot and the ping-pong's words:
 * never the firmware, whose boot services are not multiprocessor safe.
 *
 * The check.  Round k: the boot CPU stamps t0, publishes it and a
 * sequence number; the other CPU, seeing it, stamps t1 and publishes it;
 * the boot CPU, seeing that, stamps t2.  With counters in step,
 * t0 <= t1 <= t2; a reading outside that is a counter behind the other
 * ("backwards").  Their offset (other minus boot) lies in
 * [t1 - t2, t1 - t0] each round; the intersection over the rounds is the
 * bound reported (offset_lo/hi_ticks).  Every wait has a counter deadline
 * and an iteration cap, on both sides. */
#include "a64.h"
#include "a64_probe.h"
#include "arch_api.h"

#define PSCI_CPU_ON_64 0xc4000003u
#define PSCI_CPU_OFF 0x84000002u
#define AP_STACK_BYTES 16384u
#define XC_ROUNDS 2000u
#define XC_BUDGET_MS 150u
#define UP_BUDGET_MS 1000u
#define SPIN_CAP 100000000u

/* Read by ap_entry.S with the MMU off: the offsets there follow this. */
struct a64_ap_boot {
	uint64_t mair, tcr, ttbr0, sctlr, vbar, stack_top, entry, arg;
};

enum { AP_OFF, AP_UP, AP_DONE };

struct ap_slot {
	uint32_t state;			/* AP_UP, AP_DONE: written by the AP */
	uint32_t abort;			/* the boot CPU gave up: the AP stops */
	uint64_t mpidr, midr, cntfrq;
	uint64_t deadline;		/* the AP's own bound on its waits */
	struct a64_run *vtimer_run;	/* set: measure this CPU's virtual timer (vtimer.c) */
	struct a64_run *irq_run;	/* set: take its timer's interrupt through the GIC (gic.c) */
	struct a64_run *kvm_pv_run;	/* set: KVM's PTP pairings and stolen time (kvm_ptp.c), last */
};

/* The ping-pong's words, on a cache line of their own each. */
struct xc_words {
	uint64_t seq __attribute__((aligned(64)));
	uint64_t t_ap __attribute__((aligned(64)));
};

extern char a64_ap_entry[];
static struct a64_ap_boot boot_block __attribute__((aligned(64)));
static struct ap_slot slot __attribute__((aligned(64)));
static struct xc_words xc;
/* A stack per CPU: a CPU that reported AP_DONE is still on its stack
 * while its CPU_OFF call runs, as the next CPU starts. */
static uint8_t ap_stack[A64_MAX_CPUS][AP_STACK_BYTES] __attribute__((aligned(16)));
static enum acpi_arm_conduit conduit;

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static struct a64_smccc_res psci(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	return conduit == ACPI_ARM_CONDUIT_HVC ? a64_hvc(fn, a1, a2, a3) : a64_smc(fn, a1, a2, a3);
}

/* The ping-pong's stamps: the timebase's ordered stamp (ISB; MRS
 * CNTVCT_EL0; ISB: arch_api.h), so each side's reading is taken after its
 * load of the sequence word and before its store of the next. */
static inline uint64_t xc_stamp(void) { return tb_stamp_begin(STAMP_FENCE_ISB); }

/* Waits until *p == want or the deadline/cap; true when it came. */
static bool wait_for(const uint64_t *p, uint64_t want, uint64_t deadline, const uint32_t *abort)
{
	for (uint32_t i = 0; i < SPIN_CAP; i++) {
		if (load(p) == want)
			return true;
		if ((abort && __atomic_load_n(abort, __ATOMIC_ACQUIRE)) || tb_now() > deadline)
			return false;
		cpu_relax();
	}
	return false;
}

/* The other CPU, from ap_entry.S: MMU on, the boot CPU's tables. */
static void __attribute__((noreturn, used)) ap_main(struct ap_slot *s)
{
	s->mpidr = a64_mpidr();
	s->midr = a64_midr();
	s->cntfrq = a64_cntfrq();
	__atomic_store_n(&s->state, AP_UP, __ATOMIC_RELEASE);
	for (uint64_t k = 0; k < XC_ROUNDS; k++) {
		if (!wait_for(&xc.seq, 2 * k + 1, s->deadline, &s->abort))
			break;
		uint64_t t1 = xc_stamp();
		xc.t_ap = t1;
		store(&xc.seq, 2 * k + 2);
	}
	/* The boot CPU's timer is the firmware's: this one's is nobody's. */
	if (s->vtimer_run && !__atomic_load_n(&s->abort, __ATOMIC_ACQUIRE))
		a64_vtimer_here(s->vtimer_run, &s->vtimer_run->vtimer);
	if (s->irq_run && !__atomic_load_n(&s->abort, __ATOMIC_ACQUIRE))
		a64_gic_irq_here(s->irq_run);
	/* Last: a hypercall that never comes back leaves the rest done. */
	if (s->kvm_pv_run && !__atomic_load_n(&s->abort, __ATOMIC_ACQUIRE))
		a64_kvm_pv_here(s->kvm_pv_run);
	__atomic_store_n(&s->state, AP_DONE, __ATOMIC_RELEASE);
	psci(PSCI_CPU_OFF, 0, 0, 0);
	for (;;)
		__asm__ volatile("wfe");
}

static void clean_to_poc(const void *p, size_t n)
{
	uint64_t line = 4u << ((a64_ctr_el0() >> 16) & 0xf);
	uintptr_t a = (uintptr_t)p & ~(line - 1), end = (uintptr_t)p + n;
	for (; a < end; a += line)
		a64_dc_cvac(a);
	a64_dsb_sy();
}

/* The boot CPU's side of the ping-pong with one started CPU. */
static void ping_pong(struct a64_run *r, struct a64_cpu *c)
{
	uint64_t deadline = tb_now() + r->cntfrq / 1000u * XC_BUDGET_MS;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	uint32_t k = 0;
	for (; k < XC_ROUNDS; k++) {
		uint64_t t0 = xc_stamp();
		store(&xc.seq, 2 * (uint64_t)k + 1);
		if (!wait_for(&xc.seq, 2 * (uint64_t)k + 2, deadline, NULL))
			break;
		uint64_t t1 = xc.t_ap;
		uint64_t t2 = xc_stamp();
		if (t1 < t0 || t2 < t1) {
			c->xc_backwards++;
			uint64_t by = t1 < t0 ? t0 - t1 : t1 - t2;
			if (by > c->xc_max_backwards)
				c->xc_max_backwards = by;
		}
		int64_t l = (int64_t)(t1 - t2), h = (int64_t)(t1 - t0);
		if (l > lo)
			lo = l;
		if (h < hi)
			hi = h;
	}
	c->xc_rounds = k;
	c->xc_offset_lo = k ? lo : 0;
	c->xc_offset_hi = k ? hi : 0;
}

void a64_cpus_start(struct a64_run *r, const struct acpi_info *acpi)
{
	struct a64_xcpu *x = &r->xcpu;
	const struct a64_smccc *s = &r->smccc;
	conduit = s->conduit;
	x->attempted = true;
	if (!s->psci.known) {
		x->absent = "no PSCI: CPU_ON cannot be asked for";
		return;
	}
	if (s->psci_features ? s->features_cpu_on < 0 : s->psci.major == 0 && s->psci.minor < 2) {
		x->absent = "PSCI does not offer CPU_ON (64-bit)";
		return;
	}
	if (r->el != 1 || !r->cntfrq) {
		x->absent = "not at EL1, or CNTFRQ_EL0 is 0: no regime to hand over, no deadline";
		return;
	}
	static struct acpi_madt_gicc gicc[64];
	uint32_t total = 0;
	uint32_t n = acpi_madt_gicc_list(r->have_madt_raw ? r->madt_raw : NULL, r->madt_len, gicc, 64, &total);
	x->cpu_list_source = "acpi_madt";
	if (!n && r->dt.found && r->dt.facts.cpu_count) {
		/* No MADT (-machine virt,acpi=off): the DT's cpu nodes, as
		 * Linux's of_parse_and_init_cpus() takes them (reg = MPIDR,
		 * enable-method psci: fdt.c kept only those).  Enabled, no GIC
		 * CPU interface named: gic.c takes the DT's GIC node for that,
		 * the same for every CPU. */
		const struct fdt_facts *dt = &r->dt.facts;
		for (uint32_t i = 0; i < dt->cpu_count && i < 64; i++)
			gicc[n++] = (struct acpi_madt_gicc){.mpidr = dt->cpu_mpidr[i], .flags = ACPI_GICC_ENABLED};
		total = dt->cpu_total;
		x->cpu_list_source = "dt";
	}
	if (!n) {
		x->cpu_list_source = NULL;
		x->absent = r->dt.found ? "no GICC entry in the MADT and no PSCI cpu node in the DT: the CPUs' "
					  "MPIDRs are unknown"
					: "no GICC entry in the MADT: the CPUs' MPIDRs are unknown";
		return;
	}
	clean_to_poc(a64_ap_entry, 128);
	uint64_t aff_mask = 0xff00ffffffull; /* Aff3..Aff0 */
	for (uint32_t i = 0; i < n && r->cpu_count < A64_MAX_CPUS; i++) {
		if (!(gicc[i].flags & ACPI_GICC_ENABLED) ||
		    (gicc[i].mpidr & aff_mask) == (r->mpidr & aff_mask))
			continue;
		struct a64_cpu *c = &r->cpus[r->cpu_count++];
		*c = (struct a64_cpu){.mpidr = gicc[i].mpidr & aff_mask};
		boot_block = (struct a64_ap_boot){
			.mair = a64_mair_el1(), .tcr = a64_tcr_el1(), .ttbr0 = a64_ttbr0_el1(),
			.sctlr = a64_sctlr_el1(), .vbar = a64_vbar_el1(),
			.stack_top = (uint64_t)(uintptr_t)(ap_stack[r->cpu_count - 1] + AP_STACK_BYTES),
			.entry = (uint64_t)(uintptr_t)ap_main, .arg = (uint64_t)(uintptr_t)&slot};
		clean_to_poc(&boot_block, sizeof boot_block);
		bool vt = a64_vtimer_wanted(r);
		/* Its GIC pages are proven here, on the boot CPU, before it runs. */
		bool irq = a64_irq_wanted(r) && a64_gic_plan(r, &gicc[i]);
		bool pv = a64_kvm_pv_wanted(r);
		slot = (struct ap_slot){.deadline = tb_now() + r->cntfrq / 1000u *
							    (UP_BUDGET_MS + XC_BUDGET_MS),
					.vtimer_run = vt ? r : NULL, .irq_run = irq ? r : NULL,
					.kvm_pv_run = pv ? r : NULL};
		xc.seq = 0;
		clean_to_poc(&slot, sizeof slot);
		clean_to_poc(&xc, sizeof xc);
		struct a64_smccc_res res = psci(PSCI_CPU_ON_64, c->mpidr,
						(uint64_t)(uintptr_t)a64_ap_entry,
						(uint64_t)(uintptr_t)&boot_block);
		c->cpu_on_status = (int32_t)res.a0;
		if (c->cpu_on_status != 0)
			continue;
		uint64_t up_deadline = tb_now() + r->cntfrq / 1000u * UP_BUDGET_MS;
		uint32_t spins = 0;
		while (__atomic_load_n(&slot.state, __ATOMIC_ACQUIRE) == AP_OFF &&
		       tb_now() < up_deadline && ++spins < SPIN_CAP)
			cpu_relax();
		if (__atomic_load_n(&slot.state, __ATOMIC_ACQUIRE) == AP_OFF) {
			__atomic_store_n(&slot.abort, 1, __ATOMIC_RELEASE);
			c->timed_out = true;
			/* It may still wake on this slot and boot block: none is
			 * reused for another CPU. */
			x->absent = "a CPU accepted CPU_ON but never answered: the rest were not started";
			break;
		}
		c->started = true;
		/* Up with the calls in its slot: no later CPU is handed them. */
		r->kvm_pv.planned |= pv;
		c->midr = (uint32_t)slot.midr;
		c->cntfrq = slot.cntfrq;
		ping_pong(r, c);
		/* Let it finish before its slot and stack are reused (the
		 * virtual timer's share on top when it measures that). */
		if (!vt && !irq && !pv)
			__atomic_store_n(&slot.abort, 1, __ATOMIC_RELEASE);
		spins = 0;
		uint64_t done_deadline = tb_now() + r->cntfrq / 1000u *
					 (UP_BUDGET_MS + (vt ? A64_VTIMER_BUDGET_MS : 0) +
					  (irq ? A64_IRQ_BUDGET_MS : 0) + (pv ? A64_KVM_PV_BUDGET_MS : 0));
		while (__atomic_load_n(&slot.state, __ATOMIC_ACQUIRE) != AP_DONE &&
		       tb_now() < done_deadline && ++spins < SPIN_CAP)
			cpu_relax();
		if (__atomic_load_n(&slot.state, __ATOMIC_ACQUIRE) != AP_DONE) {
			/* Told to stop at its next check; its stack may still be in
			 * use: no other CPU is started. */
			__atomic_store_n(&slot.abort, 1, __ATOMIC_RELEASE);
			if (irq)
				a64_gic_not_finished(r);
			/* Lost in the hypercall only if it had begun the calls. */
			if (pv && __atomic_load_n(&r->kvm_pv.attempted, __ATOMIC_ACQUIRE))
				a64_kvm_pv_not_finished(r);
			x->absent = "a started CPU did not finish: the rest were not started";
			break;
		}
		x->cpus++;
		x->rounds += c->xc_rounds;
		x->backwards += c->xc_backwards;
		if (c->xc_max_backwards > x->max_backwards_ticks)
			x->max_backwards_ticks = c->xc_max_backwards;
		/* The larger magnitude of the two bounds (an empty interval,
		 * hi < lo, is a counter gone backwards: still a magnitude). */
		uint64_t mlo = c->xc_offset_lo < 0 ? -(uint64_t)c->xc_offset_lo : (uint64_t)c->xc_offset_lo;
		uint64_t mhi = c->xc_offset_hi < 0 ? -(uint64_t)c->xc_offset_hi : (uint64_t)c->xc_offset_hi;
		uint64_t bound = mlo > mhi ? mlo : mhi;
		if (bound > x->max_skew_bound_ticks)
			x->max_skew_bound_ticks = bound;
	}
	x->listed = total;
	if (!x->cpus && !x->absent)
		x->absent = "no other CPU started";
}
