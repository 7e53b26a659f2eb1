/* Reads, never writes, the configuration header of every PCI function on
 * the configuration windows (ECAM) the MCFG declares, to find the memory
 * they claim (include/pci.h; decoded by src/decode/pci_bar.c).
 *
 * Why the reads are safe (docs/hostile-machine.md): a window is read only
 * when the firmware's own maps set all of it aside (reserved in the PVH
 * E820 map; reserved in the UEFI memory map, or reserved / MMIO in its GCD
 * map -- never RAM, never a range the firmware knows nothing of); each
 * read is a 32-bit aligned load through the fault guard; configuration
 * reads of the header (vendor, header type, BARs, bridge windows) have no
 * side effects; an absent function answers all-ones and nothing more is
 * read there.  No BAR is sized (sizing writes all-ones).  Bounded twice:
 * a count of reads and a time cap, each named when it ends the scan.
 *
 * Not read: the PCI root bridge's _CRS windows (QEMU declares them by a
 * Name in a Scope reopened apart from the bridge's Device, which the AML
 * scan, having no namespace, cannot tie to the bridge), so an address
 * the root bridge forwards to PCI but no function has claimed yet is not
 * refused on that ground; the set-aside rule (hpet_proof.c) still asks
 * that the firmware reserve it for an HPET. */
#include "pci.h"
#include "facts.h"
#include "platform.h"
#include "acpi.h"
#include "arch_api.h"
#include "fault.h"
#include "strbuf.h"

/* 256 buses x 32 devices answer "absent" in 8,192 reads; a full machine
 * (every function of every device, 17 reads each) would be 139,264 per
 * segment.  The cap allows one fully populated segment. */
#define SCAN_MAX_READS 150000u
/* On hardware an ECAM read takes about a microsecond (8 ms for an empty
 * segment); TCG is slower.  The HPET's proof waits for this at most. */
#define SCAN_MAX_MS 500u

struct scan {
	uint64_t deadline;
	uint32_t reads;
	bool stopped;
	struct pci_scan *out;
};

static bool cfg_read(struct scan *s, uint64_t addr, uint32_t *v)
{
	if (s->reads >= SCAN_MAX_READS || tb_now() > s->deadline) {
		s->stopped = true;
		return false;
	}
	s->reads++;
	if (mmio_read32_safe(addr, v)) {
		*v = ~0u; /* a fault reads as nothing there */
		return true;
	}
	return true;
}

/* One function: its header, its ranges against [addr, addr + len). */
static const char *function_refusal(struct scan *s, uint64_t at, uint32_t bus, uint32_t dev, uint32_t fn,
				    uint64_t addr, uint64_t len, char *why, size_t cap)
{
	uint32_t cfg[PCI_HEADER_DWORDS];
	for (uint32_t i = 0; i < PCI_HEADER_DWORDS; i++)
		if (!cfg_read(s, at + 4 * i, &cfg[i]))
			return NULL;
	struct pci_range r[PCI_MAX_RANGES];
	uint32_t n = pci_header_ranges(cfg, r, &s->out->bars);
	s->out->functions++;
	s->out->bridges += ((cfg[3] >> 16) & 0x7f) == 1;
	return pci_ranges_refusal(r, n, bus, dev, fn, addr, len, why, cap);
}

static const char *window_refusal(struct scan *s, const struct acpi_mcfg_window *w, uint64_t addr, uint64_t len,
				  char *why, size_t cap)
{
	for (uint32_t bus = w->start_bus; bus <= w->end_bus && !s->stopped; bus++) {
		s->out->buses++;
		for (uint32_t dev = 0; dev < 32 && !s->stopped; dev++) {
			uint64_t at0 = w->base + ((uint64_t)bus << 20) + ((uint64_t)dev << 15);
			uint32_t id, hdr;
			if (!cfg_read(s, at0, &id) || (id & 0xffff) == 0xffff || (id & 0xffff) == 0)
				continue;
			if (!cfg_read(s, at0 + 12, &hdr))
				continue;
			uint32_t fns = (hdr >> 16) & 0x80 ? 8 : 1; /* multi-function device */
			for (uint32_t fn = 0; fn < fns && !s->stopped; fn++) {
				uint64_t at = at0 + ((uint64_t)fn << 12);
				if (fn && (!cfg_read(s, at, &id) || (id & 0xffff) == 0xffff))
					continue;
				const char *refused = function_refusal(s, at, bus, dev, fn, addr, len, why, cap);
				if (refused)
					return refused;
			}
		}
	}
	return NULL;
}

