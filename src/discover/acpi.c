/* ACPI table discovery; see include/acpi.h for the contract.
 *
 * Offsets come from the ACPI specification as mirrored by ACPICA's
 * actbl*.h (see docs/clock-abi-facts.md section 6).  The parser reads every
 * field through load_le*() on bytes returned by the map callback, and only
 * after checking that the bytes lie inside what was mapped. */
#include "acpi.h"
#include "fwtable.h"

#define RSDP_V1_LENGTH 20u
#define RSDP_V2_LENGTH 36u
#define FADT_COPY_LENGTH 276u /* ACPI 6.x FADT; longer ones are cut */
#define FADT_V1_LENGTH 116u
#define FADT_X_PM_TMR_END 220u /* X_PM_TMR_BLK at 208 plus 12 bytes */
#define HPET_LENGTH 56u
#define MADT_ENTRIES_OFFSET 44u
#define SPCR_LENGTH 80u
#define ROOT_MAX_ENTRIES 256u
/* Beyond this many MADT sub-tables the table is garbage, not a machine. */
#define MADT_MAX_ENTRIES 8192u

struct parser {
	struct acpi_info *out;
	acpi_map_fn map;
	void *ctx;
	struct acpi_table scratch; /* stands in when tables[] is full */
};

/* A tiny bounded string builder: the freestanding build has no snprintf. */
struct text {
	char *buf;
	size_t cap;
	size_t len;
};

static void text_init(struct text *t, char *buf, size_t cap)
{
	t->buf = buf;
	t->cap = cap;
	t->len = 0;
	buf[0] = '\0';
}

static void text_char(struct text *t, char c)
{
	if (t->len + 1 >= t->cap)
		return;
	t->buf[t->len++] = c;
	t->buf[t->len] = '\0';
}

static void text_str(struct text *t, const char *s)
{
	for (size_t i = 0; s[i] && i < 256; i++)
		text_char(t, s[i]);
}

static void text_dec(struct text *t, uint64_t v)
{
	char digits[20];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < 20);
	while (n > 0)
		text_char(t, digits[--n]);
}

static void text_hex(struct text *t, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int shift = 60;

	text_str(t, "0x");
	while (shift > 0 && !((v >> shift) & 0xf))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		text_char(t, hex[(v >> shift) & 0xf]);
}

static struct text error_text(struct parser *p, const char *code)
{
	struct acpi_info *out = p->out;
	struct text t;

	if (out->error_count >= ACPI_MAX_ERRORS) {
		static char sink[2];

		out->errors_dropped++;
		text_init(&t, sink, sizeof(sink));
		return t;
	}
	struct acpi_error *e = &out->errors[out->error_count++];
	e->code = code;
	text_init(&t, e->message, sizeof(e->message));
	return t;
}

/* Table signatures and OEM ids are bytes from firmware; keep them
 * printable so they can go into a report unescaped. */
static void copy_printable(char *dst, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[n] = '\0';
}

static void table_text(struct text *t, const struct acpi_table *tab)
{
	text_str(t, tab->signature[0] ? tab->signature : "table");
	text_str(t, " at ");
	text_hex(t, tab->address);
}

static const uint8_t *map_bytes(struct parser *p, uint64_t phys, uint32_t len)
{
	return fw_map_bytes(p->map, p->ctx, phys, len);
}

static void read_gas(struct acpi_gas *gas, const uint8_t *b)
{
	gas->space_id = b[0];
	gas->bit_width = b[1];
	gas->bit_offset = b[2];
	gas->access_size = b[3];
	gas->address = load_le64(b + 4);
}

static struct acpi_table *new_entry(struct parser *p)
{
	struct acpi_info *out = p->out;
	struct acpi_table *tab;

	if (out->table_count < ACPI_MAX_TABLES) {
		tab = &out->tables[out->table_count++];
	} else {
		out->tables_dropped++;
		tab = &p->scratch;
	}
	memset(tab, 0, sizeof(*tab));
	return tab;
}

static void mark_bad(struct parser *p, struct acpi_table *tab,
		     const char *code, const char *status)
{
	str_copy(tab->status, sizeof(tab->status), status);
	struct text t = error_text(p, code);
	table_text(&t, tab);
	text_str(&t, ": ");
	text_str(&t, status);
}

