/* strbuf conversions added for the firmware-table parsers (acpi*.c and
 * smbios.c build their error messages with strbuf), and the bounds those
 * messages rely on.  The older conversions are tested in test_json.c. */
#include "check.h"
#include "strbuf.h"

TEST(strbuf_hex0x)
{
	char out[32];
	struct strbuf sb;

	sb_init(&sb, out, sizeof out);
	sb_hex0x(&sb, 0);
	sb_char(&sb, ' ');
	sb_hex0x(&sb, 0x608);
	sb_char(&sb, ' ');
	sb_hex0x(&sb, 0xfed00000);
	CHECK_STR(out, "0x0 0x608 0xfed00000");
	CHECK(!sb.truncated);

	sb_init(&sb, out, sizeof out);
	sb_hex0x(&sb, UINT64_MAX);
	CHECK_STR(out, "0xffffffffffffffff");
	sb_init(&sb, out, sizeof out);
	sb_hex0x(&sb, 1ull << 63);
	CHECK_STR(out, "0x8000000000000000");
}

/* A message longer than its buffer keeps cap-1 bytes, terminated, and a
 * later append adds nothing: the old ACPI and SMBIOS builders did this. */
TEST(strbuf_hex0x_truncated)
{
	char out[6];
	struct strbuf sb;

	sb_init(&sb, out, sizeof out);
	sb_str(&sb, "at ");
	sb_hex0x(&sb, 0xabcd);
	CHECK_STR(out, "at 0x");
	CHECK(sb.truncated);
	sb_u64(&sb, 7);
	CHECK_STR(out, "at 0x");

	/* The ACPI parser's sink for errors beyond its table: one byte. */
	char sink[2];
	sb_init(&sb, sink, sizeof sink);
	sb_str(&sb, "RSDT at ");
	sb_hex0x(&sb, 0x7fe1234);
	CHECK_EQ_U64(sb.len, 1);
	CHECK_STR(sink, "R");
}

/* Text plus a decimal number cut at the buffer end, as smbios.c writes
 * "structure with bad length at offset N". */
TEST(strbuf_text_then_number_truncated)
{
	char out[12];
	struct strbuf sb;

	sb_init(&sb, out, sizeof out);
	sb_str(&sb, "offset ");
	sb_u64(&sb, 123456789);
	CHECK_STR(out, "offset 1234");
	CHECK(sb.truncated);
}
