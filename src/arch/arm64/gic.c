/* The virtual timer's interrupt, taken for real through the GIC
 * (docs/architecture.md, "src/arch/arm64"): what a guest kernel's timer
 * wake-up pays from CNTV_CVAL_EL0 to its interrupt handler's first
 * instruction, where vtimer.c's firing (ISTATUS polled, IMASK set) stops
 * at the timer.
 *
 * Where.  Never on the boot CPU: AAVMF's tick is its virtual timer, and
 * the firmware owns its GIC CPU interface.  The first CPU cpus.c starts
 * through PSCI takes the measurement; the firmware runs nothing there.
 *
 * What may be touched.  Only the addresses the ACPI MADT names (GICD
 * entry, GICC entries' CPU interface or redistributor base, GICR ranges),
 * or, where there is no MADT (-machine virt,acpi=off), the devicetree's
 * GIC node (src/decode/fdt.c: GICD, GICv2's GICC, GICv3's redistributor
 * regions), and only once the boot CPU has proved, page by page, that EL1's
 * translation tables map them to themselves as Device memory
 * (a64_device_mapped) and that they identify as what the firmware says:
 * GICD_PIDR2's ArchRev agrees with the MADT's version (or the DT's
 * compatible), GICv2's GICC_IIDR
 * is not zero, a redistributor frame's GICR_PIDR2 says GICv3/4 and its
 * GICR_TYPER carries the CPU's affinity.  The GICv3 CPU interface's
 * system registers only when ID_AA64PFR0_EL1.GIC says they exist.
 *
 * What is changed, on that CPU only, and put back.  The PPI's enable bit,
 * priority (and, GICv3, group: Group 1, which is signalled as IRQ), the
 * CPU interface's enable and priority mask (GICv2: GICC_CTLR, GICC_PMR,
 * banked per CPU; GICv3: ICC_SRE_EL1, ICC_PMR_EL1, ICC_IGRPEN1_EL1 and the
 * redistributor's GICR_WAKER, which a CPU fresh from reset has asleep),
 * VBAR_EL1 (vectors.S), the timer's CNTV_CTL/CVAL.  Each is read before
 * it is written, written back as found at the end, and read back: the
 * report's restored.  The distributor's own enables are global and the
 * firmware's: read, never written (a disabled distributor is a reason).
 *
 * Never hang.  IRQs are unmasked only inside a shot's window, which ends
 * at a counter deadline (and an iteration cap); a shot that sees no
 * interrupt masks the timer and counts a timeout, and a few end the run.
 * The handler returns with IRQs masked once it has taken the timer's
 * interrupt (or too many strays), so nothing can storm.  The setup, the
 * shots and the restore each run inside a64_gic_guarded(): an exception
 * there (an undefined register, an abort) is recorded and unwinds to the
 * restore, instead of looping through the firmware's handler. */
#include "a64.h"
#include "a64_probe.h"

#define SHOTS 128u
#define DELAY_US 100u			/* as vtimer.c's: TCG arms take 20 us at times */
#define SHOT_BOUND_US 10000u		/* a window's wait past CVAL, at most */
#define MAX_TIMEOUTS 3u
#define SHOTS_BUDGET_MS 300u		/* of A64_IRQ_BUDGET_MS */
#define SPIN_CAP 10000000u		/* iterations, if CNTFRQ lies */
#define WAIT_US 10000u			/* a GIC state change (WAKER, RWP), at most */
#define STRAY_CAP 8u			/* strays in one window before IRQs stay masked */
/* The PPI's priority while measured, and the mask that lets it through
 * (a priority is signalled when numerically below PMR).  0x80 is
 * implemented at every GIC priority depth (at least 4 bits in the
 * Non-secure view). */