static void read_header(struct acpi_table *tab, const uint8_t *h)
{
	copy_printable(tab->signature, h, 4);
	tab->length = load_le32(h + 4);
	tab->revision = h[8];
	copy_printable(tab->oem_id, h + 10, 6);
	copy_printable(tab->oem_table_id, h + 16, 8);
}

static bool length_sane(struct parser *p, struct acpi_table *tab)
{
	struct text t;

	if (tab->length >= ACPI_HEADER_LENGTH &&
	    tab->length <= ACPI_MAX_TABLE_LENGTH)
		return true;
	text_init(&t, tab->status, sizeof(tab->status));
	text_str(&t, "length ");
	text_dec(&t, tab->length);
	text_str(&t, tab->length < ACPI_HEADER_LENGTH ?
			     " shorter than header" : " exceeds limit");
	mark_bad(p, tab, "ACPI_TABLE_LENGTH", tab->status);
	return false;
}

/* Lists the table at phys (pointed at by `via`) and returns its bytes when
 * the whole claimed length could be mapped; NULL otherwise, with the
 * reason recorded in the entry and in errors[]. */
static const uint8_t *load_table(struct parser *p, uint64_t phys,
				 const char *via, const char *expected,
				 struct acpi_table **entry)
{
	struct acpi_table *tab = new_entry(p);
	const uint8_t *bytes;

	*entry = tab;
	tab->address = phys;
	str_copy(tab->via, sizeof(tab->via), via);
	if (phys == 0) {
		mark_bad(p, tab, "ACPI_NULL_ENTRY", "null entry");
		return NULL;
	}
	bytes = map_bytes(p, phys, ACPI_HEADER_LENGTH);
	if (!bytes) {
		mark_bad(p, tab, "ACPI_TABLE_UNREADABLE", "unreadable");
		return NULL;
	}
	read_header(tab, bytes);
	if (!length_sane(p, tab))
		return NULL;
	bytes = map_bytes(p, phys, tab->length);
	if (!bytes) {
		mark_bad(p, tab, "ACPI_TABLE_UNREADABLE",
			 "unreadable beyond header");
		return NULL;
	}
	tab->readable = true;
	/* The FACS carries no checksum field (ACPI spec, FACS table). */
	tab->checksum_ok = mem_equal(bytes, "FACS", 4) ||
			   fw_byte_sum(bytes, tab->length) == 0;
	if (!tab->checksum_ok)
		mark_bad(p, tab, "ACPI_TABLE_CHECKSUM", "bad checksum");
	if (expected && !mem_equal(bytes, expected, 4)) {
		struct text t;

		text_init(&t, tab->status, sizeof(tab->status));
		text_str(&t, "expected ");
		text_str(&t, expected);
		mark_bad(p, tab, "ACPI_TABLE_SIGNATURE", tab->status);
		return NULL;
	}
	return bytes;
}

/* Bytes of an entry that load_table() found readable. */
static const uint8_t *entry_bytes(struct parser *p, const struct acpi_table *tab)
{
	if (!tab || !tab->readable)
		return NULL;
	return map_bytes(p, tab->address, tab->length);
}

/* ---- RSDP ---------------------------------------------------------- */

static bool parse_rsdp(struct parser *p, uint64_t phys)
{
	struct acpi_rsdp_info *r = &p->out->rsdp;
	const uint8_t *b;
	struct text t;

	r->address = phys;
	b = phys ? map_bytes(p, phys, RSDP_V1_LENGTH) : NULL;
	if (!b || !mem_equal(b, "RSD PTR ", 8)) {
		t = error_text(p, "ACPI_RSDP_MISSING");
		text_str(&t, phys ? "no RSDP signature at " : "no RSDP address");
		if (phys)
			text_hex(&t, phys);
		return false;
	}
	r->found = true;
	r->revision = b[15];
	r->checksum_ok = fw_byte_sum(b, RSDP_V1_LENGTH) == 0;
	copy_printable(r->oem_id, b + 9, 6);
	r->rsdt_address = load_le32(b + 16);
	r->length = RSDP_V1_LENGTH;
	if (!r->checksum_ok) {
		t = error_text(p, "ACPI_RSDP_CHECKSUM");
		text_str(&t, "RSDP checksum (first 20 bytes) is wrong");
	}
	if (r->revision < 2)
		return true;
	/* ACPI 2.0+: the extended part is only trusted when its Length is
	 * sane and the whole structure maps. */
	const uint8_t *x = map_bytes(p, phys, RSDP_V2_LENGTH);
	uint32_t len = x ? load_le32(x + 20) : 0;

	x = NULL;
	if (len >= RSDP_V2_LENGTH && len <= 4096)
		x = map_bytes(p, phys, len);
	if (!x) {
		t = error_text(p, "ACPI_RSDP_LENGTH");
		text_str(&t, "RSDP revision ");
		text_dec(&t, r->revision);
		text_str(&t, " with unusable length ");
		text_dec(&t, len);
		return true;
	}
	r->length = len;
	r->xsdt_address = load_le64(x + 24);
	r->ext_checksum_ok = fw_byte_sum(x, len) == 0;
	if (!r->ext_checksum_ok) {
		t = error_text(p, "ACPI_RSDP_CHECKSUM");
		text_str(&t, "RSDP extended checksum is wrong");
	}
	return true;
}

