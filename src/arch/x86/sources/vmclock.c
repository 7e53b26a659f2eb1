/* vmclock: the VMClock page (Linux ptp_vmclock; QEMU -device vmclock,
 * Firecracker; uapi-group vmclock spec) at the range the ACPI device's
 * _CRS names (found by src/decode/acpi_aml.c).
 *
 * The page is read, never written.  Even so, a firmware-given address is
 * only read when the firmware's own maps set the whole range aside
 * (platform reserved_read_refusal: never memory), and then only its magic
 * until that answers "VCLK": a hostile table could otherwise point the
 * probe at RAM someone owns or at a device whose registers have read side
 * effects.  Every first touch goes through the fault guard, so an
 * unmapped address becomes an error entry.
 *
 * What is measured: one consistent (seqcount-protected) snapshot of the
 * page, as a guest's clock code would take it before trusting its clock;
 * the read returns the disruption marker.  The page is state, not a
 * counter: no behaviour test, no rate.  Where it advertises the TSC's
 * period (counter_id x86_tsc) the report compares that with the measured
 * TSC rate.  Watch mode re-reads the marker and the generation counter
 * every interval (live_state). */
#include "vmclock.h"
#include "source.h"
#include "platform.h"
#include "discover.h"
#include "fault.h"
#include "strbuf.h"

/* Seqcount tries for one snapshot: a hypervisor's update takes
 * microseconds; a thousand tries of a 112-byte copy far exceed that. */
#define SNAPSHOT_TRIES 1000
/* Per measured read: the cost of a read that needs a retry is still a
 * read's cost, but a page stuck odd must not stall the engine. */
#define READ_TRIES 16

static const volatile uint8_t *page;
static size_t readable;
static struct vmclock_facts facts;

static uint64_t vmclock_read(void)
{
	static struct vmclock_page snap;
	uint32_t retries;
	if (vmclock_snapshot(page, readable, &snap, READ_TRIES, &retries) != VMCLOCK_OK)
		__atomic_add_fetch(&facts.busy_reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&facts.read_retries, retries, __ATOMIC_RELAXED);
	return snap.disruption_marker;
}

static enum source_status fail(struct source_desc *d, const char *what, const char *why)
{
	struct strbuf sb;
	sb_init(&sb, d->reason, sizeof d->reason);
	sb_str(&sb, what);
	sb_str(&sb, " at 0x");
	sb_hex(&sb, facts.address, 1);
	sb_str(&sb, ": ");
	sb_str(&sb, why);
	return SOURCE_ERROR;
}