#define PRIO 0x80u
#define PMR_OPEN 0xf0u
#define GICD_CTLR_EN_GRP0 (1u << 0)
#define GICD_CTLR_EN_GRP1 (1u << 1)	/* v3, ARE set: Group 1 (Non-secure or only) */
#define GICD_CTLR_ARE (1u << 4)		/* v3, ARE_NS / ARE: affinity routing */
#define GICC_CTLR_ENABLE (1u << 0)
#define GICC_CTLR_EOIMODE (1u << 9)	/* set: EOIR drops priority only (DIR deactivates) */
#define ICC_CTLR_EOIMODE (1u << 1)
#define PFR0_GIC(p) (((p) >> 24) & 0xfu)

struct a64_guard {
	uint64_t regs[12], sp, armed, esr, elr, far, kind;
};
extern struct a64_guard a64_gic_guard __attribute__((visibility("hidden")));
extern char a64_gic_vectors[] __attribute__((visibility("hidden")));
int a64_gic_guarded(void (*fn)(void *), void *arg) __attribute__((visibility("hidden")));
uint64_t a64_gic_irq_c(uint64_t stamp) __attribute__((visibility("hidden")));

/* ------------------------------------------------ proof, boot CPU */

static struct a64_run *prun;

/* A GIC register read: its page proven Device memory first. */
static bool gic_read(void *ctx, uint64_t addr, uint32_t *v, const char **why)
{
	(void)ctx;
	struct arm64_pt_walk w;
	if (addr & 3) {
		*why = "an unaligned GIC register address";
		return false;
	}
	if ((*why = a64_device_mapped(prun, addr, &w)))
		return false;
	*v = a64_mmio_read32((uintptr_t)addr);
	return true;
}

static const char *prove_page(uint64_t addr)
{
	struct arm64_pt_walk w;
	return a64_device_mapped(prun, addr, &w);
}

/* Where there is no MADT: the devicetree's GIC node and timer PPI
 * (fdt.c decoded them; nothing of them is believed until proven below). */
static const char *take_dt(struct a64_run *r)
{
	struct a64_gic *g = &r->gic;
	const struct fdt_facts *x = &r->dt.facts;
	if (!r->dt.found)
		return "no MADT and no devicetree: the GIC's addresses are unknown";
	if (!x->gic_ok)
		return x->gic_reason ? x->gic_reason : "the devicetree's GIC node does not decode";
	if (!x->vtimer_intid_ok)
		return x->vtimer_intid_reason ? x->vtimer_intid_reason
					      : "the devicetree's timer names no virtual timer PPI";
	g->intid = x->vtimer_intid;
	g->gicd_base = x->gicd_base;
	g->source = "dt";
	return NULL;
}

