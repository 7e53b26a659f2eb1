/* acpi_pm: the ACPI power-management timer, 3.579545 MHz, 24 or 32 bits,
 * at the port (or MMIO address) the FADT names.  Never guessed: without a
 * FADT there is no PM timer to measure, even if one ticks at 0x608. */
#include "acpi_pm.h"
#include "ioports.h"
#include "source.h"
#include "x86.h"
#include "fault.h"
#include "rate.h"
#include "strbuf.h"


static uint16_t pm_port;
static uint64_t pm_mmio;
static uint32_t pm_mask;
static unsigned fadt_width;
static const char *width_evidence;

static uint64_t pmtimer_read_port(void) { return inl(pm_port) & pm_mask; }
static uint64_t pmtimer_read_mmio(void) { return mmio_read32(pm_mmio) & pm_mask; }

/* Reads to look for bits 31:24: a 32-bit counter shows them set in all
 * but 1/256 of its range; 4.7 s would be needed to see a 24-bit one wrap. */
#define WIDTH_CHECK_READS 16

/* Linux masks the PM timer to 24 bits whatever the FADT says
 * (ACPI_PM_MASK): a wrong TMR_VAL_EXT flag would otherwise turn a 24-bit
 * wrap into a jump of ~2^32 ticks.  32 bits only when this machine's
 * counter shows a high bit. */
static unsigned verify_width(struct source_desc *d)
{
	pm_mask = 0xffffffffu;
	uint64_t seen = 0;
	for (int i = 0; i < WIDTH_CHECK_READS; i++)
		seen |= d->read();
	pm_mask = 0x00ffffffu;
	if (fadt_width != 32) {
		width_evidence = "FADT: 24-bit (TMR_VAL_EXT clear)";
		return 24;
	}
	if (seen & 0xff000000u) {
		pm_mask = 0xffffffffu;
		width_evidence = "FADT says 32-bit and bits 31:24 were seen set";
		return 32;
	}
	width_evidence = "FADT says 32-bit but bits 31:24 read 0: treated as 24-bit, as Linux does";
	return 24;
}

static enum source_status acpi_pm_prepare(struct source_desc *d, const struct probe_facts *f)
{
	const struct acpi_pm_timer_info *pm = &f->acpi.pm_timer;
	if (!f->acpi_parsed && !pm->present) {
		str_copy(d->reason, sizeof d->reason, "no usable ACPI tables: PM timer location unknown");
		return SOURCE_ABSENT;
	}
	if (!pm->present) {
		str_copy(d->reason, sizeof d->reason,
			 pm->reason ? pm->reason : "FADT names no PM timer");
		return SOURCE_ABSENT;
	}
	fadt_width = pm->width_bits;
	d->freq_hz = RATE_ACPI_PM_HZ;
	d->freq_origin = "ACPI specification (3.579545 MHz)";
	if (pm->gas.space_id == ACPI_SPACE_IO) {
		if (pm->gas.address == 0 || pm->gas.address > IOPORT_LAST_DWORD) {
			str_copy(d->reason, sizeof d->reason, "FADT PM timer port out of the I/O range");
			return SOURCE_ERROR;
		}
		pm_port = (uint16_t)pm->gas.address;
		d->read = pmtimer_read_port;
		d->width_bits = verify_width(d);
		return SOURCE_OK;
	}
	if (pm->gas.space_id == ACPI_SPACE_MEMORY) {
		uint32_t probe;
		int fault = mmio_read32_safe(pm->gas.address, &probe);
		if (fault) {
			struct strbuf sb;
			sb_init(&sb, d->reason, sizeof d->reason);
			sb_str(&sb, "reading the PM timer at 0x");
			sb_hex(&sb, pm->gas.address, 1);
			sb_str(&sb, " raised ");
			sb_str(&sb, fault_name(fault));
			return SOURCE_ERROR;
		}
		/* Firmware may describe the timer in system memory. */
		pm_mmio = pm->gas.address;
		d->read = pmtimer_read_mmio;
		d->width_bits = verify_width(d);
		return SOURCE_OK;
	}
	str_copy(d->reason, sizeof d->reason, "FADT PM timer in an address space the probe cannot read");
	return SOURCE_ERROR;
}

static void acpi_pm_collect(union source_facts *out)
{
	out->acpi_pm.fadt_width_bits = fadt_width;
	out->acpi_pm.width_evidence = width_evidence;
}

const struct clock_source source_acpi_pm = {
	.name = "acpi_pm",
	.prepare = acpi_pm_prepare,
	.collect = acpi_pm_collect,
	.report_extra = acpi_pm_report_extra,
};
