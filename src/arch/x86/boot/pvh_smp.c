/* Other CPUs under direct boot: INIT-SIPI-SIPI to each enabled MADT entry,
 * a real-mode trampoline at 0x8000 that joins the BSP's GDT and page
 * tables (pvh_start.S), then a parking loop that runs the work handed to
 * it by ap_start, like UEFI's StartupThisAP.
 *
 * Parked APs sleep in hlt with only the wake-up vector able to reach
 * them, rather than spinning: a spinning vCPU steals host time from the
 * BSP while it measures, and under round-robin TCG halves its speed.
 * Every wait is bounded by the TSC; until something is measured its rate
 * is taken as 4 GHz, so a "10 ms" delay lasts at least 10 ms on any real
 * TSC and every timeout at most a few times longer than asked. */
#include "msr.h"
#include "pvh.h"
#include "platform.h"
#include "x86.h"
#include "acpi.h"
#include "fault.h"
#include "fault_x86.h"
#include "lapic.h"
#include "strbuf.h"

#define ASSUMED_TSC_MHZ 4000ull
#define AP_STACK_BYTES (32u * 1024)
#define TRAMPOLINE_PHYS 0x8000u
#define SIPI_VECTOR (TRAMPOLINE_PHYS >> 12)
#define INIT_DELAY_US 10000
#define SIPI_DELAY_US 200
#define ARRIVAL_TIMEOUT_US 200000
#define ICR_IDLE_TIMEOUT_US 10000
#define REWAKE_INTERVAL_US 1000


/* Written by an AP only: apic_id, arrived, started_gen, done_gen.
 * Written by the BSP only: member, lost, assigned_gen. */
struct ap_slot {
	uint32_t apic_id;
	bool arrived;
	bool member; /* arrived before the boot deadline: takes work */
	bool lost;   /* missed a deadline: given no more work */
	uint32_t assigned_gen; /* bumped by ap_start for this AP alone */
	ap_work_fn fn;         /* the work, written before assigned_gen */
	void *arg;
	uint32_t started_gen, done_gen;
};

/* Read by pvh_start.S while an AP picks its stack. */
uint64_t pvh_ap_stack_base, pvh_ap_stack_bytes;
uint32_t pvh_ap_stack_count, pvh_ap_arrivals;

extern char pvh_trampoline_start[], pvh_trampoline_end[];
/* pvh.c */

static struct ap_slot slots[PLATFORM_MAX_CPUS];
static const struct acpi_madt_info *madt_cpus;
static uint32_t topo_shift, bsp_apic_id;
static struct lapic bsp_lapic;
static uint64_t madt_lapic_base;

static uint64_t deadline_after_us(uint64_t us)
{
	return rdtsc() + us * ASSUMED_TSC_MHZ;
}

static void delay_us(uint64_t us)
{
	uint64_t end = deadline_after_us(us);
	while (rdtsc() < end)
		cpu_relax();
}

/* ---------------------------------------------------------- local APIC */

/* The local APIC is where the CPU's own IA32_APIC_BASE puts it.  The
 * MADT's address (or its type 5 override) names the same place on a sane
 * machine and is only the fallback where that MSR cannot be read: a table
 * is never the reason the probe writes somewhere.  pvh_smp_boot checks
 * the base with platform_mmio_write_check before the first write. */
static struct lapic lapic_this_cpu(uint64_t fallback_base)
{
	uint64_t msr = 0;
	struct lapic l = { false, fallback_base };
	if (rdmsr_safe(MSR_IA32_APICBASE, &msr) != FAULT_NONE)
		return l;
	if (!(msr & APIC_BASE_ENABLE)) {
		msr |= APIC_BASE_ENABLE;
		wrmsr_safe(MSR_IA32_APICBASE, msr);
	}
	l.x2apic = msr & APIC_BASE_X2APIC;
	l.base = msr & 0xfffff000ull;
	return l;
}

