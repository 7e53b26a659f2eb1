/* Devices in AML: the VMClock device (and the HPET's, below) by a bounded scan of one definition block (the
 * DSDT or an SSDT) for a Device whose _HID is "AMZNC10C" or whose _CID is
 * "VMCLOCK", and the memory range its _CRS names.
 *
 * The probe has no AML interpreter and needs none: QEMU (hw/acpi/vmclock.c)
 * and the spec (uapi-group specifications, vmclock.md) declare the device
 * with plain Name() objects, so the scan looks for the byte patterns of
 * those objects and then proves their structure:
 *
 *   DeviceOp   5B 82 PkgLength NameString TermList
 *   NameOp     08 NameString DataRefObject
 *   String     0D ASCII... 00
 *   Package    12 PkgLength NumElements PackageElement...
 *   Buffer     11 PkgLength BufferSize(TermArg) ByteList
 *
 * (ACPI 6.5 section 20, "ACPI Machine Language Specification".)  A Name
 * belongs to the innermost Device whose package encloses it; a match that
 * sits in no Device is not a device.  A _CRS that is a Method cannot be
 * evaluated without an interpreter and is reported as such.  The same scan
 * finds the HPET's Devices (_HID PNP0103, QEMU: EisaId, a DWord) and the
 * memory each one's _CRS names: the range the firmware sets aside for the
 * HPET, which the HPET's base must lie inside (hpet_proof.c).  Every loop
 * is bounded by the block's length times a small constant (MAX_HITS
 * matches, each resolved with one backward walk), so a hostile table costs
 * at most a few passes over its own bytes. */
#include "acpi_parser.h"

#define OP_NAME 0x08
#define OP_SCOPE 0x10
#define OP_BUFFER 0x11
#define OP_PACKAGE 0x12
#define OP_METHOD 0x14
#define OP_STRING 0x0d
#define OP_EXT 0x5b
#define OP_EXT_DEVICE 0x82
#define PREFIX_BYTE 0x0a
#define PREFIX_WORD 0x0b
#define PREFIX_DWORD 0x0c
#define PREFIX_QWORD 0x0e
#define OP_ZERO 0x00
#define OP_ONE 0x01

#define VMCLOCK_HID "AMZNC10C"
#define VMCLOCK_CID "VMCLOCK"

/* Matches resolved per block: a real table has one device with one _HID
 * and one _CID; more are counted, not resolved. */
#define MAX_HITS 8
/* _CRS candidates resolved inside the chosen device (each costs one
 * backward walk, like a match). */
#define MAX_CRS 8
/* Package elements looked at for a _CID list. */
#define MAX_CID_ELEMENTS 16

struct range {
	uint32_t start, end; /* [start, end) of an object in the block */
};

/* PkgLength at b[at]: the package's length counted from b[at] and the
 * bytes the encoding itself takes.  ACPI 6.5 20.2.4: bits 7-6 of the lead
 * byte give 0-3 following bytes; with none, bits 5-0 are the length,
 * otherwise bits 3-0 are its low nibble and each following byte adds 8
 * more bits. */
static bool pkg_length(const uint8_t *b, uint32_t len, uint32_t at, uint32_t *pkglen, uint32_t *enc)
{
	if (at >= len)
		return false;
	uint32_t lead = b[at], follow = lead >> 6;
	if (at + follow >= len)
		return false;
	if (!follow) {
		*pkglen = lead & 0x3f;
	} else {
		if (lead & 0x30) /* bits 5-4 must be zero with following bytes */
			return false;
		uint32_t v = lead & 0x0f;
		for (uint32_t i = 0; i < follow; i++)
			v |= (uint32_t)b[at + 1 + i] << (4 + 8 * i);
		*pkglen = v;
	}
	*enc = follow + 1;
	return *pkglen >= *enc;
}

static bool lead_name_char(uint8_t c) { return (c >= 'A' && c <= 'Z') || c == '_'; }
static bool name_char(uint8_t c) { return lead_name_char(c) || (c >= '0' && c <= '9'); }

static bool name_seg(const uint8_t *b, uint32_t len, uint32_t at)
{
	if (at + 4 > len || !lead_name_char(b[at]))
		return false;
	return name_char(b[at + 1]) && name_char(b[at + 2]) && name_char(b[at + 3]);
}

/* A NameString at b[at]: its length in bytes (0 when malformed), and its
 * text ("\\_SB_.VCLK" style) into out when out is not NULL.  Root '\' or
 * parent '^' prefixes, then a NameSeg, a DualNamePrefix (2E) with two, a
 * MultiNamePrefix (2F) with a count, or the NullName (00). */
