/* SMBIOS parsing; see include/smbios.h.  Layouts from the DMTF SMBIOS
 * specification (DSP0134): 2.1 entry point "_SM_" (31 bytes, with the
 * intermediate "_DMI_" anchor at 16), 3.0 entry point "_SM3_" (24 bytes),
 * structures = 4-byte header (type, formatted length, handle) + formatted
 * area + string-set ending in a double NUL. */
#include "smbios.h"
#include "fwtable.h"
#include "strbuf.h"

#define SM3_LENGTH 0x18u
#define SM2_LENGTH 0x1fu
/* SMBIOS 2.1 itself documented 0x1E; firmware of that era uses it. */
#define SM2_LENGTH_QUIRK 0x1eu
#define TYPE_BIOS 0
#define TYPE_SYSTEM 1
#define TYPE_END 127

struct walker {
	struct smbios_info *out;
	smbios_map_fn map;
	void *ctx;
};

static char *error_message(struct walker *w, const char *code)
{
	struct smbios_info *out = w->out;

	if (out->error_count >= SMBIOS_MAX_ERRORS) {
		out->errors_dropped++;
		return NULL;
	}
	out->errors[out->error_count].code = code;
	return out->errors[out->error_count++].message;
}

/* Messages are fixed text plus at most one number, cut to the message
 * buffer like any other bounded text. */
static void add_error(struct walker *w, const char *code, const char *text,
		      uint64_t number, bool with_number)
{
	char *msg = error_message(w, code);
	struct strbuf sb;

	if (!msg)
		return;
	sb_init(&sb, msg, sizeof(w->out->errors[0].message));
	sb_str(&sb, text);
	if (with_number)
		sb_u64(&sb, number);
}

static const uint8_t *map_bytes(struct walker *w, uint64_t phys, uint32_t len)
{
	return fw_map_bytes(w->map, w->ctx, phys, len);
}

/* ---- entry points -------------------------------------------------- */

static bool parse_sm3(struct walker *w, const uint8_t *b)
{
	struct smbios_info *out = w->out;
	uint8_t len = b[6];

	if (len < SM3_LENGTH || !(b = map_bytes(w, out->entry_address, len))) {
		add_error(w, "SMBIOS_ENTRY_LENGTH", "_SM3_ entry point length ", len, true);
		return false;
	}
	str_copy(out->anchor, sizeof(out->anchor), "_SM3_");
	out->entry_checksum_ok = fw_byte_sum(b, len) == 0;
	out->major = b[7];
	out->minor = b[8];
	out->table_length = load_le32(b + 12);
	out->table_address = load_le64(b + 16);
	return true;
}

static bool parse_sm2(struct walker *w, const uint8_t *b)
{
	struct smbios_info *out = w->out;
	uint8_t len = b[5];

	/* Whatever the length byte says, the structure spans 31 bytes (the
	 * 0x1E quirk only miscounts), as Linux's dmi_present() assumes. */
	if ((len != SM2_LENGTH && len != SM2_LENGTH_QUIRK) ||
	    !(b = map_bytes(w, out->entry_address, SM2_LENGTH))) {
		add_error(w, "SMBIOS_ENTRY_LENGTH", "_SM_ entry point length ", len, true);
		return false;
	}
	str_copy(out->anchor, sizeof(out->anchor), "_SM_");
	/* The intermediate part (_DMI_ .. 15 bytes) has its own checksum. */
	out->entry_checksum_ok = fw_byte_sum(b, len) == 0 &&
				 mem_equal(b + 16, "_DMI_", 5) &&
				 fw_byte_sum(b + 16, 15) == 0;
	out->major = b[6];
	out->minor = b[7];
	out->table_length = load_le16(b + 22);
	out->table_address = load_le32(b + 24);
	return true;
}

