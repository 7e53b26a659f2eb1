/* hyperv_clocksource_tsc_page: Hyper-V's reference TSC page, read without
 * any exit: ((TSC * scale) >> 64) + offset, in 100 ns units, under a
 * sequence check (TLFS "Partition Reference TSC Mechanism").  A sequence of
 * 0 means the page is invalid right now and Linux falls back to the MSR;
 * that is reported as an error with the reason.  The page is handed back
 * (MSR restored) in finish() so the hypervisor stops writing into memory
 * the firmware reuses. */
#include "hyperv_tsc_page.h"
#include "msr.h"
#include "source.h"
#include "x86.h"
#include "fault.h"
#include "fault_x86.h"
#include "pvclock.h"
#include "strbuf.h"

#define HV_TSC_PAGE_ENABLE 1u
#define HV_MSR_KEEP_MASK 0xffeull /* bits 11:1 are reserved: preserve them */
#define PAGE_READ_RETRIES 1000

static volatile struct hv_ref_tsc_page *page;
static struct hv_ref_tsc_page snapshot; /* the page as prepare found it */
static uint64_t saved_msr;
static bool enabled_by_us;
static uint32_t invalid_reads;

/* Linux's hv_read_tsc_page_tsc(): sequence, scale and offset, then the
 * CPU's ordered TSC read (rdtsc_ordered()), then the sequence again. */
static inline __attribute__((always_inline)) uint64_t read_page(enum tsc_read how)
{
	uint64_t t = 0;
	for (int i = 0; i < PAGE_READ_RETRIES; i++) {
		uint32_t seq = page->tsc_sequence;
		compiler_barrier();
		uint64_t scale = page->tsc_scale;
		int64_t offset = page->tsc_offset;
		uint64_t tsc = rdtsc_ordered_as(how);
		compiler_barrier();
		if (!seq) {
			/* Invalid for now: count it, report the last value. */
			__atomic_add_fetch(&invalid_reads, 1, __ATOMIC_RELAXED);
			return t;
		}
		t = hv_ref_time(tsc, scale, offset);
		if (page->tsc_sequence == seq)
			return t;
	}
	return t;
}

static uint64_t hv_tsc_page_read_lfence(void) { return read_page(TSC_READ_LFENCE); }
static uint64_t hv_tsc_page_read_mfence(void) { return read_page(TSC_READ_MFENCE); }
static uint64_t hv_tsc_page_read_rdtscp(void) { return read_page(TSC_READ_RDTSCP); }

static enum source_status hv_tsc_page_prepare(struct source_desc *d, const struct probe_facts *f)
{
	static uint8_t page_memory[4096] __attribute__((aligned(4096)));
	struct strbuf sb;
	if (!f->hv.hyperv.found) {
		str_copy(d->reason, sizeof d->reason, "no Hyper-V interface in the CPUID hypervisor leaves");
		return SOURCE_ABSENT;
	}
	if (!f->hv.hyperv.tsc_page) {
		str_copy(d->reason, sizeof d->reason,
			 "Hyper-V does not grant AccessPartitionReferenceTsc (0x40000003 EAX[9])");
		return SOURCE_ABSENT;
	}
	int fault = rdmsr_safe(HV_X64_MSR_REFERENCE_TSC, &saved_msr);
	uint64_t gpa = (uint64_t)(uintptr_t)page_memory;
	if (!fault)
		fault = wrmsr_safe(HV_X64_MSR_REFERENCE_TSC, gpa | (saved_msr & HV_MSR_KEEP_MASK) | HV_TSC_PAGE_ENABLE);
	if (fault) {
		sb_init(&sb, d->reason, sizeof d->reason);
		sb_str(&sb, "enabling the reference TSC page (MSR 0x40000021) raised ");
		sb_str(&sb, fault_name(fault));
		return SOURCE_ERROR;
	}
	enabled_by_us = true;
	page = (volatile struct hv_ref_tsc_page *)page_memory;
	/* The hypervisor fills the page on the MSR write; allow it a moment. */
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, 10);
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, 10)); /* the 10 ms at the spin cost: a stopped TSC */
	for (uint64_t spins = 0; !page->tsc_sequence && rdtsc() < deadline && spins < cap; spins++)
		cpu_relax();
	if (!page->tsc_sequence) {
		str_copy(d->reason, sizeof d->reason,
			 "reference TSC page sequence is 0 (invalid): Linux reads the MSR clocksource instead");
		return SOURCE_ERROR;
	}
	snapshot.tsc_sequence = page->tsc_sequence;
	snapshot.tsc_scale = page->tsc_scale;
	snapshot.tsc_offset = page->tsc_offset;
	d->read = f->tsc_read == TSC_READ_RDTSCP   ? hv_tsc_page_read_rdtscp
		  : f->tsc_read == TSC_READ_MFENCE ? hv_tsc_page_read_mfence
						   : hv_tsc_page_read_lfence;
	d->instructions = tsc_read_name(f->tsc_read);
	d->reads_tsc = true; /* the page scales an RDTSC */
	d->width_bits = 64;
	d->freq_hz = HV_REFERENCE_HZ;
	d->freq_origin = "Hyper-V TLFS (100 ns units)";
	return SOURCE_OK;
}

static void hv_tsc_page_finish(void)
{
	if (enabled_by_us)
		wrmsr_safe(HV_X64_MSR_REFERENCE_TSC, saved_msr);
	enabled_by_us = false;
}

static void hv_tsc_page_collect(union source_facts *out)
{
	out->hv_tsc_page.snapshot = snapshot;
	out->hv_tsc_page.invalid_reads = __atomic_load_n(&invalid_reads, __ATOMIC_RELAXED);
}

const struct clock_source source_hyperv_tsc_page = {
	.name = "hyperv_clocksource_tsc_page",
	.prepare = hv_tsc_page_prepare,
	.finish = hv_tsc_page_finish,
	.collect = hv_tsc_page_collect,
	.report_extra = hv_tsc_page_report_extra,
	.verdict_facts = hv_tsc_page_verdict_facts,
};