static uint32_t name_string(const uint8_t *b, uint32_t len, uint32_t at, struct strbuf *out)
{
	uint32_t p = at, segs;
	if (p < len && b[p] == '\\') {
		if (out)
			sb_char(out, '\\');
		p++;
	} else {
		while (p < len && b[p] == '^' && p - at < 255) {
			if (out)
				sb_char(out, '^');
			p++;
		}
	}
	if (p >= len)
		return 0;
	if (b[p] == 0x00)
		return p + 1 - at;
	if (b[p] == 0x2e) {
		segs = 2;
		p++;
	} else if (b[p] == 0x2f) {
		if (p + 1 >= len)
			return 0;
		segs = b[p + 1];
		p += 2;
		if (!segs)
			return 0;
	} else {
		segs = 1;
	}
	for (uint32_t i = 0; i < segs; i++) {
		if (!name_seg(b, len, p))
			return 0;
		if (out) {
			if (i)
				sb_char(out, '.');
			for (int k = 0; k < 4; k++)
				sb_char(out, (char)b[p + k]);
		}
		p += 4;
	}
	return p - at;
}

/* A Device (5B 82) or Scope (10) at b[at] whose package lies inside the
 * block and holds at least its name: its range, and where its name is. */
static bool container_at(const uint8_t *b, uint32_t len, uint32_t at, bool devices_only, struct range *r,
			 uint32_t *name_at)
{
	uint32_t op_len, pkglen, enc;
	if (at + 1 < len && b[at] == OP_EXT && b[at + 1] == OP_EXT_DEVICE)
		op_len = 2;
	else if (!devices_only && b[at] == OP_SCOPE)
		op_len = 1;
	else
		return false;
	if (!pkg_length(b, len, at + op_len, &pkglen, &enc))
		return false;
	uint64_t end = (uint64_t)at + op_len + pkglen;
	if (end > len)
		return false;
	uint32_t n = name_string(b, len, at + op_len + enc, NULL);
	if (!n || at + op_len + enc + n > end)
		return false;
	r->start = at;
	r->end = (uint32_t)end;
	*name_at = at + op_len + enc;
	return true;
}

/* The innermost container (a Device, or also a Scope) that encloses
 * position pos: walking back from pos, the first one whose package
 * reaches past pos has the latest start, and nested packages nest. */
static bool innermost(const uint8_t *b, uint32_t len, uint32_t pos, bool devices_only, struct range *r,
		      uint32_t *name_at)
{
	for (uint32_t at = pos; at-- > 0;)
		if (container_at(b, len, at, devices_only, r, name_at) && r->end > pos)
			return true;
	return false;
}

/* A String object equal to want at b[at]. */
static bool string_is(const uint8_t *b, uint32_t len, uint32_t at, const char *want)
{
	size_t n = str_len(want);
	return at + n + 2 <= len && b[at] == OP_STRING && mem_equal(b + at + 1, want, n) && b[at + 1 + n] == 0;
}

/* What a scan looks for: a _HID (a String, or an EISA id as a DWord,
 * "EisaId(\"PNP0103\")" compiles to 0C 41 D0 01 03) and a _CID (the
 * same forms, alone or in a Package), and the device's name for reasons. */
struct aml_id {
	const char *hid, *cid; /* String forms; NULL: none */
	uint32_t eisa;         /* the compressed EISA id as a little-endian DWord; 0: none */
};

static const struct aml_id vmclock_id = { VMCLOCK_HID, VMCLOCK_CID, 0 };
/* IA-PC HPET 1.0a section 3.2.5 / ACPI's PNP ids: the HPET is PNP0103. */
static const struct aml_id hpet_id = { "PNP0103", "PNP0103", 0x0301d041u };

/* An id value at b[at]: the String, or DWordPrefix and the EISA id. */
static bool id_is(const uint8_t *b, uint32_t len, uint32_t at, const char *str, uint32_t eisa)
{
	if (str && string_is(b, len, at, str))
		return true;
	return eisa && at + 5 <= len && b[at] == PREFIX_DWORD && load_le32(b + at + 1) == eisa;
}

/* A _CID value: one id, or a Package whose elements include it. */
static bool cid_matches(const uint8_t *b, uint32_t len, uint32_t at, const struct aml_id *id)
{
	uint32_t pkglen, enc;
	if (id_is(b, len, at, id->cid, id->eisa))
		return true;
	if (at >= len || b[at] != OP_PACKAGE || !pkg_length(b, len, at + 1, &pkglen, &enc))
		return false;
	uint64_t end = (uint64_t)at + 1 + pkglen;
	if (end > len)
		return false;
	uint32_t p = at + 1 + enc + 1; /* past NumElements */
	for (int i = 0; i < MAX_CID_ELEMENTS && p < end; i++) {
		if (id_is(b, (uint32_t)end, p, id->cid, id->eisa))
			return true;
		if (b[p] == OP_STRING) { /* another id string: skip it */
			while (p < end && b[p])
				p++;
			p++;
		} else if (b[p] == PREFIX_DWORD) { /* an EISAID */
			p += 5;
		} else {
			return false;
		}
	}
	return false;
}