static bool parse_entry(struct walker *w, uint64_t phys)
{
	struct smbios_info *out = w->out;
	/* 16 bytes hold both anchors and the length bytes at 5/6. */
	const uint8_t *b = phys ? map_bytes(w, phys, 16) : NULL;
	bool ok;

	out->entry_address = phys;
	if (b && mem_equal(b, "_SM3_", 5))
		ok = parse_sm3(w, b);
	else if (b && mem_equal(b, "_SM_", 4))
		ok = parse_sm2(w, b);
	else {
		add_error(w, "SMBIOS_ENTRY_MISSING",
			  phys ? "no SMBIOS anchor at the given address" :
				 "no SMBIOS entry point address", 0, false);
		return false;
	}
	if (!ok)
		return false;
	out->present = true;
	if (!out->entry_checksum_ok)
		add_error(w, "SMBIOS_ENTRY_CHECKSUM", "entry point checksum is wrong", 0, false);
	return true;
}

/* ---- structures ---------------------------------------------------- */

/* Copies string `index` (1-based; 0 means none) of the string-set
 * [set, end) into dst, printable ASCII only and trailing blanks dropped. */
static bool copy_string(char *dst, const uint8_t *set, const uint8_t *end,
			uint8_t index, bool *cut)
{
	const uint8_t *s = set;

	dst[0] = '\0';
	if (index == 0)
		return true;
	for (uint8_t i = 1; i < index; i++) {
		while (s < end && *s)
			s++;
		if (s >= end)
			return false;
		s++;
	}
	if (s >= end || *s == '\0')
		return false;
	size_t n = 0;
	for (; s < end && *s && n < SMBIOS_STRING_MAX; s++)
		dst[n++] = (*s >= 0x20 && *s < 0x7f) ? (char)*s : '?';
	*cut = s < end && *s; /* more string than the field holds */
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
	return true;
}

struct structure {
	const uint8_t *b;        /* header + formatted area */
	uint8_t length;          /* formatted length */
	const uint8_t *strings;  /* string-set start */
	const uint8_t *end;      /* one past the double NUL's first byte */
};

static void take_string(struct walker *w, const struct structure *s,
			uint8_t offset, char *dst, uint32_t cut_bit)
{
	bool cut = false;
	if (offset >= s->length)
		return; /* older spec version: field absent */
	if (!copy_string(dst, s->strings, s->end, s->b[offset], &cut))
		add_error(w, "SMBIOS_STRING_INDEX", "string index beyond the string-set: ",
			  s->b[offset], true);
	if (cut)
		w->out->truncated |= cut_bit;
}

static void use_structure(struct walker *w, const struct structure *s)
{
	struct smbios_info *out = w->out;

	if (s->b[0] == TYPE_BIOS && !out->has_bios) {
		out->has_bios = true;
		take_string(w, s, 4, out->bios_vendor, SMBIOS_CUT_BIOS_VENDOR);
		take_string(w, s, 5, out->bios_version, SMBIOS_CUT_BIOS_VERSION);
		take_string(w, s, 8, out->bios_release_date, SMBIOS_CUT_BIOS_RELEASE_DATE);
	} else if (s->b[0] == TYPE_SYSTEM && !out->has_system) {
		out->has_system = true;
		take_string(w, s, 4, out->manufacturer, SMBIOS_CUT_MANUFACTURER);
		take_string(w, s, 5, out->product, SMBIOS_CUT_PRODUCT);
		take_string(w, s, 6, out->version, SMBIOS_CUT_VERSION);
		take_string(w, s, 7, out->serial, SMBIOS_CUT_SERIAL);
		/* The UUID came with SMBIOS 2.1: 16 bytes at offset 8. */
		if (s->length >= 8 + 16)
			out->uuid_reason = smbios_uuid_format(s->b + 8, out->major, out->minor, out->uuid);
		else
			out->uuid_reason = "type 1 structure too short for a UUID (before SMBIOS 2.1)";
		take_string(w, s, 26, out->family, SMBIOS_CUT_FAMILY);
	}
}

