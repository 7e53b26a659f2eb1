/* hpet: the HPET main counter at the base the ACPI HPET table gives.  The
 * measured read is what Linux's clocksource does: the low 32 bits of the
 * counter (a 64-bit counter read can tear on 32-bit-only hardware; the
 * capabilities register is read whole once, as Linux does).  OVMF leaves QEMU's
 * HPET halted, so a halted counter is started and the previous
 * configuration restored in finish(). */
#include "hpet.h"
#include "hpet_regs.h"
#include "source.h"
#include "platform.h"
#include "x86.h"
#include "fault.h"
#include "rate.h"
#include "strbuf.h"
#include "util.h"


static uint64_t hpet_base;
static uint32_t saved_config;
static bool we_enabled;       /* ENABLE_CNF still ours to clear in finish() */
static bool enabled_by_probe; /* for the report: outlives finish() */
static uint64_t capabilities;
static char set_aside_by[REASON_LEN];
static bool pci_checked;
static struct pci_scan pci;

static uint64_t hpet_read_counter32(void) { return mmio_read32(hpet_base + HPET_COUNTER); }

static enum source_status fail(struct source_desc *d, const char *what, int fault)
{
	struct strbuf sb;
	sb_init(&sb, d->reason, sizeof d->reason);
	sb_str(&sb, what);
	sb_str(&sb, " at 0x");
	sb_hex(&sb, hpet_base, 1);
	if (fault) {
		sb_str(&sb, " raised ");
		sb_str(&sb, fault_name(fault));
	}
	return SOURCE_ERROR;
}

/* A refusal of the base: the source's reason and, through error_code,
 * an errors[] entry (stage_sources copies it), before any write. */
static enum source_status not_proven(struct source_desc *d, const char *why)
{
	struct strbuf sb;
	sb_init(&sb, d->reason, sizeof d->reason);
	sb_str(&sb, "HPET not proven: ");
	sb_str(&sb, why);
	d->error_code = "HPET_NOT_PROVEN";
	return SOURCE_ERROR;
}

/* True when the low counter word changes within ~1 ms of TSC time. */
static bool counter_moves(const struct probe_facts *f)
{
	uint32_t first = mmio_read32(hpet_base + HPET_COUNTER);
	uint64_t deadline = rdtsc() + facts_ms_to_cycles(f, 1);
	uint64_t cap = facts_spin_cap(f, facts_ms_to_cycles(f, 1)); /* the 1 ms at the spin cost: a stopped TSC */
	for (uint64_t i = 0; i < cap && rdtsc() < deadline; i++)
		if (mmio_read32(hpet_base + HPET_COUNTER) != first)
			return true;
	return false;
}

