/* Arming the local APIC's timers and being woken by them (include/timers.h).
 *
 * On the BSP, interrupts masked except while a shot is awaited.  The
 * shots' vector is the probe's own (TIMER_VECTOR), its gate set in the IDT
 * loaded on this CPU (the fault guard's copy of the firmware's or of the
 * direct-boot table) for the shots only and put back after; every other
 * vector stays what it was.  While shots run, the task priority keeps out
 * every fixed interrupt below the shots' priority class and LINT0 (the
 * 8259's ExtINT path, which ignores the TPR) is masked, so nothing but our
 * timer is taken.  Every LAPIC register touched is read first and written
 * back after: LVT timer, divide, initial count, TSC deadline, TPR, LINT0,
 * the spurious-vector register.
 *
 * LAPIC access: x2APIC mode through MSRs (the guard's wrappers); xAPIC
 * through MMIO at the base IA32_APIC_BASE names, only after the
 * firmware's memory map says that page is not RAM (prepare). */
#include "timers.h"
#include "x86.h"
#include "fault.h"
#include "fault_x86.h"
#include "ioports.h"
#include "lapic.h"
#include "msr.h"
#include "rate.h"
#include "results.h"
#include "strbuf.h"

/* Above every vector firmware routes (OVMF's tick is 0x20) and below the
 * direct-boot build's wake-up (0xf0) and spurious (0xff) vectors. */
#define TIMER_VECTOR 0xe8u
/* Priority class 13: fixed interrupts of vectors under 0xe0 wait. */
#define TPR_BLOCK_BELOW_TIMER 0xd0u
#define SHOT_MIN_NS 20000
#define SHOT_MAX_NS 60000
/* A shot that has not fired this long after it was due has missed. */
#define SHOT_TIMEOUT_NS 20000000ull
#define MAX_MISSES 4
#define CALIBRATION_NS 2000000ull

/* Shared with the interrupt handler, which has no argument: the LAPIC it
 * must EOI, and how many times it ran.  BSP only. */
static struct {
	struct lapic lapic;
	volatile uint32_t fired;
} irq;
extern volatile uint64_t timer_irq_tsc; /* timer_asm.S: the handler's first stamp */
extern char timer_irq_stub[];
void timer_irq_c(void);

/* Called by timer_irq_stub.  Any write to EOI ends the interrupt. */
void timer_irq_c(void)
{
	lapic_write(&irq.lapic, LAPIC_EOI, 0);
	irq.fired++;
}

static void set_reason(char *dst, const char *a, const char *b)
{
	struct strbuf sb;
	sb_init(&sb, dst, REASON_LEN);
	sb_str(&sb, a);
	if (b)
		sb_str(&sb, b);
}

/* Both entries, but a TSC-deadline entry already absent (no CPUID bit)
 * keeps that reason. */
static void not_now(struct timers_result *out, enum timer_status st, const char *why, const char *more)
{
	bool keep = out->tsc_deadline.status == TIMER_ABSENT;
	struct timer_result saved = out->tsc_deadline;
	timers_set_both(out, st, why, more);
	if (keep)
		out->tsc_deadline = saved;
}

void timers_prepare(struct timers_result *out, struct run_results *r)
{
	const struct probe_facts *f = &r->facts;
	struct platform *p = f->plat;
	memset(out, 0, sizeof *out);
	out->vector = TIMER_VECTOR;
	out->apic_present = f->cpu.apic;
	out->deadline_cpuid = f->cpu.tsc_deadline;
	if (!f->cpu.apic) {
		out->unusable_absent = true;
		set_reason(out->unusable_reason, "no local APIC (CPUID.1:EDX[9] clear)", NULL);
		return;
	}
	uint64_t base_msr = 0;
	int fault = rdmsr_safe(MSR_IA32_APICBASE, &base_msr);
	if (fault) {
		set_reason(out->unusable_reason, "IA32_APIC_BASE could not be read: ", fault_name(fault));
		return;
	}
	if (!(base_msr & APIC_BASE_ENABLE)) {
		out->unusable_absent = true;
		set_reason(out->unusable_reason, "the local APIC is disabled (IA32_APIC_BASE bit 11 clear)", NULL);
		return;
	}
	out->x2apic = base_msr & APIC_BASE_X2APIC;
	out->apic_base = base_msr & APIC_BASE_ADDR_MASK;
	if (!out->x2apic) {
		/* Written only where the firmware's map shows device memory
		 * or a hole (issue 25's rule for every table-given base). */
		const char *why = p->mmio_write_refusal ? p->mmio_write_refusal(out->apic_base, APIC_MMIO_BYTES)
							: "no memory map to check the LAPIC's page against";
		if (why) {
			struct strbuf sb;
			sb_init(&sb, out->unusable_reason, sizeof out->unusable_reason);
			sb_str(&sb, "the xAPIC page at ");
			sb_hex0x(&sb, out->apic_base);
			sb_str(&sb, " is not written: ");
			sb_str(&sb, why);
			return;
		}
	}
	out->usable = true;
}

