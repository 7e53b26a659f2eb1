/* The MADT: every CPU entry the firmware lists, and from them the number
 * of CPUs Linux makes possible (cpu_possible_mask), which is what a guest
 * sizes per-CPU data and the TSC sync check by.  The rule is Linux's
 * and moves with kernel versions; it is spelled out above
 * acpi_count_possible(). */
#include "acpi_parser.h"

#define MADT_ENTRIES_OFFSET 44u
/* Beyond this many MADT sub-tables the table is garbage, not a machine. */
#define MADT_MAX_ENTRIES 8192u

/* The first few duplicate ids, for the one errors[] entry. */
#define MADT_DUPLICATES_NAMED 3

struct madt_duplicates {
	uint32_t id[MADT_DUPLICATES_NAMED];
	uint32_t entry[MADT_DUPLICATES_NAMED];
};

static bool madt_has_id(const struct acpi_madt_info *m, uint32_t apic_id)
{
	for (uint32_t i = 0; i < m->cpu_count; i++)
		if (m->cpus[i].apic_id == apic_id)
			return true;
	return false;
}

/* An APIC id listed twice names one CPU: the second entry is ignored,
 * the first kept (Linux, topology_register_apic since v6.9: "APIC ID ...
 * already registered", the later one dropped), so the probe never sends
 * INIT to a CPU it already started nor counts it twice. */
static void madt_add_cpu(struct acpi_madt_info *m, struct madt_duplicates *d, uint8_t type,
			 uint32_t apic_id, uint32_t uid, uint32_t flags)
{
	m->cpu_entries++;
	if ((type == 0 && apic_id == 0xff) ||
	    (type == 9 && apic_id == 0xffffffffu)) {
		m->invalid_ids++;
		return;
	}
	if (madt_has_id(m, apic_id)) {
		if (m->duplicate_ids < MADT_DUPLICATES_NAMED) {
			d->id[m->duplicate_ids] = apic_id;
			d->entry[m->duplicate_ids] = m->cpu_entries - 1;
		}
		m->duplicate_ids++;
		return;
	}
	if (flags & ACPI_MADT_CPU_ENABLED)
		m->enabled++;
	else if (flags & ACPI_MADT_CPU_ONLINE_CAPABLE)
		m->online_capable++;
	else
		m->disabled++;
	if (m->cpu_count >= ACPI_MAX_CPUS)
		return;
	struct acpi_madt_cpu *c = &m->cpus[m->cpu_count++];
	c->type = type;
	c->apic_id = apic_id;
	c->processor_uid = uid;
	c->flags = flags;
}

static void madt_entry(struct acpi_parser *p, struct madt_duplicates *d, const uint8_t *e, uint8_t len)
{
	struct acpi_madt_info *m = &p->out->madt;

	switch (e[0]) {
	case 0: /* Processor Local APIC */
		if (len >= 8)
			madt_add_cpu(m, d, 0, e[3], e[2], load_le32(e + 4));
		break;
	case 1: /* I/O APIC: id, reserved, 32-bit address, GSI base */
		if (len >= 12 && m->ioapic_count < ACPI_MAX_IOAPICS)
			m->ioapic_address[m->ioapic_count] = load_le32(e + 4);
		m->ioapic_count++;
		break;
	case 5: /* Local APIC Address Override */
		if (len >= 12)
			m->local_apic_override = load_le64(e + 4);
		break;
	case 9: /* Processor Local x2APIC */
		if (len >= 16)
			madt_add_cpu(m, d, 9, load_le32(e + 4), load_le32(e + 12),
				     load_le32(e + 8));
		break;
	default:
		break;
	}
}

static void name_duplicates(struct acpi_parser *p, const struct acpi_madt_info *m,
			    const struct madt_duplicates *d)
{
	struct strbuf t = acpi_error_text(p, "ACPI_MADT_DUPLICATE_APIC_ID");
	/* An ACPI message holds 95 characters: three ids fit. */
	sb_u64(&t, m->duplicate_ids);
	sb_str(&t, m->duplicate_ids == 1 ? " repeated MADT APIC id" : " repeated MADT APIC ids");
	sb_str(&t, " ignored, first kept:");
	for (uint32_t i = 0; i < m->duplicate_ids && i < MADT_DUPLICATES_NAMED; i++) {
		sb_str(&t, i ? ", " : " ");
		sb_hex0x(&t, d->id[i]);
		sb_str(&t, " (entry ");
		sb_u64(&t, d->entry[i]);
		sb_str(&t, ")");
	}
	if (m->duplicate_ids > MADT_DUPLICATES_NAMED)
		sb_str(&t, ", ...");
}