/* ---- Root table ---------------------------------------------------- */

static const uint8_t *load_root(struct parser *p, const char *sig,
				uint64_t phys, struct acpi_table **entry)
{
	const uint8_t *b = load_table(p, phys, "RSDP", sig, entry);

	if (b) {
		str_copy(p->out->rsdp.root_signature,
			 sizeof(p->out->rsdp.root_signature), sig);
		p->out->rsdp.root_address = phys;
	}
	return b;
}

/* XSDT when the RSDP is 2.0+ and has one, the RSDT otherwise or when the
 * XSDT is unusable (ACPICA falls back the same way). */
static const uint8_t *choose_root(struct parser *p, uint32_t *width,
				  struct acpi_table **entry)
{
	struct acpi_rsdp_info *r = &p->out->rsdp;
	const uint8_t *b = NULL;

	if (r->revision >= 2 && r->xsdt_address) {
		b = load_root(p, "XSDT", r->xsdt_address, entry);
		if (b) {
			*width = 8;
			return b;
		}
		if (r->rsdt_address) {
			struct text t = error_text(p, "ACPI_XSDT_FALLBACK");
			text_str(&t, "XSDT unusable, using the RSDT");
		}
	}
	if (!r->rsdt_address) {
		struct text t = error_text(p, "ACPI_NO_ROOT_TABLE");
		text_str(&t, "RSDP names neither a usable XSDT nor an RSDT");
		return NULL;
	}
	*width = 4;
	return load_root(p, "RSDT", r->rsdt_address, entry);
}

struct found {
	struct acpi_table *fadt, *madt, *hpet, *spcr;
};

static void remember(struct found *f, struct acpi_table *tab)
{
	if (!tab->readable)
		return;
	if (!f->fadt && mem_equal(tab->signature, "FACP", 4))
		f->fadt = tab;
	else if (!f->madt && mem_equal(tab->signature, "APIC", 4))
		f->madt = tab;
	else if (!f->hpet && mem_equal(tab->signature, "HPET", 4))
		f->hpet = tab;
	else if (!f->spcr && mem_equal(tab->signature, "SPCR", 4))
		f->spcr = tab;
}

static void walk_root(struct parser *p, const uint8_t *root,
		      const struct acpi_table *root_tab, uint32_t width,
		      struct found *f)
{
	uint32_t body = root_tab->length - ACPI_HEADER_LENGTH;
	uint32_t count = body / width;

	if (body % width) {
		struct text t = error_text(p, "ACPI_ROOT_LENGTH");
		table_text(&t, root_tab);
		text_str(&t, ": length ");
		text_dec(&t, root_tab->length);
		text_str(&t, " is not header + n*");
		text_dec(&t, width);
	}
	if (count > ROOT_MAX_ENTRIES) {
		p->out->tables_dropped += count - ROOT_MAX_ENTRIES;
		count = ROOT_MAX_ENTRIES;
	}
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = root + ACPI_HEADER_LENGTH + i * width;
		uint64_t addr = width == 8 ? load_le64(e) : load_le32(e);
		struct acpi_table *tab;

		load_table(p, addr, root_tab->signature, NULL, &tab);
		if (tab != &p->scratch)
			remember(f, tab);
	}
}

/* ---- FADT and PM timer --------------------------------------------- */

static void pm_timer_absent(struct acpi_info *out, const char *reason)
{
	out->pm_timer.present = false;
	str_copy(out->pm_timer.absent_reason,
		 sizeof(out->pm_timer.absent_reason), reason);
}