/* TSC ticks per APIC tick x 2^32: the timer counting down from its top,
 * masked, over CALIBRATION_NS, each reading bracketed by the CPU's ordered
 * TSC read (how: the one it proved, tsc_order.h). */
static uint64_t calibrate(struct timer_result *t, uint64_t hz, enum tsc_read how, uint64_t spin_cycles)
{
	uint32_t c0 = 0, c1 = 0;
	uint64_t window = rate_ns_to_cycles(CALIBRATION_NS, hz);
	lapic_write(&irq.lapic, LAPIC_LVT_TIMER, LAPIC_LVT_MASKED | LAPIC_LVT_MODE_ONESHOT | TIMER_VECTOR);
	lapic_write(&irq.lapic, LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_BY_1);
	lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, 0xffffffffu);
	uint64_t a0 = rdtsc_ordered_as(how);
	lapic_read(&irq.lapic, LAPIC_TIMER_CURRENT, &c0);
	uint64_t a1 = rdtsc_ordered_as(how);
	/* The window's spins at the spin cost: ends it should the TSC stop. */
	uint64_t cap = spin_cap(window, spin_cycles);
	for (uint64_t spins = 0; rdtsc() - a1 < window && spins < cap; spins++)
		cpu_relax();
	uint64_t b0 = rdtsc_ordered_as(how);
	lapic_read(&irq.lapic, LAPIC_TIMER_CURRENT, &c1);
	uint64_t b1 = rdtsc_ordered_as(how);
	lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, 0);
	t->calibration_ticks = (b0 + b1) / 2 - (a0 + a1) / 2;
	t->cal_count0 = c0;
	t->cal_count1 = c1;
	t->cal_t0 = (a0 + a1) / 2;
	t->cal_t1 = (b0 + b1) / 2;
	return timers_apic_ratio(c0, (a0 + a1) / 2, c1, (b0 + b1) / 2);
}

/* Waits, interrupts on, until the handler ran or `until` passed; the
 * handler's first stamp, 0 when it did not run. */
static uint64_t await_shot(uint32_t fired_before, uint64_t until, uint64_t cap)
{
	uint64_t got = 0;
	__asm__ volatile("sti" ::: "memory");
	for (uint64_t spins = 0; spins < cap; spins++) {
		if (irq.fired != fired_before) {
			got = timer_irq_tsc;
			break;
		}
		if (rdtsc() > until)
			break;
		cpu_relax();
	}
	__asm__ volatile("cli" ::: "memory");
	if (!got && irq.fired != fired_before)
		got = timer_irq_tsc; /* it came between the last look and cli */
	return got;
}

/* How one timer is armed for a shot `delay` ticks away: the arming write
 * stamped (t0, t1) and when the shot is due; a fault ends the timer. */
struct armer {
	const char *write_fault;  /* reason prefix when the arming write faults */
	const char *never_fired;  /* reason when armed shots never fired */
	int (*arm)(const struct armer *a, uint64_t delay, enum tsc_read how, uint64_t *t0, uint64_t *t1,
		   uint64_t *due);
	void (*disarm)(void);
	uint64_t ratio;           /* one-shot: TSC ticks per APIC tick, 32.32 */
};

static int arm_oneshot(const struct armer *a, uint64_t delay, enum tsc_read how, uint64_t *t0, uint64_t *t1,
		       uint64_t *due)
{
	uint32_t count = timers_apic_count_for(delay, a->ratio);
	*t0 = rdtsc_ordered_as(how);
	int fault = lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, count);
	*t1 = rdtsc_ordered_as(how);
	*due = timers_oneshot_due(*t0, *t1, count, a->ratio);
	return fault;
}

static void disarm_oneshot(void) { lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, 0); }