/* NameOp with a single-segment name equal to seg at b[at]; returns where
 * its value begins, or 0. */
static uint32_t name_op(const uint8_t *b, uint32_t len, uint32_t at, const char *seg)
{
	if (at + 5 >= len || b[at] != OP_NAME || !mem_equal(b + at + 1, seg, 4) || !name_seg(b, len, at + 1))
		return 0;
	return at + 5;
}

/* ---- resource templates (ACPI 6.5 section 6.4) ---- */

#define RES_END_TAG 0x79       /* small item 0xF, length 1 */
#define RES_MEMORY32_FIXED 0x86
#define RES_DWORD_ADDRESS 0x87
#define RES_QWORD_ADDRESS 0x8a
#define RES_TYPE_MEMORY 0

/* The first memory range a resource template names; false with why set
 * when there is none. */
static bool crs_memory(const uint8_t *t, uint32_t n, struct acpi_vmclock_info *out, const char **why)
{
	uint32_t p = 0;
	*why = "its _CRS names no memory range";
	while (p < n) {
		uint8_t tag = t[p];
		uint32_t body, size;
		if (tag & 0x80) { /* large item: tag, u16 length */
			if (p + 3 > n)
				break;
			body = load_le16(t + p + 1);
			size = 3 + body;
		} else {
			body = tag & 7;
			size = 1 + body;
			if ((tag & 0xf8) == (RES_END_TAG & 0xf8))
				return false;
		}
		if (size > n - p) {
			*why = "its _CRS resource template runs past its buffer";
			return false;
		}
		const uint8_t *d = t + p;
		if (tag == RES_QWORD_ADDRESS && body >= 43 && d[3] == RES_TYPE_MEMORY) {
			out->resource = "qword_memory";
			out->writable = d[5] & 1;
			out->cacheability = (d[5] >> 1) & 3;
			out->address = load_le64(d + 14) + load_le64(d + 30);
			out->length = load_le64(d + 38);
		} else if (tag == RES_DWORD_ADDRESS && body >= 23 && d[3] == RES_TYPE_MEMORY) {
			out->resource = "dword_memory";
			out->writable = d[5] & 1;
			out->cacheability = (d[5] >> 1) & 3;
			out->address = (uint64_t)load_le32(d + 10) + load_le32(d + 18);
			out->length = load_le32(d + 22);
		} else if (tag == RES_MEMORY32_FIXED && body >= 9) {
			out->resource = "memory32_fixed";
			out->writable = d[3] & 1;
			out->cacheability = 0;
			out->address = load_le32(d + 4);
			out->length = load_le32(d + 8);
		} else {
			p += size;
			continue;
		}
		if (!out->length) {
			*why = "its _CRS memory range has length 0";
			out->resource = NULL;
			p += size;
			continue;
		}
		return true;
	}
	return false;
}

/* Name(_CRS, Buffer(...)) at value position v: the template's bytes. */
static bool crs_buffer(const uint8_t *b, uint32_t len, uint32_t v, uint32_t *t_at, uint32_t *t_len)
{
	uint32_t pkglen, enc, size, p;
	if (v >= len || b[v] != OP_BUFFER || !pkg_length(b, len, v + 1, &pkglen, &enc))
		return false;
	uint64_t end = (uint64_t)v + 1 + pkglen;
	if (end > len)
		return false;
	p = v + 1 + enc;
	if (p >= end)
		return false;
	switch (b[p]) {
	case PREFIX_BYTE:
		size = p + 1 < end ? b[p + 1] : 0;
		p += 2;
		break;
	case PREFIX_WORD:
		size = p + 3 <= end ? load_le16(b + p + 1) : 0;
		p += 3;
		break;
	case PREFIX_DWORD:
		size = p + 5 <= end ? load_le32(b + p + 1) : 0;
		p += 5;
		break;
	case OP_ZERO:
		size = 0;
		p += 1;
		break;
	case OP_ONE:
		size = 1;
		p += 1;
		break;
	default:
		return false; /* a computed size: not evaluated */
	}
	if (p > end)
		return false;
	*t_at = p;
	*t_len = MIN(size, (uint32_t)end - p);
	return true;
}