void acpi_parse_madt(struct acpi_parser *p, const struct acpi_table *tab)
{
	struct acpi_madt_info *m = &p->out->madt;
	const uint8_t *b = acpi_entry_bytes(p, tab);
	uint32_t off = MADT_ENTRIES_OFFSET;
	struct strbuf t;
	struct madt_duplicates dup;

	if (!b)
		return;
	if (tab->length < MADT_ENTRIES_OFFSET) {
		t = acpi_error_text(p, "ACPI_TABLE_TRUNCATED");
		sb_str(&t, "MADT length ");
		sb_u64(&t, tab->length);
		sb_str(&t, " is shorter than 44");
		return;
	}
	m->present = true;
	m->revision = tab->revision;
	m->local_apic_address = load_le32(b + 36);
	m->flags = load_le32(b + 40);
	m->pcat_compat = m->flags & ACPI_MADT_PCAT_COMPAT;
	for (uint32_t n = 0; off < tab->length && n < MADT_MAX_ENTRIES; n++) {
		uint32_t left = tab->length - off;
		uint8_t len = left >= 2 ? b[off + 1] : 0;

		if (len < 2 || len > left) {
			t = acpi_error_text(p, "ACPI_MADT_BAD_ENTRY");
			sb_str(&t, "MADT entry at offset ");
			sb_u64(&t, off);
			sb_str(&t, " has length ");
			sb_u64(&t, len);
			sb_str(&t, " (");
			sb_u64(&t, left);
			sb_str(&t, " bytes left)");
			return;
		}
		madt_entry(p, &dup, b + off, len);
		off += len;
	}
	if (m->duplicate_ids)
		name_duplicates(p, m, &dup);
}

/* Whether Linux reads the Online Capable bit.  It was introduced with ACPI
 * 6.3; since v6.4 (commit "x86/ACPI/boot: Use FADT version to check
 * support for online capable") arch/x86/kernel/acpi/boot.c decides by the
 * FADT revision (> 6, or 6 with minor >= 3).  v5.15..v6.3 used MADT
 * revision >= 5 instead; we follow current kernels. */
static bool online_capable_honoured(const struct acpi_fadt_info *fadt)
{
	return fadt->revision > 6 ||
	       (fadt->revision == 6 && fadt->minor_revision >= 3);
}

static bool apic_id_seen(const struct acpi_madt_info *m, uint32_t upto,
			 uint32_t apic_id)
{
	for (uint32_t i = 0; i < upto; i++)
		if (m->cpus[i].linux_possible && m->cpus[i].apic_id == apic_id)
			return true;
	return false;
}

/* Linux (arch/x86/kernel/acpi/boot.c, acpi_parse_lapic/acpi_parse_x2apic
 * and acpi_is_processor_usable) walks the MADT in table order and
 * registers a CPU for every entry that:
 *   - has a valid id (local APIC id != 0xff, x2APIC id != 0xffffffff);
 *   - is "usable": Enabled; or, when the Online Capable bit is honoured,
 *     Online Capable; or, when it is not honoured, any entry at all (the
 *     legacy meaning of Enabled=0 is "hot-pluggable", which is what QEMU
 *     emits for -smp N,maxcpus=M);
 *   - for x2APIC entries, not an id below 0xff once a local APIC entry was
 *     registered (ACPI 6.5: such CPUs appear in type 0 entries).
 * Registered-but-not-enabled CPUs become "disabled CPUs", which are added
 * to cpu_possible_mask.  Since v6.10-era topology rework a registration
 * of an already known APIC id is ignored; we skip duplicates likewise.
 * Newest kernels ("QEMU expects legacy Enabled=0 LAPIC entries to be
 * counted as usable") keep the legacy rule only under a hypervisor and
 * drop not-enabled, not-online-capable entries on bare metal:
 * possible_cpus_bare_metal gives that count. */
void acpi_count_possible(struct acpi_info *out)
{
	struct acpi_madt_info *m = &out->madt;
	bool honoured = online_capable_honoured(&out->fadt);
	bool lapic_registered = false;

	m->online_capable_honoured = honoured;
	for (uint32_t i = 0; i < m->cpu_count; i++) {
		struct acpi_madt_cpu *c = &m->cpus[i];
		bool enabled = c->flags & ACPI_MADT_CPU_ENABLED;
		bool capable = c->flags & ACPI_MADT_CPU_ONLINE_CAPABLE;

		if (!enabled && honoured && !capable)
			continue;
		if (c->type == 9 && lapic_registered && c->apic_id < 0xff)
			continue;
		if (apic_id_seen(m, i, c->apic_id))
			continue;
		c->linux_possible = true;
		if (c->type == 0)
			lapic_registered = true;
		m->possible_cpus++;
		if (enabled || capable)
			m->possible_cpus_bare_metal++;
	}
	/* Entries beyond cpus[] cannot be checked one by one; count them as
	 * the common case (valid, unique) would be. */
	uint32_t valid = m->enabled + m->online_capable + m->disabled;
	if (valid > m->cpu_count) {
		m->possible_cpus += valid - m->cpu_count;
		m->possible_cpus_bare_metal += valid - m->cpu_count;
	}
}