/* Rule (ACPICA's, from the spec): trust Length, not Revision.  The 64-bit
 * X_PM_TMR_BLK wins when the table is long enough to hold it and its
 * address is non-zero; otherwise the 32-bit PM_TMR_BLK, an I/O port, is
 * used when non-zero and PM_TMR_LEN is 4.  A HW-reduced platform has no
 * fixed hardware, so its PM timer is absent whatever the fields say. */
static void choose_pm_timer(struct parser *p, const uint8_t *f, uint32_t len)
{
	struct acpi_info *out = p->out;
	struct acpi_pm_timer_info *pm = &out->pm_timer;
	uint32_t legacy_port = load_le32(f + 76);
	uint8_t legacy_len = f[91];
	struct acpi_gas x;

	read_gas(&x, f + 208);
	pm->width_bits = (out->fadt.flags & ACPI_FADT_TMR_VAL_EXT) ? 32 : 24;
	if (out->fadt.hw_reduced) {
		pm_timer_absent(out, "HW-reduced ACPI (FADT flag bit 20)");
		return;
	}
	if (len >= FADT_X_PM_TMR_END && x.address) {
		if (x.space_id != ACPI_SPACE_IO && x.space_id != ACPI_SPACE_MEMORY) {
			struct text t = error_text(p, "ACPI_PM_TIMER_SPACE");
			text_str(&t, "X_PM_TMR_BLK in address space ");
			text_dec(&t, x.space_id);
			pm_timer_absent(out, "X_PM_TMR_BLK in an unsupported address space");
			return;
		}
		if (legacy_port && legacy_port != x.address) {
			struct text t = error_text(p, "ACPI_PM_TIMER_MISMATCH");
			text_str(&t, "X_PM_TMR_BLK ");
			text_hex(&t, x.address);
			text_str(&t, " differs from PM_TMR_BLK ");
			text_hex(&t, legacy_port);
		}
		pm->present = true;
		pm->gas = x;
		pm->source = "X_PM_TMR_BLK";
		return;
	}
	if (!legacy_port) {
		pm_timer_absent(out, "FADT has no PM timer block");
		return;
	}
	if (legacy_len != 4) {
		struct text t = error_text(p, "ACPI_PM_TIMER_LENGTH");
		text_str(&t, "PM_TMR_LEN is ");
		text_dec(&t, legacy_len);
		text_str(&t, ", not 4");
		pm_timer_absent(out, "PM_TMR_LEN is not 4");
		return;
	}
	pm->present = true;
	pm->gas.space_id = ACPI_SPACE_IO;
	pm->gas.bit_width = 32;
	pm->gas.address = legacy_port;
	pm->source = "PM_TMR_BLK";
}

/* Fields beyond a short FADT read as zero, as in ACPICA, which copies the
 * table into a zeroed full-size FADT before using it. */
static void parse_fadt(struct parser *p, const struct acpi_table *tab)
{
	struct acpi_fadt_info *fadt = &p->out->fadt;
	const uint8_t *b = entry_bytes(p, tab);
	uint8_t f[FADT_COPY_LENGTH];
	uint32_t len;

	if (!b)
		return;
	len = MIN(tab->length, FADT_COPY_LENGTH);
	memset(f, 0, sizeof(f));
	memcpy(f, b, len);
	fadt->present = true;
	fadt->address = tab->address;
	fadt->length = tab->length;
	fadt->revision = tab->revision;
	fadt->minor_revision = f[131] & 0x0f;
	fadt->flags = load_le32(f + 112);
	fadt->hw_reduced = fadt->flags & ACPI_FADT_HW_REDUCED;
	fadt->facs_address = load_le64(f + 132) ? load_le64(f + 132) : load_le32(f + 36);
	fadt->dsdt_address = load_le64(f + 140) ? load_le64(f + 140) : load_le32(f + 40);
	if (tab->length < FADT_V1_LENGTH) {
		struct text t = error_text(p, "ACPI_FADT_SHORT");
		text_str(&t, "FADT length ");
		text_dec(&t, tab->length);
		text_str(&t, " is shorter than ACPI 1.0's 116");
	}
	choose_pm_timer(p, f, tab->length);
}