void a64_gic_discover(struct a64_run *r)
{
	struct a64_gic *g = &r->gic;
	struct a64_irq *q = &r->vtimer.irq;
	prun = r;
	q->absent = "no other CPU started to take it on (never the boot CPU: its GIC and timer are the firmware's)";
	/* The GTDT names the EL1 virtual timer's interrupt; a PPI (16..31)
	 * is what this code can enable per CPU. */
	g->intid = GIC_INTID_VTIMER;
	if (r->gtdt.present && r->gtdt.virtual_el1_gsiv) {
		if (r->gtdt.virtual_el1_gsiv < 16 || r->gtdt.virtual_el1_gsiv > 31) {
			g->absent = "the GTDT's virtual timer interrupt is not a PPI";
			return;
		}
		g->intid = r->gtdt.virtual_el1_gsiv;
	}
	/* The firmware's stated version: the MADT's GICD entry's (0
	 * unstated), or the DT compatible's family (2 or 3). */
	unsigned stated;
	bool from_dt = !r->have_madt_raw;
	if (from_dt) {
		if ((g->absent = take_dt(r)))
			return;
		stated = r->dt.facts.gic_version;
	} else {
		acpi_madt_gic_decode(r->madt_raw, r->madt_len, &g->madt);
		if (g->madt.gicd_count != 1) {
			g->absent = "the MADT does not have exactly one GICD entry";
			return;
		}
		g->gicd_base = g->madt.gicd_base;
		g->source = "acpi_madt";
		stated = g->madt.version;
	}
	if (r->el != 1) {
		g->absent = "not at EL1: neither the translation tables walked nor the vector base are EL1's";
		return;
	}
	/* Which ID block to read depends on the version: one the MADT does
	 * not state is not guessed at (0x10000 bytes of a GICv2's window
	 * may hold its CPU interface). */
	if (stated < 2 || stated > 4) {
		g->absent = stated ? "the MADT's GIC version is not 2, 3 or 4"
				   : "the MADT states no GIC version: which ID registers to read is unknown";
		return;
	}
	uint32_t pidr2_off = stated == 2 ? GICD_PIDR2_V2 : GICD_PIDR2_V3;
	/* The DT states the distributor's size: its ID block must lie in it. */
	if (from_dt && r->dt.facts.gicd_size && r->dt.facts.gicd_size < pidr2_off + 4) {
		g->absent = "the devicetree's distributor region is shorter than its ID registers";
		return;
	}
	uint32_t pidr2 = 0;
	const char *why = NULL;
	if (!gic_read(NULL, g->gicd_base + pidr2_off, &pidr2, &why) ||
	    !gic_read(NULL, g->gicd_base + GICD_CTLR, &(uint32_t){0}, &why)) {
		g->absent = why;
		return;
	}
	g->arch_rev = gic_pidr2_arch_rev(pidr2);
	if ((g->absent = from_dt ? gic_dt_version_check(stated, g->arch_rev, &g->version)
					     : gic_version_check((uint8_t)stated, g->arch_rev, &g->version)))
		return;
	if (g->version == 3 && !PFR0_GIC(r->pfr0)) {
		g->absent = "GICv3 without the CPU interface's system registers (ID_AA64PFR0_EL1.GIC 0)";
		return;
	}
	g->proven = true;
}

bool a64_irq_wanted(const struct a64_run *r)
{
	return r->gic.proven && !r->vtimer.irq.attempted;
}

bool a64_gic_plan(struct a64_run *r, const struct acpi_madt_gicc *cpu)
{
	struct a64_gic *g = &r->gic;
	struct a64_irq *q = &r->vtimer.irq;
	const char *why = NULL;
	prun = r;
	g->planned = false;
	g->cpu_mpidr = cpu->mpidr;
	const struct fdt_facts *dt = &r->dt.facts;
	bool from_dt = !r->have_madt_raw; /* as a64_gic_discover took it */
	if (g->version == 2) {
		uint32_t iidr = 0;
		/* The DT's one CPU interface address is every CPU's (banked). */
		uint64_t gicc = from_dt ? dt->gicc_base : cpu->gicc_base;
		if (!gicc) {
			q->absent = from_dt ? "the devicetree's GIC names no CPU interface (GICv2)"
					    : "the CPU's GICC entry has no CPU interface base (GICv2)";
			return false;
		}
		if (from_dt && dt->gicc_size && dt->gicc_size < GICC_IIDR + 4) {
			q->absent = "the devicetree's CPU interface region is shorter than GICC_IIDR";
			return false;
		}
		if (!gic_read(NULL, gicc + GICC_IIDR, &iidr, &why)) {
			q->absent = why;
			return false;
		}
		if (!iidr) {
			q->absent = from_dt ? "GICC_IIDR reads 0 at the devicetree's CPU interface base: not proven a "
					      "GICv2 CPU interface"
					    : "GICC_IIDR reads 0 at the MADT's CPU interface base: not proven a GICv2 CPU "
					      "interface";
			return false;
		}
		g->gicc_base = gicc;
		g->gicc_iidr = iidr;
	} else if (from_dt) {
		/* Each region walked as a MADT GICR range is: PIDR2 and TYPER
		 * affinity per frame, at the DT's stride if it states one. */
		struct gic_redist rd = {.reason = "the devicetree has no redistributor region"};
		for (uint32_t i = 0; !rd.found && i < dt->gicr_count && i < FDT_MAX_GICR; i++)
			gic_redist_find_stride(dt->gicr[i].base, dt->gicr[i].size, dt->gicr_stride, cpu->mpidr,
					       gic_read, NULL, &rd);
		if (!rd.found) {
			q->absent = rd.reason;
			return false;
		}
		if ((why = prove_page(rd.rd_base + GICR_SGI + GICR_IGROUPR0)) ||
		    (why = prove_page(rd.rd_base + GICR_SGI + GICR_IPRIORITYR))) {
			q->absent = why;
			return false;
		}
		g->gicr_base = rd.rd_base;
		g->gicr_typer = rd.typer;
		g->gicr_frames = rd.frames;
	} else {
		struct gic_redist rd = {.reason = "the MADT has no redistributor (GICC base or GICR range)"};
		if (cpu->gicr_base)
			/* One redistributor, named: its own affinity must still match. */
			gic_redist_find(cpu->gicr_base, 4u * GICR_FRAME, cpu->mpidr, gic_read, NULL, &rd);
		for (uint32_t i = 0; !rd.found && !cpu->gicr_base && i < g->madt.gicr_count &&
				     i < ACPI_MADT_MAX_GICR; i++)
			gic_redist_find(g->madt.gicr[i].base, g->madt.gicr[i].length, cpu->mpidr, gic_read,
					NULL, &rd);
		if (!rd.found) {
			q->absent = rd.reason;
			return false;
		}
		/* The SGI frame's PPI registers share one page. */
		if ((why = prove_page(rd.rd_base + GICR_SGI + GICR_IGROUPR0)) ||
		    (why = prove_page(rd.rd_base + GICR_SGI + GICR_IPRIORITYR))) {
			q->absent = why;
			return false;
		}
		g->gicr_base = rd.rd_base;
		g->gicr_typer = rd.typer;
		g->gicr_frames = rd.frames;
	}
	g->planned = true;
	return true;
}