static void set_reason(struct acpi_vmclock_info *out, const char *a, const char *b)
{
	struct strbuf sb;
	sb_init(&sb, out->reason, sizeof out->reason);
	sb_str(&sb, a);
	if (b)
		sb_str(&sb, b);
}

/* The device's path: its enclosing Scope or Device's name, then its own
 * (a name that starts at the root stands alone). */
static void device_path(const uint8_t *b, uint32_t len, const struct range *dev, uint32_t dev_name,
			struct acpi_vmclock_info *out)
{
	struct strbuf sb;
	struct range parent;
	uint32_t parent_name;
	sb_init(&sb, out->path, sizeof out->path);
	if (b[dev_name] != '\\' && innermost(b, len, dev->start, false, &parent, &parent_name)) {
		name_string(b, len, parent_name, &sb);
		if (b[parent_name] != '\\' || parent_name + 1 >= len || b[parent_name + 1] != 0)
			sb_char(&sb, '.');
	}
	name_string(b, len, dev_name, &sb);
}

/* The _CRS of the device at dev (a Name whose innermost device is dev). */
static void resolve_crs(const uint8_t *b, uint32_t len, const struct range *dev, struct acpi_vmclock_info *out,
			const char *what)
{
	const char *why = "it has no _CRS object";
	int resolved = 0;
	for (uint32_t at = dev->start + 2; at + 5 < dev->end && resolved < MAX_CRS; at++) {
		struct range owner;
		uint32_t owner_name, v = 0, t_at, t_len;
		bool method = b[at] == OP_METHOD;
		if (method) {
			uint32_t pkglen, enc;
			if (!pkg_length(b, len, at + 1, &pkglen, &enc) || at + 1 + enc + 4 > dev->end ||
			    !mem_equal(b + at + 1 + enc, "_CRS", 4))
				continue;
		} else if (!(v = name_op(b, dev->end, at, "_CRS"))) {
			continue;
		}
		resolved++;
		if (!innermost(b, len, at, true, &owner, &owner_name) || owner.start != dev->start)
			continue;
		if (method) {
			why = "its _CRS is a method (the probe evaluates no AML)";
			continue;
		}
		if (!crs_buffer(b, dev->end, v, &t_at, &t_len)) {
			why = "its _CRS is not a plain Buffer";
			continue;
		}
		if (crs_memory(b + t_at, t_len, out, &why)) {
			out->usable = true;
			out->reason[0] = '\0';
			return;
		}
	}
	set_reason(out, what, why);
}

/* The Devices of one block whose _HID or _CID is id's: up to MAX_HITS of
 * them (their packages and names) kept, the rest counted. */
struct aml_devices {
	struct range dev[MAX_HITS];
	uint32_t name[MAX_HITS];
	uint32_t kept, devices, unresolved;
	bool hid_match, cid_match; /* of the first */
};

static void find_devices(const uint8_t *aml, uint32_t len, const struct aml_id *id, struct aml_devices *d)
{
	uint32_t hits = 0;
	memset(d, 0, sizeof *d);
	for (uint32_t at = 0; at + 5 < len; at++) {
		uint32_t v;
		bool hid = false, cid = false;
		if ((v = name_op(aml, len, at, "_HID")))
			hid = id_is(aml, len, v, id->hid, id->eisa);
		else if ((v = name_op(aml, len, at, "_CID")))
			cid = cid_matches(aml, len, v, id);
		if (!hid && !cid)
			continue;
		if (++hits > 2 * MAX_HITS) {
			/* Resolving costs a backward walk: past this many the
			 * block is hostile, and the rest are only counted. */
			d->unresolved++;
			continue;
		}
		struct range dev;
		uint32_t dev_name;
		if (!innermost(aml, len, at, true, &dev, &dev_name))
			continue; /* an id outside any Device names nothing */
		uint32_t i = 0;
		while (i < d->kept && d->dev[i].start != dev.start)
			i++;
		if (i == d->kept) {
			d->devices++;
			if (d->kept == MAX_HITS)
				continue;
			d->dev[d->kept] = dev;
			d->name[d->kept++] = dev_name;
		}
		if (i == 0) { /* the first device is the one reported */
			d->hid_match |= hid;
			d->cid_match |= cid;
		}
	}
}