/* NULL when the BSP's local APIC may be written (x2APIC: by MSR, no
 * MMIO; xAPIC: a base under the 4 GiB the direct boot maps, and a hole or
 * device memory in the memory map), else why not, in a static buffer. */
static const char *lapic_write_refusal(const struct lapic *l, const struct platform *plat)
{
	static char reason[120];
	if (l->x2apic)
		return NULL;
	const char *why = !l->base || l->base >= (4ull << 30) ? "outside the 4 GiB the direct boot maps"
							      : platform_mmio_write_check(plat, l->base, APIC_MMIO_BYTES);
	if (!why)
		return NULL;
	struct strbuf sb;
	sb_init(&sb, reason, sizeof reason);
	sb_str(&sb, "local APIC at ");
	sb_hex0x(&sb, l->base);
	sb_str(&sb, " not written, APs not started: ");
	sb_str(&sb, why);
	return reason;
}

static uint32_t initial_apic_id(void)
{
	uint32_t r[4];
	cpuid_raw(1, 0, r);
	return r[1] >> 24;
}

static uint32_t lapic_id(const struct lapic *l)
{
	uint32_t id = lapic_read_plain(l, LAPIC_ID);
	return l->x2apic ? id : id >> 24;
}

/* The ICR takes the destination first in xAPIC mode (one 64-bit MSR in
 * x2APIC mode).  The fence orders earlier stores before an x2APIC ICR
 * write, which unlike MMIO is not serializing. */
static bool lapic_send(const struct lapic *l, uint32_t dest, uint32_t icr)
{
	__asm__ volatile("mfence" ::: "memory");
	if (l->x2apic)
		return wrmsr_safe(LAPIC_MSR(LAPIC_ICR_LOW), ((uint64_t)dest << 32) | icr) == FAULT_NONE;
	mmio_write32(l->base + LAPIC_ICR_HIGH, dest << 24);
	mmio_write32(l->base + LAPIC_ICR_LOW, icr);
	uint64_t end = deadline_after_us(ICR_IDLE_TIMEOUT_US);
	while (mmio_read32(l->base + LAPIC_ICR_LOW) & LAPIC_ICR_DELIVERY_PENDING)
		if (rdtsc() > end)
			return false;
	return true;
}

/* ------------------------------------------------------------- the APs */

static uint32_t load_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static uint32_t wait_for_new_work(const struct lapic *self, const struct ap_slot *s, uint32_t seen)
{
	for (;;) {
		__asm__ volatile("cli" ::: "memory");
		uint32_t gen = load_u32(&s->assigned_gen);
		if (gen != seen)
			return gen;
		/* sti's one-instruction shadow makes "sti; hlt" atomic: a
		 * wake-up sent after the check above still ends the hlt. */
		__asm__ volatile("sti; hlt; cli" ::: "memory");
		lapic_write_plain(self, LAPIC_EOI, 0);
	}
}

void pvh_ap_main(uint32_t index)
{
	struct ap_slot *s = &slots[index];
	pvh_idt_load();
	struct lapic self = lapic_this_cpu(0);
	lapic_write_plain(&self, LAPIC_SVR, LAPIC_SVR_ENABLE | SPURIOUS_VECTOR);
	s->apic_id = lapic_id(&self);
	uint32_t seen = load_u32(&s->assigned_gen);
	__atomic_store_n(&s->arrived, true, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t gen = wait_for_new_work(&self, s, seen);
		seen = gen;
		if (__atomic_load_n(&s->lost, __ATOMIC_ACQUIRE))
			halt_forever();
		if (!__atomic_load_n(&s->member, __ATOMIC_ACQUIRE)) {
			store_u32(&s->done_gen, gen);
			continue;
		}
		store_u32(&s->started_gen, gen);
		if (fault_guard_installed())
			fault_guard_load_on_this_cpu();
		s->fn(s->arg);
		store_u32(&s->done_gen, gen);
	}
}