void a64_gic_not_finished(struct a64_run *r)
{
	struct a64_irq *q = &r->vtimer.irq;
	/* Whatever it wrote may still stand: nothing it measured is shown,
	 * and restored says it was not seen put back. */
	q->absent = "the CPU taking it did not finish within its budget";
	if (q->attempted) {
		q->restored = false;
		q->not_restored = "the CPU did not finish: its GIC and timer state were not seen restored";
	}
}

/* ------------------------------------------- on the measuring CPU */

/* Found before anything is written; `touched` says what to put back. */
enum {
	T_ENABLE = 1u << 0, T_PRIO = 1u << 1, T_GROUP = 1u << 2, T_CPUIF = 1u << 3, T_PMR = 1u << 4,
	T_WAKER = 1u << 5, T_SRE = 1u << 6
};
static struct {
	unsigned version;
	uintptr_t gicd, gicc, rd, sgi;	/* sgi: the PPI registers' frame (v3) or the GICD (v2) */
	uint32_t intid, bit;
	uint32_t enabled, prio_word, group_word, cpuif_ctlr, pmr, waker;
	uint64_t sre, igrpen1;
	bool eoi_dir;			/* v3: EOImode set, DIR deactivates */
	uint32_t touched;
	/* the shot in flight, shared with the handler */
	uint64_t stamp;
	uint32_t seen, closed, stray;
	uint32_t spurious, unexpected;
	const char *why;		/* what stopped the setup */
} cur;

static uint64_t lat[SHOTS], a2h[SHOTS];

/* Waits until (reg & mask) == want, a counter deadline and a cap. */
static bool wait_reg(uintptr_t reg, uint32_t mask, uint32_t want, uint64_t hz)
{
	uint64_t end = a64_stamp() + hz / 1000000u * WAIT_US;
	for (uint32_t i = 0; i < SPIN_CAP; i++) {
		if ((a64_mmio_read32(reg) & mask) == want)
			return true;
		if (a64_stamp() > end)
			return false;
	}
	return false;
}

/* The handler's C half (vectors.S's irq_entry, the stamp taken): the
 * acknowledge, then the timer masked (its level drops: no second
 * delivery), then EOI.  Non-zero: return with IRQs masked. */