void acpi_aml_find_vmclock(const uint8_t *aml, uint32_t len, struct acpi_vmclock_info *out)
{
	struct aml_devices d;
	memset(out, 0, sizeof *out);
	set_reason(out, "no Device with _HID \"" VMCLOCK_HID "\" or _CID \"" VMCLOCK_CID "\" in the AML", NULL);
	find_devices(aml, len, &vmclock_id, &d);
	out->devices = d.devices;
	out->unresolved = d.unresolved;
	out->hid_match = d.hid_match;
	out->cid_match = d.cid_match;
	if (!d.kept)
		return;
	out->found = true;
	device_path(aml, len, &d.dev[0], d.name[0], out);
	resolve_crs(aml, len, &d.dev[0], out, "VMClock device found, but ");
}

void acpi_aml_find_hpet(const uint8_t *aml, uint32_t len, struct acpi_hpet_devices *out)
{
	struct aml_devices d;
	find_devices(aml, len, &hpet_id, &d);
	out->devices += d.devices;
	out->unresolved += d.unresolved;
	/* Every kept device's _CRS: a machine may have more than one HPET
	 * block, each its own device (IA-PC HPET 1.0a section 3.2.5). */
	for (uint32_t i = 0; i < d.kept; i++) {
		struct acpi_vmclock_info one;
		memset(&one, 0, sizeof one);
		device_path(aml, len, &d.dev[i], d.name[i], &one);
		resolve_crs(aml, len, &d.dev[i], &one, "HPET device found, but ");
		if (!one.usable) {
			if (!out->reason[0]) {
				struct strbuf sb;
				sb_init(&sb, out->reason, sizeof out->reason);
				sb_str(&sb, one.path);
				sb_str(&sb, ": ");
				sb_str(&sb, one.reason);
			}
			continue;
		}
		if (out->stored >= ACPI_MAX_HPET_DEVICES) {
			out->ranges_dropped++;
			continue;
		}
		struct acpi_hpet_device *h = &out->range[out->stored++];
		h->address = one.address;
		h->length = one.length;
		str_copy(h->path, sizeof h->path, one.path);
	}
}

/* Every definition block the parser listed: the DSDT and each SSDT.  The
 * first device found is reported; the count covers all of them. */
void acpi_scan_vmclock(struct acpi_parser *p)
{
	struct acpi_info *out = p->out;
	struct acpi_vmclock_info *vc = &out->vmclock;
	uint32_t devices = 0, scanned = 0;
	memset(vc, 0, sizeof *vc);
	memset(&out->hpet_devices, 0, sizeof out->hpet_devices);
	uint32_t listed = MIN(out->table_count, (uint32_t)ACPI_MAX_TABLES);
	for (uint32_t i = 0; i < listed + 1; i++) {
		/* The listed tables, then a DSDT that did not fit the list. */
		const struct acpi_table *tab = i < listed ? &out->tables[i] : &p->dsdt_past_list;
		if (!str_equal(tab->signature, "DSDT") && !str_equal(tab->signature, "SSDT"))
			continue;
		const uint8_t *b = acpi_entry_bytes(p, tab);
		if (!b || tab->length < ACPI_HEADER_LENGTH)
			continue;
		scanned++;
		struct acpi_vmclock_info one;
		acpi_aml_find_vmclock(b + ACPI_HEADER_LENGTH, tab->length - ACPI_HEADER_LENGTH, &one);
		uint32_t hpet_before = out->hpet_devices.stored;
		acpi_aml_find_hpet(b + ACPI_HEADER_LENGTH, tab->length - ACPI_HEADER_LENGTH, &out->hpet_devices);
		for (uint32_t k = hpet_before; k < out->hpet_devices.stored; k++)
			str_copy(out->hpet_devices.range[k].table, sizeof out->hpet_devices.range[k].table,
				 tab->signature);
		devices += one.devices;
		if (!one.found || vc->found)
			continue;
		*vc = one;
		str_copy(vc->table, sizeof vc->table, tab->signature);
		/* The OEM table id as firmware wrote it, cut at its NUL padding
		 * (QEMU pads "VMCLOCK" with one). */
		uint32_t id_len = 0;
		while (id_len < 8 && b[16 + id_len])
			id_len++;
		acpi_copy_printable(vc->oem_table_id, b + 16, id_len);
		vc->table_address = tab->address;
	}
	vc->devices = devices;
	vc->tables_scanned = scanned;
	if (!vc->found)
		set_reason(vc, scanned ? "no VMClock device (_HID \"" VMCLOCK_HID "\" / _CID \"" VMCLOCK_CID
					 "\") in the DSDT or any SSDT"
				       : "no readable DSDT or SSDT to look for a VMClock device in",
			   NULL);
	if (devices > 1) {
		struct strbuf t = acpi_error_text(p, "ACPI_VMCLOCK_DUPLICATE");
		sb_u64(&t, devices);
		sb_str(&t, " VMClock devices declared (the spec allows one); the first is used");
	}
}
