/* The JSON writer and the report's CRC-32.  Expected bytes are written out
 * by hand from RFC 8259; CRC values are the standard check values of the
 * zlib/IEEE polynomial (also what Python's zlib.crc32 returns). */
#include "check.h"
#include "crc32.h"
#include "json.h"
#include "strbuf.h"

static char buf[4096];

TEST(json_nesting_and_commas)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_object_begin(&j, NULL);
	json_u64(&j, "a", 1);
	json_array_begin(&j, "b");
	json_u64(&j, NULL, 2);
	json_object_begin(&j, NULL);
	json_bool(&j, "c", true);
	json_null(&j, "d");
	json_object_end(&j);
	json_array_begin(&j, NULL);
	json_array_end(&j);
	json_array_end(&j);
	json_object_begin(&j, "e");
	json_object_end(&j);
	json_object_end(&j);
	CHECK(json_ok(&j));
	CHECK_STR(buf, "{\"a\":1,\"b\":[2,{\"c\":true,\"d\":null},[]],\"e\":{}}");
	CHECK_EQ_U64(j.len, strlen(buf));
}

TEST(json_string_escaping)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_array_begin(&j, NULL);
	json_string(&j, NULL, "q\"b\\s/\n\r\t\x01\x1f\x7f\xc3\xa9");
	json_string(&j, NULL, NULL);
	json_string_n(&j, NULL, "ab\0cd", 5);
	json_array_end(&j);
	CHECK(json_ok(&j));
	/* Control bytes, DEL and non-ASCII become \u00XX: output stays ASCII
	 * and valid whatever a firmware string holds. */
	CHECK_STR(buf, "[\"q\\\"b\\\\s/\\n\\r\\t\\u0001\\u001f\\u007f\\u00c3\\u00a9\",null,\"ab\\u0000cd\"]");
	CHECK(strchr(buf, '\n') == NULL);
}

TEST(json_numbers_at_their_extremes)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_array_begin(&j, NULL);
	json_u64(&j, NULL, 0);
	json_u64(&j, NULL, UINT64_MAX);
	json_i64(&j, NULL, INT64_MIN);
	json_i64(&j, NULL, INT64_MAX);
	json_i64(&j, NULL, -1);
	json_fixed(&j, NULL, 12345, 3);
	json_fixed(&j, NULL, -5, 3);
	json_fixed(&j, NULL, 7, 0);
	json_fixed(&j, NULL, INT64_MIN, 3);
	json_array_end(&j);
	CHECK(json_ok(&j));
	CHECK_STR(buf, "[0,18446744073709551615,-9223372036854775808,9223372036854775807,-1,"
		       "12.345,-0.005,7,-9223372036854775.808]");
}

TEST(json_base64_vectors)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_array_begin(&j, NULL);
	json_base64(&j, NULL, "", 0);
	json_base64(&j, NULL, "f", 1);
	json_base64(&j, NULL, "fo", 2);
	json_base64(&j, NULL, "foo", 3);
	json_base64(&j, NULL, "foobar", 6);
	json_array_end(&j);
	/* RFC 4648 section 10 test vectors */
	CHECK_STR(buf, "[\"\",\"Zg==\",\"Zm8=\",\"Zm9v\",\"Zm9vYmFy\"]");
}

TEST(json_overflow_is_sticky_and_visible)
{
	char small[16];
	struct json j;
	json_init(&j, small, sizeof small);
	json_object_begin(&j, NULL);
	json_string(&j, "key", "a value that does not fit");
	json_u64(&j, "n", 1);
	json_object_end(&j);
	CHECK(!json_ok(&j));
	CHECK(j.len < sizeof small);
	CHECK_EQ_U64(small[j.len], 0);
}

TEST(json_unbalanced_is_not_ok)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_object_begin(&j, NULL);
	CHECK(!json_ok(&j)); /* still open */
	json_object_end(&j);
	CHECK(json_ok(&j));
	json_object_end(&j); /* one too many */
	CHECK(!json_ok(&j));
}

TEST(json_depth_limit)
{
	struct json j;
	json_init(&j, buf, sizeof buf);
	for (int i = 0; i < JSON_MAX_DEPTH + 2; i++)
		json_array_begin(&j, NULL);
	CHECK(!json_ok(&j));
}

TEST(crc32_check_values)
{
	CHECK_EQ_U64(crc32_update(0, "", 0), 0);
	CHECK_EQ_U64(crc32_update(0, "123456789", 9), 0xCBF43926);
	CHECK_EQ_U64(crc32_update(0, "The quick brown fox jumps over the lazy dog", 43), 0x414FA339);
	/* Running CRC over pieces equals the CRC of the whole. */
	uint32_t c = crc32_update(0, "12345", 5);
	CHECK_EQ_U64(crc32_update(c, "6789", 4), 0xCBF43926);
}

TEST(strbuf_formatting)
{
	char out[64];
	struct strbuf sb;
	sb_init(&sb, out, sizeof out);
	sb_u64(&sb, 0);
	sb_char(&sb, ' ');
	sb_i64(&sb, -42);
	sb_char(&sb, ' ');
	sb_fixed(&sb, 1005, 1);
	sb_char(&sb, ' ');
	sb_hex(&sb, 0xbeef, 8);
	CHECK_STR(out, "0 -42 100.5 0000beef");
	sb_init(&sb, out, 8);
	sb_str(&sb, "truncate me");
	CHECK(sb.truncated);
	CHECK_STR(out, "truncat");
}