static struct ap_slot *slot_of(uint32_t apic_id)
{
	uint32_t n = MIN(load_u32(&pvh_ap_arrivals), pvh_ap_stack_count);
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(&slots[i].arrived, __ATOMIC_ACQUIRE) && slots[i].apic_id == apic_id)
			return &slots[i];
	return NULL;
}

static bool usable_cpu_entry(const struct acpi_madt_cpu *c)
{
	if (!(c->flags & ACPI_MADT_CPU_ENABLED))
		return false;
	return c->type == 9 ? c->apic_id != 0xffffffffu : c->apic_id != 0xff;
}

/* Starting the APs (issue 41): INIT to every listed AP, one INIT delay,
 * a SIPI to each, the SIPI delay, a second SIPI to each that has not
 * arrived, then one arrival wait for all -- each AP still gets the full
 * INIT-SIPI-SIPI timing (every gap at least what the SDM asks), but a
 * listed CPU that never answers costs a few ICR writes, not the 0.2 s
 * arrival wait it cost one at a time.  The whole start is bounded too:
 * the sends end when START_BUDGET_US is spent (a wedged ICR costs up to
 * ICR_IDLE_TIMEOUT_US a send), and the arrival wait grows with the count
 * only up to ARRIVAL_MAX_US; everything the budget left untried, every
 * CPU that never answered, is named in plat->smp_notes. */
#define START_BUDGET_US 3000000
#define ARRIVAL_PER_AP_US 500
#define ARRIVAL_MAX_US 1000000
#define NOT_STARTED_NAMED 4
#define NOTE_LEN 120 /* an errors[] message */

enum start_state { AP_UNTRIED, AP_INITED, AP_UNREACHABLE, AP_SEND_FAILED, AP_NO_STACK };

static uint32_t start_ids[PLATFORM_MAX_CPUS];
static uint8_t start_state[PLATFORM_MAX_CPUS];
static uint32_t start_count, start_beyond_limit;

static bool budget_left(uint64_t end) { return rdtsc() < end; }

static bool send_init(uint32_t apic_id)
{
	return lapic_send(&bsp_lapic, apic_id, LAPIC_ICR_INIT | LAPIC_ICR_LEVEL | LAPIC_ICR_ASSERT) &&
	       lapic_send(&bsp_lapic, apic_id, LAPIC_ICR_INIT | LAPIC_ICR_LEVEL);
}

static void sipi_round(uint64_t budget_end)
{
	for (uint32_t i = 0; i < start_count && budget_left(budget_end); i++)
		if (start_state[i] == AP_INITED && !slot_of(start_ids[i]))
			lapic_send(&bsp_lapic, start_ids[i], LAPIC_ICR_STARTUP | LAPIC_ICR_ASSERT | SIPI_VECTOR);
	delay_us(SIPI_DELAY_US);
}

static uint32_t arrived_count(void)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < start_count; i++)
		n += start_state[i] == AP_INITED && slot_of(start_ids[i]);
	return n;
}

static void start_aps(uint32_t stacks)
{
	uint64_t budget_end = deadline_after_us(START_BUDGET_US);
	uint32_t inited = 0;
	for (uint32_t i = 0; i < start_count && budget_left(budget_end); i++) {
		uint32_t id = start_ids[i];
		/* xAPIC destinations are 8 bits and 0xff is the broadcast: an id
		 * there would INIT every CPU, the running ones too. */
		if (!bsp_lapic.x2apic && id >= 0xff)
			start_state[i] = AP_UNREACHABLE;
		else if (inited >= stacks)
			start_state[i] = AP_NO_STACK;
		else if (!send_init(id))
			start_state[i] = AP_SEND_FAILED;
		else {
			start_state[i] = AP_INITED;
			inited++;
		}
	}
	if (!inited)
		return;
	delay_us(INIT_DELAY_US);
	sipi_round(budget_end);
	sipi_round(budget_end);
	uint64_t end = deadline_after_us(MIN(ARRIVAL_TIMEOUT_US + (uint64_t)inited * ARRIVAL_PER_AP_US, ARRIVAL_MAX_US));
	while (arrived_count() < inited && rdtsc() < end)
		delay_us(100);
}