static enum source_status prepare_page(struct source_desc *d, const struct probe_facts *f)
{
	const struct acpi_vmclock_info *vc = &f->acpi.vmclock;
	if (!vc->found) {
		str_copy(d->reason, sizeof d->reason,
			 f->acpi_parsed ? vc->reason : "no usable ACPI tables to find a VMClock device in");
		return SOURCE_ABSENT;
	}
	if (!vc->usable) {
		/* Declared but not locatable: there, and misbehaving. */
		str_copy(d->reason, sizeof d->reason, vc->reason);
		return SOURCE_ERROR;
	}
	facts.address = vc->address;
	facts.length = vc->length;
	if (vc->length < VMCLOCK_MIN_SIZE)
		return fail(d, "VMClock range", "shorter than the structure's 104 bytes");
	const char *basis = NULL;
	const char *refused = f->plat->reserved_read_refusal
				      ? f->plat->reserved_read_refusal(vc->address, vc->length, &basis)
				      : "the platform has no memory map to check";
	if (refused)
		return fail(d, "VMClock page not read", refused);
	facts.address_basis = basis;
	/* One aligned 32-bit read first, through the fault guard: nothing
	 * more is read from an address that does not answer "VCLK". */
	uint32_t magic;
	if (vc->address & 3)
		return fail(d, "VMClock page", "not 4-byte aligned");
	int fault = mmio_read32_safe(vc->address, &magic);
	if (fault)
		return fail(d, "VMClock page", fault_name(fault));
	if (magic != VMCLOCK_MAGIC) {
		char reason[REASON_LEN];
		struct strbuf sb;
		sb_init(&sb, reason, sizeof reason);
		sb_str(&sb, "magic 0x");
		sb_hex(&sb, magic, 8);
		sb_str(&sb, ", not 0x4b4c4356 (\"VCLK\"): nothing more read");
		facts.check = VMCLOCK_BAD_MAGIC;
		return fail(d, "VMClock page", reason);
	}
	/* Only what the structure needs is touched, every page of it first
	 * through the fault guard. */
	readable = (size_t)MIN(vc->length, (uint64_t)VMCLOCK_ABI_SIZE);
	if (!(page = phys_map_guarded(NULL, vc->address, (uint32_t)readable)))
		return fail(d, "VMClock page", "not mapped (the read faulted)");
	struct vmclock_page *p = &facts.page;
	enum vmclock_check c = vmclock_snapshot(page, readable, p, SNAPSHOT_TRIES, &facts.snapshot_retries);
	char reason[REASON_LEN];
	if (c == VMCLOCK_OK)
		c = vmclock_validate(p, vc->length, reason, sizeof reason);
	else
		str_copy(reason, sizeof reason, "seq_count stayed odd or kept changing through 1000 tries");
	facts.check = c;
	if (c != VMCLOCK_OK) {
		page = NULL;
		return fail(d, "VMClock page", reason);
	}
	facts.page_read = true;
	/* The structure may be shorter than what the range reserves. */
	readable = MIN(readable, (size_t)p->size);
	if (p->counter_id == VMCLOCK_COUNTER_X86_TSC)
		facts.counter_hz = vmclock_counter_hz(p->counter_period_frac_sec, p->counter_period_shift);
	d->read = vmclock_read;
	d->state_only = true;
	d->width_bits = 64;
	d->freq_hz = 0;
	d->freq_origin = "none: the page holds state (disruption marker, generation), not a counter";
	return SOURCE_OK;
}

/* The outcome is kept with the facts: the report's vmclock section is
 * written from them alone. */
static enum source_status vmclock_prepare(struct source_desc *d, const struct probe_facts *f)
{
	static const char *const status_names[] = { [SOURCE_OK] = "ok", [SOURCE_ABSENT] = "absent",
						    [SOURCE_ERROR] = "error" };
	memset(&facts, 0, sizeof facts);
	page = NULL;
	enum source_status st = prepare_page(d, f);
	facts.status = status_names[st];
	if (st != SOURCE_OK)
		str_copy(facts.reason, sizeof facts.reason, d->reason);
	return st;
}

static void vmclock_collect(union source_facts *out)
{
	out->vmclock = facts;
	out->vmclock.read_retries = __atomic_load_n(&facts.read_retries, __ATOMIC_RELAXED);
	out->vmclock.busy_reads = __atomic_load_n(&facts.busy_reads, __ATOMIC_RELAXED);
}

/* The page goes on being written by the host (QEMU bumps the marker on
 * every incoming migration and loadvm): a fresh snapshot each interval. */
static void vmclock_live_state(struct source_live_state *out)
{
	memset(out, 0, sizeof *out);
	if (!page)
		return;
	struct vmclock_page p;
	uint32_t retries;
	if (vmclock_snapshot(page, readable, &p, SNAPSHOT_TRIES, &retries) != VMCLOCK_OK)
		return;
	out->vmclock_valid = true;
	out->disruption_marker = p.disruption_marker;
	out->vm_generation_counter = p.vm_generation_counter;
	out->clock_status = p.clock_status;
}

/* Nothing to undo: the page was only read. */
const struct clock_source source_vmclock = {
	.name = "vmclock",
	.prepare = vmclock_prepare,
	.collect = vmclock_collect,
	.live_state = vmclock_live_state,
	.report_section = vmclock_report_section,
};