static void load_fadt_children(struct parser *p)
{
	struct acpi_fadt_info *fadt = &p->out->fadt;
	struct acpi_table *tab;

	/* A HW-reduced platform may omit the FACS; every FADT needs a DSDT. */
	if (fadt->dsdt_address)
		load_table(p, fadt->dsdt_address, "FACP", "DSDT", &tab);
	else {
		struct text t = error_text(p, "ACPI_NO_DSDT");
		text_str(&t, "FADT names no DSDT");
	}
	if (fadt->facs_address)
		load_table(p, fadt->facs_address, "FACP", "FACS", &tab);
}

/* ---- HPET ---------------------------------------------------------- */

static void parse_hpet(struct parser *p, const struct acpi_table *tab)
{
	struct acpi_hpet_info *h = &p->out->hpet;
	const uint8_t *b = entry_bytes(p, tab);
	struct text t;

	if (!b)
		return;
	h->table_address = tab->address;
	if (tab->length < HPET_LENGTH) {
		t = error_text(p, "ACPI_TABLE_TRUNCATED");
		text_str(&t, "HPET length ");
		text_dec(&t, tab->length);
		text_str(&t, " is shorter than 56");
		str_copy(h->absent_reason, sizeof(h->absent_reason),
			 "HPET table too short");
		return;
	}
	h->present = true;
	h->event_timer_block_id = load_le32(b + 36);
	read_gas(&h->base, b + 40);
	h->sequence = b[52];
	h->min_tick = load_le16(b + 53);
	h->page_protection = b[55];
	/* QEMU leaves bit width and access size at 0: only the space and the
	 * address matter for finding the registers. */
	if (h->base.space_id != ACPI_SPACE_MEMORY) {
		t = error_text(p, "ACPI_HPET_BAD_SPACE");
		text_str(&t, "HPET base in address space ");
		text_dec(&t, h->base.space_id);
		text_str(&t, ", not system memory");
		str_copy(h->absent_reason, sizeof(h->absent_reason),
			 "HPET base not in system memory");
		return;
	}
	if (!h->base.address) {
		t = error_text(p, "ACPI_HPET_NO_ADDRESS");
		text_str(&t, "HPET base address is 0");
		str_copy(h->absent_reason, sizeof(h->absent_reason),
			 "HPET base address is 0");
		return;
	}
	h->usable = true;
}

/* ---- MADT ---------------------------------------------------------- */