static char note_text[6][NOTE_LEN];

/* One line for the APs in state want (want_absent: and not arrived):
 * how many, why, the first few APIC ids; false when there are none. */
static bool note_ids(char *text, enum start_state want, bool want_absent, const char *what)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < start_count; i++)
		if (start_state[i] == want && (!want_absent || !slot_of(start_ids[i])))
			n++;
	if (!n)
		return false;
	struct strbuf sb;
	sb_init(&sb, text, NOTE_LEN);
	sb_u64(&sb, n);
	sb_str(&sb, n == 1 ? " listed CPU " : " listed CPUs ");
	sb_str(&sb, what);
	sb_str(&sb, ", not started: APIC id");
	uint32_t named = 0;
	for (uint32_t i = 0; i < start_count && named < NOT_STARTED_NAMED; i++)
		if (start_state[i] == want && (!want_absent || !slot_of(start_ids[i]))) {
			sb_str(&sb, named++ ? ", " : n == 1 ? " " : "s ");
			sb_hex0x(&sb, start_ids[i]);
		}
	if (n > named)
		sb_str(&sb, ", ...");
	return true;
}

/* The lines for errors[] SMP_CPUS_NOT_STARTED, NULL-ended. */
static void start_notes(struct platform *plat)
{
	static const struct { enum start_state state; bool absent; const char *what; } kinds[] = {
		{ AP_INITED, true, "never answered INIT-SIPI-SIPI" },
		{ AP_UNTRIED, false, "left untried (start budget spent)" },
		{ AP_UNREACHABLE, false, "have ids the xAPIC cannot address" },
		{ AP_SEND_FAILED, false, "took no INIT IPI" },
		{ AP_NO_STACK, false, "had no memory for a stack" },
	};
	uint32_t n = 0;
	for (uint32_t k = 0; k < ARRAY_SIZE(kinds); k++)
		if (note_ids(note_text[n], kinds[k].state, kinds[k].absent, kinds[k].what))
			plat->smp_notes[n] = note_text[n], n++;
	if (start_beyond_limit) {
		struct strbuf sb;
		sb_init(&sb, note_text[n], NOTE_LEN);
		sb_u64(&sb, start_beyond_limit);
		sb_str(&sb, " listed CPUs past the probe's limit of ");
		sb_u64(&sb, PLATFORM_MAX_CPUS);
		sb_str(&sb, ": not started");
		plat->smp_notes[n] = note_text[n], n++;
	}
	plat->smp_notes[n] = NULL;
}

/* ------------------------------------------------------- platform hooks */

static unsigned pvh_cpu_list(struct platform_cpu *cpus, unsigned cap)
{
	unsigned n = 0;
	uint32_t core_mask = (1u << topo_shift) - 1;
	for (uint32_t i = 0; i < madt_cpus->cpu_count && i < ACPI_MAX_CPUS; i++) {
		const struct acpi_madt_cpu *c = &madt_cpus->cpus[i];
		if (!usable_cpu_entry(c))
			continue;
		if (n < cap) {
			struct ap_slot *s = slot_of(c->apic_id);
			bool bsp = c->apic_id == bsp_apic_id;
			bool up = bsp || (s && s->member);
			cpus[n] = (struct platform_cpu){
				.apic_id = c->apic_id,
				.package = topo_shift >= 32 ? 0 : c->apic_id >> topo_shift,
				.core = topo_shift >= 32 ? c->apic_id : c->apic_id & core_mask,
				.bsp = bsp,
				.enabled = up,
				.healthy = bsp || (up && !__atomic_load_n(&s->lost, __ATOMIC_ACQUIRE)),
			};
		}
		n++;
	}
	return n;
}

