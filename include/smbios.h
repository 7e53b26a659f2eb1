/* SMBIOS entry point and structure table, parsed as a pure function over
 * memory reached through a map callback (same contract as acpi_map_fn).
 * Only identity strings are kept: BIOS vendor/version/date (type 0) and
 * system manufacturer/product/version/family/serial number/UUID (type 1):
 * the serial number and UUID tell one machine's reports from another's. */
#ifndef CP_SMBIOS_H
#define CP_SMBIOS_H
#include "util.h"

/* Maps len bytes at a physical address; NULL when it cannot be read. */
typedef const void *(*smbios_map_fn)(void *ctx, uint64_t phys, uint32_t len);

#define SMBIOS_MAX_ERRORS 8
#define SMBIOS_STRING_MAX 64
#define SMBIOS_CUT_BIOS_VENDOR (1u << 0)
#define SMBIOS_CUT_BIOS_VERSION (1u << 1)
#define SMBIOS_CUT_BIOS_RELEASE_DATE (1u << 2)
#define SMBIOS_CUT_MANUFACTURER (1u << 3)
#define SMBIOS_CUT_PRODUCT (1u << 4)
#define SMBIOS_CUT_VERSION (1u << 5)
#define SMBIOS_CUT_FAMILY (1u << 6)
#define SMBIOS_CUT_SERIAL (1u << 7)
/* Structure tables are a few KiB; refuse to map more than this. */
#define SMBIOS_MAX_TABLE_LENGTH (1u << 20)
#define SMBIOS_UUID_TEXT 37

struct smbios_error {
	const char *code;       /* static string, e.g. "SMBIOS_ENTRY_CHECKSUM" */
	char message[80];
};

struct smbios_info {
	bool present;           /* an entry point with a known anchor was found */
	uint64_t entry_address;
	char anchor[6];         /* "_SM3_" (64-bit) or "_SM_" (32-bit) */
	bool entry_checksum_ok; /* and, for _SM_, the _DMI_ checksum */
	uint8_t major, minor;
	uint64_t table_address;
	uint32_t table_length;  /* 3.x: the maximum size field */
	uint32_t structures;    /* structures walked, end marker included */

	bool has_bios;          /* a type 0 structure was found */
	char bios_vendor[SMBIOS_STRING_MAX + 1];
	char bios_version[SMBIOS_STRING_MAX + 1];
	char bios_release_date[SMBIOS_STRING_MAX + 1];

	bool has_system;        /* a type 1 structure was found */
	char manufacturer[SMBIOS_STRING_MAX + 1];
	char product[SMBIOS_STRING_MAX + 1];
	char version[SMBIOS_STRING_MAX + 1];
	char family[SMBIOS_STRING_MAX + 1];
	char serial[SMBIOS_STRING_MAX + 1];
	/* SMBIOS_CUT_* bits: the string was longer than SMBIOS_STRING_MAX
	 * bytes and holds its first ones (reported as *_truncated). */
	uint32_t truncated;
	/* The UUID as text (RFC 4122 form), or "" with uuid_reason saying why
	 * (spec: all 00h = no ID, all FFh = not set yet). */
	char uuid[SMBIOS_UUID_TEXT];
	const char *uuid_reason;

	uint32_t error_count;
	uint32_t errors_dropped;
	struct smbios_error errors[SMBIOS_MAX_ERRORS];
};

/* Parses the entry point at entry_phys ("_SM3_" or "_SM_") and the table
 * it names into *out (cleared first).  Returns 0 when the structure table
 * was walked, -1 when no usable entry point or table was found; *out says
 * why in errors[].  Strings absent from the table stay "". */
int smbios_parse(struct smbios_info *out, uint64_t entry_phys,
		 smbios_map_fn map, void *ctx);

/* Formats the 16 UUID bytes of a type 1 structure.  From SMBIOS 2.6 on the
 * first three fields are little-endian (DSP0134 7.2.1); before, the byte
 * order was undefined and Linux (dmi_decode_uuid) reads them as stored.
 * Returns NULL, or why there is no UUID (all 00h or all FFh). */
const char *smbios_uuid_format(const uint8_t raw[16], uint8_t major, uint8_t minor, char out[SMBIOS_UUID_TEXT]);

bool smbios_has_error(const struct smbios_info *info, const char *code);
#endif