/* Finds the double NUL closing the string-set starting at `from`; returns
 * the offset just past it, or 0 when the table ends first. */
static uint32_t string_set_end(const uint8_t *t, uint32_t len, uint32_t from)
{
	for (uint32_t i = from; i + 1 < len; i++)
		if (t[i] == 0 && t[i + 1] == 0)
			return i + 2;
	return 0;
}

static void walk(struct walker *w, const uint8_t *t, uint32_t len)
{
	struct smbios_info *out = w->out;
	uint32_t off = 0;

	/* Each structure takes at least 6 bytes: the loop is bounded. */
	while (off + 4 <= len && out->structures < len / 4) {
		struct structure s = { .b = t + off, .length = t[off + 1] };
		uint32_t next;

		if (s.length < 4 || s.length > len - off) {
			add_error(w, "SMBIOS_STRUCT_TRUNCATED",
				  "structure with bad length at offset ", off, true);
			return;
		}
		next = string_set_end(t, len, off + s.length);
		if (!next) {
			add_error(w, "SMBIOS_STRING_UNTERMINATED",
				  "string-set runs off the table at offset ", off, true);
			return;
		}
		s.strings = t + off + s.length;
		s.end = t + next - 1;
		out->structures++;
		use_structure(w, &s);
		if (s.b[0] == TYPE_END)
			return;
		off = next;
	}
	/* 2.x tables may simply end; 3.x ones must carry the end marker. */
	if (out->major >= 3)
		add_error(w, "SMBIOS_NO_END", "no end-of-table structure", 0, false);
}

int smbios_parse(struct smbios_info *out, uint64_t entry_phys,
		 smbios_map_fn map, void *ctx)
{
	struct walker w = { .out = out, .map = map, .ctx = ctx };
	const uint8_t *t;

	memset(out, 0, sizeof(*out));
	if (!parse_entry(&w, entry_phys))
		return -1;
	if (out->table_length < 4 || out->table_length > SMBIOS_MAX_TABLE_LENGTH) {
		add_error(&w, "SMBIOS_TABLE_LENGTH", "structure table length ",
			  out->table_length, true);
		return -1;
	}
	t = map_bytes(&w, out->table_address, out->table_length);
	if (!t) {
		add_error(&w, "SMBIOS_TABLE_UNREADABLE", "structure table unreadable", 0, false);
		return -1;
	}
	walk(&w, t, out->table_length);
	return 0;
}

const char *smbios_uuid_format(const uint8_t raw[16], uint8_t major, uint8_t minor, char out[SMBIOS_UUID_TEXT])
{
	/* Byte positions in printing order; the 2.6+ order swaps the first
	 * three fields (4, 2 and 2 bytes) to little-endian. */
	static const uint8_t as_stored[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const uint8_t little_endian[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	bool le = major > 2 || (major == 2 && minor >= 6);
	const uint8_t *order = le ? little_endian : as_stored;
	unsigned zeros = 0, ones = 0;
	struct strbuf sb;

	out[0] = '\0';
	for (unsigned i = 0; i < 16; i++) {
		zeros += raw[i] == 0x00;
		ones += raw[i] == 0xff;
	}
	if (zeros == 16)
		return "SMBIOS UUID is all 00h: the system has no ID";
	if (ones == 16)
		return "SMBIOS UUID is all FFh: the ID is not set";
	sb_init(&sb, out, SMBIOS_UUID_TEXT);
	for (unsigned i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			sb_char(&sb, '-');
		sb_hex(&sb, raw[order[i]], 2);
	}
	return NULL;
}

bool smbios_has_error(const struct smbios_info *info, const char *code)
{
	for (uint32_t i = 0; i < info->error_count && i < SMBIOS_MAX_ERRORS; i++)
		if (str_equal(info->errors[i].code, code))
			return true;
	return false;
}