uint64_t a64_gic_irq_c(uint64_t stamp)
{
	uint32_t iar = cur.version == 3 ? (uint32_t)a64_icc_iar1() : a64_mmio_read32(cur.gicc + GICC_IAR);
	uint32_t id = gic_iar_intid(iar, cur.version);
	bool ours = id == cur.intid;
	if (gic_intid_special(id)) {
		/* 1023: nothing was pending by the time of the acknowledge. */
		cur.spurious++;
		if (++cur.stray < STRAY_CAP)
			return 0;
		__atomic_store_n(&cur.closed, 1, __ATOMIC_RELEASE);
		return 1;
	}
	if (ours) {
		a64_cntv_ctl_set(A64_CNTV_IMASK);
		cur.stamp = stamp;
		__atomic_store_n(&cur.seen, 1, __ATOMIC_RELEASE);
	} else {
		cur.unexpected++;
	}
	if (cur.version == 3) {
		a64_icc_eoir1(iar);
		if (cur.eoi_dir)
			a64_icc_dir(iar);
	} else {
		a64_mmio_write32(cur.gicc + GICC_EOIR, iar);
	}
	if (ours)
		return 1;
	if (++cur.stray < STRAY_CAP)
		return 0;
	__atomic_store_n(&cur.closed, 1, __ATOMIC_RELEASE);
	return 1;
}

/* The PPI's enable, priority and (v3) group, and the CPU interface. */
static void setup(void *arg)
{
	struct a64_run *r = arg;
	uint64_t hz = r->cntfrq;
	uintptr_t ppi = cur.sgi;	/* v2: the GICD's banked words; v3: the SGI frame */
	uint32_t prio_reg = GICD_IPRIORITYR + (cur.intid & ~3u);
	cur.why = NULL;
	uint32_t dctlr = a64_mmio_read32(cur.gicd + GICD_CTLR);
	if (cur.version == 2 ? !(dctlr & (GICD_CTLR_EN_GRP0 | GICD_CTLR_EN_GRP1))
			     : (dctlr & (GICD_CTLR_ARE | GICD_CTLR_EN_GRP1)) != (GICD_CTLR_ARE | GICD_CTLR_EN_GRP1)) {
		cur.why = cur.version == 2 ? "the distributor is disabled (GICD_CTLR): the firmware's, left alone"
					   : "the distributor has affinity routing or Group 1 off (GICD_CTLR): the "
					     "firmware's, left alone";
		return;
	}
	if (cur.version == 3) {
		cur.sre = a64_icc_sre();
		if (!(cur.sre & 1)) {
			cur.touched |= T_SRE;
			a64_icc_sre_set(cur.sre | 1);
			if (!(a64_icc_sre() & 1)) {
				cur.why = "ICC_SRE_EL1.SRE stays 0: the system register interface is not enabled";
				return;
			}
		}
		cur.waker = a64_mmio_read32(cur.rd + GICR_WAKER);
		if (cur.waker & GICR_WAKER_SLEEP) {
			cur.touched |= T_WAKER;
			a64_mmio_write32(cur.rd + GICR_WAKER, cur.waker & ~GICR_WAKER_SLEEP);
			if (!wait_reg(cur.rd + GICR_WAKER, GICR_WAKER_CHILDREN, 0, hz)) {
				cur.why = "the redistributor did not wake (GICR_WAKER.ChildrenAsleep stayed set)";
				return;
			}
		}
		cur.group_word = a64_mmio_read32(ppi + GICR_IGROUPR0);
		if (!(cur.group_word & cur.bit)) {
			cur.touched |= T_GROUP;
			a64_mmio_write32(ppi + GICR_IGROUPR0, cur.group_word | cur.bit);
			if (!(a64_mmio_read32(ppi + GICR_IGROUPR0) & cur.bit)) {
				cur.why = "the PPI cannot be made Group 1 (GICR_IGROUPR0 reads 0: Secure-only)";
				return;
			}
		}
		cur.eoi_dir = a64_icc_ctlr() & ICC_CTLR_EOIMODE;
	}
	cur.enabled = a64_mmio_read32(ppi + GICD_ISENABLER0) & cur.bit;
	if (cur.enabled) {
		/* Someone's: its handler is not ours to stand in for. */
		cur.why = "the timer's PPI was already enabled on that CPU";
		return;
	}
	cur.prio_word = a64_mmio_read32(ppi + prio_reg);
	cur.touched |= T_PRIO;
	a64_mmio_write32(ppi + prio_reg, gic_prio_set(cur.prio_word, cur.intid, PRIO));
	if (cur.version == 2) {
		cur.cpuif_ctlr = a64_mmio_read32(cur.gicc + GICC_CTLR);
		cur.pmr = a64_mmio_read32(cur.gicc + GICC_PMR);
		cur.touched |= T_PMR | T_CPUIF;
		a64_mmio_write32(cur.gicc + GICC_PMR, PMR_OPEN);
		/* EOImode cleared: GICC_DIR is on a page not proven. */
		a64_mmio_write32(cur.gicc + GICC_CTLR, (cur.cpuif_ctlr | GICC_CTLR_ENABLE) & ~GICC_CTLR_EOIMODE);
		if ((a64_mmio_read32(cur.gicc + GICC_PMR) & 0xffu) <= PRIO) {
			cur.why = "GICC_PMR does not take a mask above the PPI's priority";
			return;
		}
	} else {
		cur.pmr = (uint32_t)a64_icc_pmr();
		cur.igrpen1 = a64_icc_igrpen1();
		cur.touched |= T_PMR | T_CPUIF;
		a64_icc_pmr_set(PMR_OPEN);
		a64_icc_igrpen1_set(1);
		if ((a64_icc_pmr() & 0xffu) <= PRIO) {
			cur.why = "ICC_PMR_EL1 does not take a mask above the PPI's priority";
			return;
		}
	}
	cur.touched |= T_ENABLE;
	a64_mmio_write32(ppi + GICD_ISENABLER0, cur.bit);
}