static int arm_deadline(const struct armer *a, uint64_t delay, enum tsc_read how, uint64_t *t0, uint64_t *t1,
			uint64_t *due)
{
	(void)a;
	*due = rdtsc() + delay;
	*t0 = rdtsc_ordered_as(how);
	int fault = wrmsr_safe(MSR_IA32_TSC_DEADLINE, *due);
	*t1 = rdtsc_ordered_as(how);
	return fault;
}

static void disarm_deadline(void) { wrmsr_safe(MSR_IA32_TSC_DEADLINE, 0); }

/* Up to n shots, within the time budget and MAX_MISSES misses: each armed,
 * awaited until it is SHOT_TIMEOUT_NS overdue, and counted. */
static void shoot(struct timer_result *t, const struct armer *a, uint32_t n, uint64_t hz, uint64_t budget,
		  enum tsc_read how, uint64_t spin_cycles)
{
	/* The shots of the timer being measured: two arrays of
	 * TIMERS_MAX_SHOTS stamps, more than the probe's stack should carry,
	 * so static storage that only this function (BSP only) touches. */
	static struct timer_shots shots;
	timers_shots_init(&shots);
	uint64_t timeout = rate_ns_to_cycles(SHOT_TIMEOUT_NS, hz);
	/* A shot's wait is at most the longest delay plus the timeout: its
	 * spins at the spin cost cap it should the TSC stop. */
	uint64_t wait_cap = spin_cap(t->delay_max_ticks + timeout, spin_cycles);
	uint64_t begin = rdtsc();
	for (uint32_t i = 0; i < n && shots.missed < MAX_MISSES; i++) {
		if (rdtsc() - begin > budget) {
			t->stopped_budget_ms = t->budget_ms;
			break;
		}
		uint64_t delay = timers_shot_delay(i, t->delay_min_ticks, t->delay_max_ticks);
		uint32_t before = irq.fired;
		uint64_t t0, t1, due;
		int fault = a->arm(a, delay, how, &t0, &t1, &due);
		if (fault) {
			t->status = TIMER_ERROR;
			set_reason(t->reason, a->write_fault, fault_name(fault));
			return;
		}
		uint64_t h = await_shot(before, due + timeout, wait_cap);
		if (!h)
			a->disarm();
		timers_shot(&shots, t1 - t0, due, h);
	}
	timers_finish(t, &shots);
	if (t->status != TIMER_OK) {
		t->status = TIMER_ERROR;
		set_reason(t->reason, a->never_fired, NULL);
	}
}

static void shots_oneshot(struct timer_result *t, uint32_t n, uint64_t hz, uint64_t budget, enum tsc_read how,
			  uint64_t spin_cycles)
{
	uint64_t ratio = calibrate(t, hz, how, spin_cycles);
	t->tsc_per_apic_tick_fp32 = ratio;
	t->apic_hz = timers_apic_hz(ratio, hz);
	if (!ratio) {
		t->status = TIMER_ERROR;
		set_reason(t->reason, "the LAPIC timer's current count did not count down", NULL);
		return;
	}
	lapic_write(&irq.lapic, LAPIC_LVT_TIMER, LAPIC_LVT_MODE_ONESHOT | TIMER_VECTOR);
	const struct armer a = { "writing the LAPIC timer's initial count faulted: ",
				 "the LAPIC one-shot timer was armed but never fired", arm_oneshot, disarm_oneshot,
				 ratio };
	shoot(t, &a, n, hz, budget, how, spin_cycles);
}

static void shots_deadline(struct timer_result *t, uint32_t n, uint64_t hz, uint64_t budget, enum tsc_read how,
			   uint64_t spin_cycles)
{
	lapic_write(&irq.lapic, LAPIC_LVT_TIMER, LAPIC_LVT_MODE_DEADLINE | TIMER_VECTOR);
	const struct armer a = { "writing IA32_TSC_DEADLINE faulted: ", "the TSC-deadline timer was armed but never fired",
				 arm_deadline, disarm_deadline, 0 };
	shoot(t, &a, n, hz, budget, how, spin_cycles);
}

static uint32_t shots_for_mode(enum run_mode m)
{
	return m == MODE_QUICK ? 64 : m == MODE_THOROUGH ? 1024 : 256;
}

/* Each timer's time budget: a host that delivers late (ms per shot under
 * load) ends the shots early rather than the run's time growing. */