static enum source_status hpet_prepare(struct source_desc *d, const struct probe_facts *f)
{
	const struct acpi_hpet_info *h = &f->acpi.hpet;
	if (!h->present || !h->usable) {
		str_copy(d->reason, sizeof d->reason,
			 h->reason ? h->reason
					     : (f->acpi_parsed ? "no HPET table in ACPI" : "no usable ACPI tables"));
		return SOURCE_ABSENT;
	}
	hpet_base = h->base.address;
	d->error_code = NULL;
	if (hpet_base & (HPET_BLOCK_BYTES - 1))
		return fail(d, "HPET base from the ACPI table is not 1 KiB aligned", 0);
	/* The proof, before anything at the base is touched beyond the
	 * capabilities read: an address no other device the firmware declares
	 * claims, memory that is not RAM, registers that say "HPET" as the
	 * table does (include/hpet.h).  Asked whether or not the counter needs
	 * the enable write: a device that is not proven to be the HPET is not
	 * measured as one either. */
	char why[REASON_LEN];
	const char *refused = hpet_address_refusal(&f->acpi, hpet_base, why, sizeof why);
	if (!refused)
		refused = platform_mmio_write_check(f->plat, hpet_base, HPET_BLOCK_BYTES);
	if (refused)
		return not_proven(d, refused);
	/* Outside every BAR and bridge window of the PCI functions the MCFG's
	 * windows show (pci.h: read only, bounded; what is proved is in
	 * src/decode/pci_bar.c). */
	pci_checked = true;
	refused = pci_scan_refusal(f, hpet_base, HPET_BLOCK_BYTES, &pci, why, sizeof why);
	if (refused)
		return not_proven(d, refused);
	/* Set aside for an HPET by the firmware: the _CRS of an HPET device
	 * in the AML, or, where the AML cannot say, the memory map's reserved
	 * or MMIO ranges (include/hpet.h).  A block in a hole no map mentions
	 * is nobody's known HPET. */
	char text[REASON_LEN];
	enum hpet_set_aside aside = hpet_set_aside(&f->acpi.hpet_devices, hpet_base, text, sizeof text);
	if (aside == HPET_SET_ASIDE_REFUSED)
		return not_proven(d, text);
	if (aside == HPET_SET_ASIDE_BY_AML) {
		str_copy(set_aside_by, sizeof set_aside_by, text);
	} else {
		const char *basis = NULL;
		const char *map_why = f->plat->reserved_read_refusal
					      ? f->plat->reserved_read_refusal(hpet_base, HPET_BLOCK_BYTES, &basis)
					      : "the platform has no memory map to check";
		/* UEFI's GCD "non-existent" is the firmware knowing nothing
		 * there: no range set aside (src/platform/uefi.c's text). */
		if (!map_why && basis && str_starts_with(basis, "a hole in the UEFI memory map, non-existent"))
			map_why = "the UEFI GCD map knows no device there";
		if (map_why)
			return not_proven(d, hpet_map_refusal(hpet_base, text, map_why, why, sizeof why));
		str_copy(set_aside_by, sizeof set_aside_by, basis ? basis : "the firmware memory map");
	}
	int fault = mmio_read64_safe(hpet_base + HPET_CAP, &capabilities);
	if (fault)
		return fail(d, "reading HPET capabilities", fault);
	uint32_t period_fs = (uint32_t)(capabilities >> 32);
	refused = hpet_registers_refusal(capabilities, h->event_timer_block_id, why, sizeof why);
	if (refused)
		return not_proven(d, refused);
	uint32_t config;
	fault = mmio_read32_safe(hpet_base + HPET_CONFIG, &config);
	if (fault)
		return fail(d, "reading HPET configuration", fault);
	saved_config = config;
	we_enabled = false;
	if (!(config & HPET_ENABLE_CNF)) {
		/* The one write the probe makes at an address a table gave,
		 * only after the proof above.  An HPET already running is
		 * measured read-only. */
		/* Linux's hpet_start_counter without zeroing the counter: the
		 * firmware may have a use for its value. */
		fault = mmio_write32_safe(hpet_base + HPET_CONFIG, config | HPET_ENABLE_CNF);
		if (fault)
			return fail(d, "enabling the HPET counter", fault);
		we_enabled = enabled_by_probe = true;
	}
	uint32_t counter;
	fault = mmio_read32_safe(hpet_base + HPET_COUNTER, &counter);
	if (fault)
		return fail(d, "reading the HPET main counter", fault);
	if (!counter_moves(f)) {
		str_copy(d->reason, sizeof d->reason,
			 we_enabled ? "HPET main counter does not move even after setting ENABLE_CNF"
				    : "HPET main counter does not move although ENABLE_CNF is set");
		return SOURCE_ERROR;
	}
	d->read = hpet_read_counter32;
	d->width_bits = 32;
	d->freq_hz = rate_hpet_hz(period_fs);
	d->freq_origin = "HPET capabilities register (period in fs)";
	return SOURCE_OK;
}

static void hpet_finish(void)
{
	if (we_enabled)
		mmio_write32(hpet_base + HPET_CONFIG, saved_config);
	we_enabled = false;
}

static void hpet_collect(union source_facts *out)
{
	out->hpet.read = capabilities != 0;
	out->hpet.capabilities = capabilities;
	out->hpet.enabled_by_probe = enabled_by_probe;
	str_copy(out->hpet.set_aside_by, sizeof out->hpet.set_aside_by, set_aside_by);
	out->hpet.pci_checked = pci_checked;
	out->hpet.pci = pci;
}

const struct clock_source source_hpet = {
	.name = "hpet",
	.prepare = hpet_prepare,
	.finish = hpet_finish,
	.collect = hpet_collect,
	.report_extra = hpet_report_extra,
	.verdict_facts = hpet_verdict_facts,
};