static void shots(struct a64_run *r, struct a64_irq *q)
{
	uint64_t per_us = r->cntfrq / 1000000u ? r->cntfrq / 1000000u : 1;
	uint64_t bound = per_us * SHOT_BOUND_US;
	uint64_t budget = r->cntfrq / 1000u * SHOTS_BUDGET_MS;
	uint64_t start = a64_stamp();
	uint32_t n = 0;
	q->delay_ticks = per_us * DELAY_US;
	for (uint32_t k = 0; k < SHOTS; k++) {
		if (a64_stamp() - start > budget) {
			q->deadline_hit = true;
			break;
		}
		q->shots++;
		cur.seen = cur.closed = cur.stray = 0;
		uint64_t t_arm = a64_stamp();
		uint64_t cval = t_arm + q->delay_ticks + (k * 7u) % 13u;
		a64_cntv_cval_set(cval);
		a64_cntv_ctl_set(A64_CNTV_ENABLE);
		if (a64_stamp() >= cval) {
			/* Fired before the window opened: the wait would hold the
			 * arm's own delay.  Not counted, as vtimer.c's late arms. */
			a64_cntv_ctl_set(A64_CNTV_IMASK);
			q->late_arm++;
			continue;
		}
		a64_irq_unmask();
		for (uint32_t i = 0; i < SPIN_CAP; i++) {
			if (__atomic_load_n(&cur.seen, __ATOMIC_ACQUIRE) ||
			    __atomic_load_n(&cur.closed, __ATOMIC_ACQUIRE))
				break;
			uint64_t t = a64_stamp();
			if (t > cval && t - cval > bound)
				break;
		}
		a64_irq_mask();
		if (!__atomic_load_n(&cur.seen, __ATOMIC_ACQUIRE)) {
			a64_cntv_ctl_set(A64_CNTV_IMASK);
			if (cur.closed) {
				q->stopped = "interrupts other than the timer's kept coming";
				break;
			}
			if (++q->timeouts >= MAX_TIMEOUTS) {
				q->stopped = "the interrupt did not come within the bound, several times";
				break;
			}
			continue;
		}
		lat[n] = cur.stamp > cval ? cur.stamp - cval : 0;
		a2h[n] = cur.stamp - t_arm;
		/* Counted as it comes: an exception later still reports it. */
		q->fired = ++n;
	}
	gic_lat_summarise(lat, n, &q->lat);
	gic_lat_summarise(a2h, n, &q->arm_to_handler);
}