static uint32_t budget_ms_for_mode(enum run_mode m)
{
	return m == MODE_QUICK ? 50 : m == MODE_THOROUGH ? 2000 : 100;
}

void timers_measure(struct timers_result *out, struct run_results *r, const char *phase, bool firmware_owns_timer)
{
	const struct probe_facts *f = &r->facts;
	uint64_t hz = results_tsc_hz(r);
	uint64_t start = rdtsc();
	out->phase = phase;
	out->tsc_hz = hz;
	out->ran = false;
	out->reason = NULL;
	out->lapic_oneshot = (struct timer_result){ 0 };
	out->tsc_deadline = (struct timer_result){ 0 };
	if (!out->usable) {
		timers_set_both(out, out->unusable_absent ? TIMER_ABSENT : TIMER_ERROR, out->unusable_reason, NULL);
		return;
	}
	/* A property of the CPU, whatever else stops the shots. */
	if (!out->deadline_cpuid) {
		out->tsc_deadline.status = TIMER_ABSENT;
		bool tcg = f->hv.present && f->hv.name && str_equal(f->hv.name, "tcg");
		set_reason(out->tsc_deadline.reason, "no TSC-deadline mode (CPUID.1:ECX[24] clear)",
			   tcg ? ": QEMU's TCG does not emulate the TSC-deadline timer" : NULL);
	}
	if (firmware_owns_timer) {
		not_now(out, TIMER_ABSENT,
			"boot services own the LAPIC timer (the firmware's tick): measured after ExitBootServices, "
			"in a watch= run",
			NULL);
		return;
	}
	uint32_t n = shots_for_mode(f->settings.mode);
	struct timer_result *ts[2] = { &out->lapic_oneshot, &out->tsc_deadline };
	for (int i = 0; i < 2; i++) {
		ts[i]->shots_planned = n;
		ts[i]->budget_ms = budget_ms_for_mode(f->settings.mode);
		ts[i]->delay_min_ticks = rate_ns_to_cycles(SHOT_MIN_NS, hz);
		ts[i]->delay_max_ticks = rate_ns_to_cycles(SHOT_MAX_NS, hz);
	}
	out->lapic_oneshot.method =
		"LVT timer one-shot, divide by 1, on the probe's own vector; each shot the initial count for a "
		"20-60 us delay at the APIC rate calibrated against the TSC (2 ms, masked), the write bracketed by "
		"lfence;rdtsc (arm_cycles, the fault guard's wrapper included); latency = the handler's first "
		"RDTSC (after two pushes) minus the expiry estimated as the write's midpoint plus the count at "
		"that rate; the CPU spins with interrupts on while it waits";
	out->tsc_deadline.method =
		"LVT timer in TSC-deadline mode on the probe's own vector; each shot IA32_TSC_DEADLINE written "
		"20-60 us ahead, the write bracketed by lfence;rdtsc (arm_cycles, the fault guard's wrapper "
		"included); latency = the handler's first RDTSC (after two pushes) minus the deadline written; "
		"the CPU spins with interrupts on while it waits";

	/* What we found, to put back. */
	uint32_t tpr = 0, lint0 = 0, svr = 0;
	struct descriptor_table_ptr idtr;
	irq.lapic.x2apic = out->x2apic;
	irq.lapic.base = out->apic_base;
	bool was_on = irq_save();
	const uint32_t regs[] = { LAPIC_LVT_TIMER, LAPIC_TIMER_DIVIDE, LAPIC_TIMER_INITIAL, LAPIC_TPR,
				  LAPIC_LVT_LINT0, LAPIC_SVR };
	uint32_t *dst[] = { &out->found_lvt, &out->found_divide, &out->found_initial, &tpr, &lint0, &svr };
	int fault = 0;
	for (size_t i = 0; i < ARRAY_SIZE(regs) && !fault; i++)
		fault = lapic_read(&irq.lapic, regs[i], dst[i]);
	if (!fault && out->deadline_cpuid)
		fault = rdmsr_safe(MSR_IA32_TSC_DEADLINE, &out->found_deadline);
	sidt(&idtr);
	if (fault || ((size_t)idtr.limit + 1) / sizeof(struct idt_gate) <= TIMER_VECTOR) {
		irq_restore(was_on);
		not_now(out, TIMER_ERROR, fault ? "reading the LAPIC's timer registers faulted: " : "the IDT has no gate ",
		     fault ? fault_name(fault) : "for the shots' vector");
		return;
	}
	struct idt_gate *gate = (struct idt_gate *)(uintptr_t)idtr.base + TIMER_VECTOR;
	struct idt_gate saved_gate = *gate;
	idt_set_gate(gate, timer_irq_stub);
	/* Nothing but our timer while shots run.  The 8259s first: an
	 * ExtINT they raised while interrupts were off stays pending in the
	 * CPU, and once LINT0 is masked QEMU's TCG can no longer name its
	 * vector, so the first STI would raise #GP instead (seen: "interrupt
	 * -1", error code 0xfffffffffffffff2).  Masking every line drops the
	 * PIC's output, which withdraws the request. */
	if (f->acpi.madt.present && f->acpi.madt.pcat_compat) {
		out->found_pic1_mask = inb(PIC1_DATA_PORT);
		out->found_pic2_mask = inb(PIC2_DATA_PORT);
		outb(PIC2_DATA_PORT, 0xff);
		outb(PIC1_DATA_PORT, 0xff);
		out->pic_masked = true;
	}
	lapic_write(&irq.lapic, LAPIC_LVT_TIMER, out->found_lvt | LAPIC_LVT_MASKED);
	lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, 0);
	if ((tpr & 0xff) < TPR_BLOCK_BELOW_TIMER)
		out->tpr_raised = !lapic_write(&irq.lapic, LAPIC_TPR, TPR_BLOCK_BELOW_TIMER);
	if (!(lint0 & LAPIC_LVT_MASKED))
		out->lint0_masked = !lapic_write(&irq.lapic, LAPIC_LVT_LINT0, lint0 | LAPIC_LVT_MASKED);
	if (!(svr & LAPIC_SVR_ENABLE))
		out->svr_enabled_by_probe = !lapic_write(&irq.lapic, LAPIC_SVR, svr | LAPIC_SVR_ENABLE);
	out->ran = true;

	shots_oneshot(&out->lapic_oneshot, n, hz, rate_ns_to_cycles(out->lapic_oneshot.budget_ms * 1000000ull, hz),
		      r->facts.tsc_read, r->facts.spin_cycles);
	lapic_write(&irq.lapic, LAPIC_LVT_TIMER, out->found_lvt | LAPIC_LVT_MASKED);
	lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, 0);
	if (out->deadline_cpuid) {
		shots_deadline(&out->tsc_deadline, n, hz, rate_ns_to_cycles(out->tsc_deadline.budget_ms * 1000000ull, hz),
			       r->facts.tsc_read, r->facts.spin_cycles);
		wrmsr_safe(MSR_IA32_TSC_DEADLINE, 0);
	}

	/* Back as found: masked first, so no half-restored state fires. */
	bool ok = !lapic_write(&irq.lapic, LAPIC_LVT_TIMER, out->found_lvt | LAPIC_LVT_MASKED);
	ok &= !lapic_write(&irq.lapic, LAPIC_TIMER_DIVIDE, out->found_divide);
	uint32_t mode = out->found_lvt & (3u << 17);
	if (mode == LAPIC_LVT_MODE_DEADLINE) {
		ok &= !lapic_write(&irq.lapic, LAPIC_LVT_TIMER, out->found_lvt);
		/* A deadline already past is not armed again. */
		if (out->found_deadline > rdtsc())
			ok &= !wrmsr_safe(MSR_IA32_TSC_DEADLINE, out->found_deadline);
	} else {
		ok &= !lapic_write(&irq.lapic, LAPIC_TIMER_INITIAL, out->found_initial);
		ok &= !lapic_write(&irq.lapic, LAPIC_LVT_TIMER, out->found_lvt);
	}
	if (out->lint0_masked)
		ok &= !lapic_write(&irq.lapic, LAPIC_LVT_LINT0, lint0);
	if (out->tpr_raised)
		ok &= !lapic_write(&irq.lapic, LAPIC_TPR, tpr);
	if (out->svr_enabled_by_probe)
		ok &= !lapic_write(&irq.lapic, LAPIC_SVR, svr);
	if (out->pic_masked) {
		outb(PIC1_DATA_PORT, out->found_pic1_mask);
		outb(PIC2_DATA_PORT, out->found_pic2_mask);
	}
	*gate = saved_gate;
	out->restored = ok;
	irq_restore(was_on);
	out->elapsed_ticks = rdtsc() - start;
}