static void madt_add_cpu(struct acpi_madt_info *m, uint8_t type,
			 uint32_t apic_id, uint32_t uid, uint32_t flags)
{
	m->cpu_entries++;
	if ((type == 0 && apic_id == 0xff) ||
	    (type == 9 && apic_id == 0xffffffffu)) {
		m->invalid_ids++;
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

static void madt_entry(struct parser *p, const uint8_t *e, uint8_t len)
{
	struct acpi_madt_info *m = &p->out->madt;

	switch (e[0]) {
	case 0: /* Processor Local APIC */
		if (len >= 8)
			madt_add_cpu(m, 0, e[3], e[2], load_le32(e + 4));
		break;
	case 1: /* I/O APIC */
		m->ioapic_count++;
		break;
	case 5: /* Local APIC Address Override */
		if (len >= 12)
			m->local_apic_override = load_le64(e + 4);
		break;
	case 9: /* Processor Local x2APIC */
		if (len >= 16)
			madt_add_cpu(m, 9, load_le32(e + 4), load_le32(e + 12),
				     load_le32(e + 8));
		break;
	default:
		break;
	}
}

static void parse_madt(struct parser *p, const struct acpi_table *tab)
{
	struct acpi_madt_info *m = &p->out->madt;
	const uint8_t *b = entry_bytes(p, tab);
	uint32_t off = MADT_ENTRIES_OFFSET;
	struct text t;

	if (!b)
		return;
	if (tab->length < MADT_ENTRIES_OFFSET) {
		t = error_text(p, "ACPI_TABLE_TRUNCATED");
		text_str(&t, "MADT length ");
		text_dec(&t, tab->length);
		text_str(&t, " is shorter than 44");
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
			t = error_text(p, "ACPI_MADT_BAD_ENTRY");
			text_str(&t, "MADT entry at offset ");
			text_dec(&t, off);
			text_str(&t, " has length ");
			text_dec(&t, len);
			text_str(&t, " (");
			text_dec(&t, left);
			text_str(&t, " bytes left)");
			return;
		}
		madt_entry(p, b + off, len);
		off += len;
	}
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
static void count_possible(struct acpi_info *out)
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

/* ---- SPCR ---------------------------------------------------------- */

/* Baud rate codes, SPCR spec; Linux drivers/acpi/spcr.c maps the same. */
static uint32_t spcr_baud(uint8_t code)
{
	switch (code) {
	case 3:
		return 9600;
	case 4:
		return 19200;
	case 6:
		return 57600;
	case 7:
		return 115200;
	default:
		return 0;
	}
}

static void parse_spcr(struct parser *p, const struct acpi_table *tab)
{
	struct acpi_spcr_info *s = &p->out->spcr;
	const uint8_t *b = entry_bytes(p, tab);
	uint8_t f[SPCR_LENGTH];

	if (!b)
		return;
	if (tab->length < SPCR_LENGTH) {
		struct text t = error_text(p, "ACPI_TABLE_TRUNCATED");
		text_str(&t, "SPCR length ");
		text_dec(&t, tab->length);
		text_str(&t, " is shorter than 80");
		if (tab->length < 59)
			return; /* not even the baud rate is there */
	}
	memset(f, 0, sizeof(f));
	memcpy(f, b, MIN(tab->length, SPCR_LENGTH));
	s->present = true;
	s->revision = tab->revision;
	s->interface_type = f[36];
	read_gas(&s->uart, f + 40);
	s->interrupt_type = f[52];
	s->irq = f[53];
	s->gsi = load_le32(f + 54);
	s->baud_rate_code = f[58];
	s->baud_rate = spcr_baud(f[58]);
	/* A 16550 spans 8 ports; anything else is not a port we can drive. */
	s->io_port_usable = s->uart.space_id == ACPI_SPACE_IO &&
			    s->uart.address && s->uart.address <= 0xfff8;
}

/* ---- Top level ----------------------------------------------------- */

static void init_info(struct acpi_info *out)
{
	memset(out, 0, sizeof(*out));
	str_copy(out->pm_timer.absent_reason,
		 sizeof(out->pm_timer.absent_reason), "no FADT");
	str_copy(out->hpet.absent_reason, sizeof(out->hpet.absent_reason),
		 "no HPET table");
}

static void parse_found(struct parser *p, const struct found *f)
{
	if (f->fadt) {
		parse_fadt(p, f->fadt);
		load_fadt_children(p);
	} else {
		struct text t = error_text(p, "ACPI_NO_FADT");
		text_str(&t, "no readable FADT (FACP) in the root table");
	}
	if (f->madt)
		parse_madt(p, f->madt);
	count_possible(p->out);
	if (f->hpet)
		parse_hpet(p, f->hpet);
	else if (acpi_find_table(p->out, "HPET", 0))
		str_copy(p->out->hpet.absent_reason,
			 sizeof(p->out->hpet.absent_reason),
			 "HPET table unreadable");
	if (f->spcr)
		parse_spcr(p, f->spcr);
}

int acpi_parse(struct acpi_info *out, uint64_t rsdp_phys, acpi_map_fn map,
	       void *ctx)
{
	struct parser p = { .out = out, .map = map, .ctx = ctx };
	struct found f = { 0 };
	struct acpi_table *root_tab = NULL;
	const uint8_t *root;
	uint32_t width = 4;

	init_info(out);
	if (!parse_rsdp(&p, rsdp_phys)) {
		str_copy(out->pm_timer.absent_reason,
			 sizeof(out->pm_timer.absent_reason), "no RSDP");
		return -1;
	}
	root = choose_root(&p, &width, &root_tab);
	if (!root) {
		str_copy(out->pm_timer.absent_reason,
			 sizeof(out->pm_timer.absent_reason), "no root table");
		return -1;
	}
	walk_root(&p, root, root_tab, width, &f);
	parse_found(&p, &f);
	return 0;
}

const struct acpi_table *acpi_find_table(const struct acpi_info *info,
					 const char *signature,
					 uint32_t instance)
{
	for (uint32_t i = 0; i < info->table_count && i < ACPI_MAX_TABLES; i++) {
		if (!str_equal(info->tables[i].signature, signature))
			continue;
		if (instance-- == 0)
			return &info->tables[i];
	}
	return NULL;
}

bool acpi_has_error(const struct acpi_info *info, const char *code)
{
	for (uint32_t i = 0; i < info->error_count && i < ACPI_MAX_ERRORS; i++)
		if (str_equal(info->errors[i].code, code))
			return true;
	return false;
}