static void shots_guarded(void *arg)
{
	struct a64_run *r = arg;
	shots(r, &r->vtimer.irq);
}

/* Everything written put back as found, in the reverse order. */
static void restore(void *arg)
{
	struct a64_run *r = arg;
	uintptr_t ppi = cur.sgi;
	uint32_t prio_reg = GICD_IPRIORITYR + (cur.intid & ~3u);
	if (cur.touched & T_ENABLE) {
		a64_mmio_write32(ppi + GICD_ICENABLER0, cur.bit);
		/* GICv3: a disable is complete once GICR_CTLR.RWP reads 0. */
		if (cur.version == 3)
			wait_reg(cur.rd + GICR_CTLR, GICR_CTLR_RWP, 0, r->cntfrq);
	}
	if (cur.touched & T_CPUIF) {
		if (cur.version == 2)
			a64_mmio_write32(cur.gicc + GICC_CTLR, cur.cpuif_ctlr);
		else
			a64_icc_igrpen1_set(cur.igrpen1);
	}
	if (cur.touched & T_PMR) {
		if (cur.version == 2)
			a64_mmio_write32(cur.gicc + GICC_PMR, cur.pmr);
		else
			a64_icc_pmr_set(cur.pmr);
	}
	if (cur.touched & T_PRIO)
		a64_mmio_write32(ppi + prio_reg, cur.prio_word);
	if (cur.touched & T_GROUP)
		a64_mmio_write32(ppi + GICR_IGROUPR0, cur.group_word);
	if (cur.touched & T_WAKER) {
		a64_mmio_write32(cur.rd + GICR_WAKER, cur.waker);
		wait_reg(cur.rd + GICR_WAKER, GICR_WAKER_CHILDREN, cur.waker & GICR_WAKER_CHILDREN, r->cntfrq);
	}
	if (cur.touched & T_SRE)
		a64_icc_sre_set(cur.sre);
}

/* What did not read back as found; NULL when everything did. */
static const char *check_restored(void)
{
	uintptr_t ppi = cur.sgi;
	/* Enabled only when found disabled. */
	if ((cur.touched & T_ENABLE) && (a64_mmio_read32(ppi + GICD_ISENABLER0) & cur.bit))
		return "the PPI's enable bit";
	if ((cur.touched & T_PRIO) &&
	    gic_prio_get(a64_mmio_read32(ppi + GICD_IPRIORITYR + (cur.intid & ~3u)), cur.intid) !=
		    gic_prio_get(cur.prio_word, cur.intid))
		return "the PPI's priority";
	if (cur.version == 2) {
		if ((cur.touched & T_CPUIF) && a64_mmio_read32(cur.gicc + GICC_CTLR) != cur.cpuif_ctlr)
			return "GICC_CTLR";
		if ((cur.touched & T_PMR) && a64_mmio_read32(cur.gicc + GICC_PMR) != cur.pmr)
			return "GICC_PMR";
		return NULL;
	}
	if ((cur.touched & T_GROUP) && (a64_mmio_read32(ppi + GICR_IGROUPR0) & cur.bit) != (cur.group_word & cur.bit))
		return "the PPI's group (GICR_IGROUPR0)";
	if ((cur.touched & T_CPUIF) && a64_icc_igrpen1() != cur.igrpen1)
		return "ICC_IGRPEN1_EL1";
	if ((cur.touched & T_PMR) && a64_icc_pmr() != cur.pmr)
		return "ICC_PMR_EL1";
	if ((cur.touched & T_WAKER) &&
	    (a64_mmio_read32(cur.rd + GICR_WAKER) & GICR_WAKER_SLEEP) != (cur.waker & GICR_WAKER_SLEEP))
		return "GICR_WAKER";
	if ((cur.touched & T_SRE) && a64_icc_sre() != cur.sre)
		return "ICC_SRE_EL1";
	return NULL;
}