/* The first reason the scan is incomplete stands; later ones are left
 * out.  Returns the buffer to append to, or NULL when one stands. */
static struct strbuf *note(struct pci_scan *out, struct strbuf *sb)
{
	if (out->note[0])
		return NULL;
	sb_init(sb, out->note, sizeof out->note);
	return sb;
}

/* The UEFI GCD map's "non-existent": the firmware knows nothing there,
 * which vouches for no configuration window (src/platform/uefi.c's
 * basis text). */
static bool nothing_known(const char *basis)
{
	return basis && str_starts_with(basis, "a hole in the UEFI memory map, non-existent");
}

const char *pci_scan_refusal(const struct probe_facts *f, uint64_t addr, uint64_t len, struct pci_scan *out,
			     char *why, size_t cap)
{
	const struct acpi_mcfg_info *m = &f->acpi.mcfg;
	uint64_t t0 = tb_now(), per_ms = facts_ms_to_cycles(f, 1);
	struct scan s = { .deadline = t0 + per_ms * SCAN_MAX_MS, .out = out };
	const char *refused = NULL;
	memset(out, 0, sizeof *out);
	out->windows = m->stored;
	struct strbuf sb, *n;
	if (!m->present && (n = note(out, &sb)))
		sb_str(n, "no MCFG: no configuration window to read");
	if (m->count > m->stored && (n = note(out, &sb))) {
		sb_str(n, "the MCFG declares ");
		sb_u64(n, m->count);
		sb_str(n, " windows, only the first ");
		sb_u64(n, m->stored);
		sb_str(n, " read");
	}
	for (uint32_t i = 0; i < m->stored && i < ACPI_MAX_MCFG && !refused && !s.stopped; i++) {
		const struct acpi_mcfg_window *w = &m->windows[i];
		if (w->start >= w->end)
			continue;
		/* The window proved before the first read: set aside by the
		 * firmware's maps, whole. */
		const char *basis = NULL;
		const char *not_set_aside = f->plat && f->plat->reserved_read_refusal
						    ? f->plat->reserved_read_refusal(w->start, w->end - w->start, &basis)
						    : "the platform has no memory map to check";
		if (!not_set_aside && nothing_known(basis))
			not_set_aside = "the GCD map knows no device there";
		if (not_set_aside) {
			if ((n = note(out, &sb))) {
				sb_str(n, "configuration window at 0x");
				sb_hex(n, w->start, 1);
				sb_str(n, " not read: ");
				sb_str(n, not_set_aside);
			}
			continue;
		}
		out->windows_read++;
		out->ran = true;
		refused = window_refusal(&s, w, addr, len, why, cap);
	}
	out->config_reads = s.reads;
	if (s.stopped && (n = note(out, &sb))) {
		sb_str(n, "the scan stopped at its cap (");
		sb_u64(n, SCAN_MAX_READS);
		sb_str(n, " reads or ");
		sb_u64(n, SCAN_MAX_MS);
		sb_str(n, " ms) after ");
		sb_u64(n, out->buses);
		sb_str(n, " buses: the rest not read");
	}
	out->complete = out->ran && !s.stopped && out->windows_read == out->windows && m->count == m->stored;
	out->elapsed_us = per_ms >= 1000 ? (tb_now() - t0) / (per_ms / 1000) : 0;
	return refused;
}