static bool work_pending(struct ap_slot *s)
{
	return s->member && !__atomic_load_n(&s->lost, __ATOMIC_ACQUIRE) &&
	       load_u32(&s->done_gen) != load_u32(&s->assigned_gen);
}

static void wake_aps(void)
{
	lapic_send(&bsp_lapic, 0, LAPIC_ICR_ALL_BUT_SELF | LAPIC_ICR_ASSERT | WAKE_VECTOR);
}

/* The cpu_list index of an AP -> its slot (the same MADT walk). */
static struct ap_slot *slot_of_cpu(unsigned cpu)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < madt_cpus->cpu_count && i < ACPI_MAX_CPUS; i++) {
		const struct acpi_madt_cpu *c = &madt_cpus->cpus[i];
		if (!usable_cpu_entry(c))
			continue;
		if (n++ == cpu)
			return c->apic_id == bsp_apic_id ? NULL : slot_of(c->apic_id);
	}
	return NULL;
}

/* Hands fn(arg) to one AP's slot without waking it; -1 when the AP is
 * not usable (never arrived, lost, or still inside earlier work). */
static int assign_work(unsigned cpu, ap_work_fn fn, void *arg)
{
	struct ap_slot *s = slot_of_cpu(cpu);
	if (!s || !s->member || __atomic_load_n(&s->lost, __ATOMIC_ACQUIRE))
		return -1;
	/* Still inside earlier work: stuck, give it no more. */
	if (work_pending(s)) {
		__atomic_store_n(&s->lost, true, __ATOMIC_RELEASE);
		return -1;
	}
	s->fn = fn;
	s->arg = arg;
	store_u32(&s->assigned_gen, s->assigned_gen + 1);
	return 0;
}

static int pvh_ap_start(unsigned cpu, ap_work_fn fn, void *arg, uint64_t timeout_us)
{
	(void)timeout_us;
	if (assign_work(cpu, fn, arg))
		return -1;
	wake_aps();
	return 0;
}

static bool pvh_aps_wait(uint64_t timeout_us)
{
	uint64_t end = deadline_after_us(timeout_us);
	uint64_t rewake = deadline_after_us(REWAKE_INTERVAL_US);
	for (;;) {
		bool pending = false, unstarted = false;
		for (uint32_t i = 0; i < pvh_ap_stack_count; i++) {
			if (!work_pending(&slots[i]))
				continue;
			pending = true;
			unstarted |= load_u32(&slots[i].started_gen) != load_u32(&slots[i].assigned_gen);
		}
		if (!pending)
			return true;
		uint64_t now = rdtsc();
		if (now > end)
			break;
		/* Belt and braces: a lost wake-up must cost a millisecond,
		 * not the whole timeout. */
		if (unstarted && now > rewake) {
			wake_aps();
			rewake = deadline_after_us(REWAKE_INTERVAL_US);
		}
		cpu_relax();
	}
	for (uint32_t i = 0; i < pvh_ap_stack_count; i++)
		if (work_pending(&slots[i]))
			__atomic_store_n(&slots[i].lost, true, __ATOMIC_RELEASE);
	return false;
}

/* Every member's slot first, then one wake-up for all: they reach the
 * group's barrier within one IPI of each other. */
static uint32_t pvh_aps_start_together(struct ap_group *g, uint64_t arrive_ms, uint64_t work_ms)
{
	(void)work_ms; /* no firmware here to time the APs out */
	ap_group_open(g, arrive_ms);
	for (uint32_t i = 0; i < g->n; i++) {
		ap_group_starting(&g->m[i]);
		if (assign_work(g->m[i].cpu, ap_group_member_main, &g->m[i]))
			ap_group_start_failed(&g->m[i]);
	}
	wake_aps();
	return ap_group_gather(g);
}

/* The group's own flags say who finished; the slots then follow at once
 * (done_gen is stored right after the work returns), and one still
 * working is marked lost by the wait. */
#define GROUP_SLOT_WAIT_US 20000