static void note_exception(struct a64_irq *q)
{
	q->exception = true;
	q->exc_esr = a64_gic_guard.esr;
	q->exc_elr = a64_gic_guard.elr;
	q->exc_far = a64_gic_guard.far;
	q->exc_kind = a64_gic_guard.kind;
}

void a64_gic_irq_here(struct a64_run *r)
{
	struct a64_gic *g = &r->gic;
	struct a64_irq *q = &r->vtimer.irq;
	uint64_t mpidr = a64_mpidr();
	q->cpu_mpidr = mpidr;
	const uint64_t aff = 0xff00ffffffull;
	if (!g->planned || (mpidr & aff) != (g->cpu_mpidr & aff) || (mpidr & aff) == (r->mpidr & aff)) {
		q->absent = "not on the CPU its GIC pages were proven for";
		return;
	}
	if (a64_spsel() != 1 || ((uintptr_t)a64_gic_vectors & 0x7ffu)) {
		q->absent = "not on SP_EL1, or the vector table is not 2 KiB aligned";
		return;
	}
	uint64_t ctl = a64_cntv_ctl(), cval = a64_cntv_cval();
	if (ctl & A64_CNTV_ENABLE) {
		q->absent = "that CPU's virtual timer was enabled when read: someone's, left alone";
		return;
	}
	cur = (typeof(cur)){0};
	cur.version = g->version;
	cur.intid = g->intid;
	cur.bit = 1u << (g->intid & 31u);
	cur.gicd = (uintptr_t)g->gicd_base;
	cur.gicc = (uintptr_t)g->gicc_base;
	cur.rd = (uintptr_t)g->gicr_base;
	cur.sgi = g->version == 3 ? cur.rd + GICR_SGI : cur.gicd;
	q->attempted = true;
	q->absent = NULL;
	uint64_t daif = a64_daif();
	a64_irq_mask();
	uint64_t vbar = a64_vbar_el1();
	a64_cntv_ctl_set(A64_CNTV_IMASK);
	a64_vbar_el1_set((uint64_t)(uintptr_t)a64_gic_vectors);
	if (a64_gic_guarded(setup, r)) {
		note_exception(q);
		q->absent = "an exception during the GIC's setup (exception_esr)";
	} else if (cur.why) {
		q->absent = cur.why;
	} else if (a64_gic_guarded(shots_guarded, r)) {
		note_exception(q);
		q->absent = "an exception during the shots (exception_esr)";
	}
	a64_irq_mask();
	a64_cntv_ctl_set(A64_CNTV_IMASK);
	q->spurious = cur.spurious;
	q->unexpected = cur.unexpected;
	if (!q->absent && !q->fired)
		q->absent = "the timer's interrupt never reached the handler within the bound";
	if (a64_gic_guarded(restore, r)) {
		note_exception(q);
		q->not_restored = "an exception while restoring";
	} else {
		q->not_restored = check_restored();
	}
	a64_vbar_el1_set(vbar);
	a64_cntv_cval_set(cval);
	a64_cntv_ctl_set(ctl & (A64_CNTV_ENABLE | A64_CNTV_IMASK));
	if (!q->not_restored && a64_vbar_el1() != vbar)
		q->not_restored = "VBAR_EL1";
	if (!q->not_restored && ((a64_cntv_ctl() & 3u) != (ctl & 3u) || a64_cntv_cval() != cval))
		q->not_restored = "CNTV_CTL_EL0/CNTV_CVAL_EL0";
	q->restored = !q->not_restored;
	a64_irq_restore(daif);
}