static bool pvh_aps_finish_together(struct ap_group *g, uint64_t finish_ms)
{
	bool all = ap_group_finish(g, finish_ms);
	return pvh_aps_wait(GROUP_SLOT_WAIT_US) && all;
}

/* The APs to start, in MADT order (the decoder dropped repeated ids). */
static uint32_t list_aps(const struct acpi_madt_info *madt)
{
	start_count = start_beyond_limit = 0;
	for (uint32_t i = 0; i < madt->cpu_count && i < ACPI_MAX_CPUS; i++) {
		const struct acpi_madt_cpu *c = &madt->cpus[i];
		if (!usable_cpu_entry(c) || c->apic_id == bsp_apic_id)
			continue;
		if (start_count < PLATFORM_MAX_CPUS - 1)
			start_ids[start_count++] = c->apic_id;
		else
			start_beyond_limit++;
	}
	return start_count;
}

/* Stacks for every listed AP if the pool has them, else as many as it
 * has (halving): an AP past them is named, not started. */
static void *alloc_stacks(struct platform *plat, uint32_t *aps)
{
	for (uint32_t n = *aps; n; n /= 2) {
		void *s = plat->alloc_pages((size_t)n * AP_STACK_BYTES);
		if (s) {
			*aps = n;
			return s;
		}
	}
	*aps = 0;
	return NULL;
}

/* Starts the APs together (start_aps: each with the full INIT-SIPI-SIPI
 * timing, the whole bounded), then freezes the set that takes work: an AP arriving after its
 * deadline stays out (cpu_list shows it disabled), so the core never meets
 * a CPU it did not count. */
void pvh_smp_boot(const struct acpi_madt_info *madt, uint32_t package_shift, struct platform *plat)
{
	madt_cpus = madt;
	topo_shift = package_shift;
	madt_lapic_base = madt->local_apic_override ? madt->local_apic_override : madt->local_apic_address;
	bsp_lapic = lapic_this_cpu(madt_lapic_base);
	plat->cpu_list = pvh_cpu_list;
	plat->cpu_list_source = "MADT";
	plat->smp_reason = lapic_write_refusal(&bsp_lapic, plat);
	if (plat->smp_reason) {
		bsp_apic_id = initial_apic_id(); /* no read where no write may go */
		return;
	}
	bsp_apic_id = lapic_id(&bsp_lapic);
	/* Sending IPIs needs the APIC software-enabled; IF stays clear on
	 * the BSP, so enabling it delivers nothing here. */
	lapic_write_plain(&bsp_lapic, LAPIC_SVR, lapic_read_plain(&bsp_lapic, LAPIC_SVR) | LAPIC_SVR_ENABLE);

	uint32_t aps = list_aps(madt);
	void *stacks = aps && plat->alloc_pages ? alloc_stacks(plat, &aps) : NULL;
	if (!stacks) {
		start_aps(0); /* names them: no stack */
		start_notes(plat);
		return;
	}
	pvh_ap_stack_base = (uint64_t)(uintptr_t)stacks;
	pvh_ap_stack_bytes = AP_STACK_BYTES;
	pvh_ap_stack_count = aps;
	uint64_t tramp = TRAMPOLINE_PHYS;
	__asm__("" : "+r"(tramp)); /* fixed low memory: keep -Warray-bounds out */
	memcpy((void *)(uintptr_t)tramp, pvh_trampoline_start,
	       (size_t)(pvh_trampoline_end - pvh_trampoline_start));

	start_aps(aps);
	start_notes(plat);
	for (uint32_t i = 0; i < pvh_ap_stack_count; i++)
		__atomic_store_n(&slots[i].member, __atomic_load_n(&slots[i].arrived, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	plat->ap_start = pvh_ap_start;
	plat->aps_wait = pvh_aps_wait;
	plat->aps_start_together = pvh_aps_start_together;
	plat->aps_finish_together = pvh_aps_finish_together;
}
