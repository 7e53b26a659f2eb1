/* Bounded text building for the human summary and console lines: no printf
 * in the probe, so numbers are formatted here, without floating point. */
#ifndef CP_STRBUF_H
#define CP_STRBUF_H
#include "util.h"

struct strbuf {
	char *buf;
	size_t cap, len;
	bool truncated;
};

void sb_init(struct strbuf *sb, char *buf, size_t cap);
void sb_str(struct strbuf *sb, const char *s);
void sb_char(struct strbuf *sb, char c);
void sb_u64(struct strbuf *sb, uint64_t v);
void sb_i64(struct strbuf *sb, int64_t v);
/* v / 10^decimals, e.g. sb_fixed(sb, 12345, 3) -> "12.345" */
void sb_fixed(struct strbuf *sb, int64_t v, unsigned decimals);
/* ns_milli (thousandths of a ns) as a duration: 9.9 ns, 123 ns, 48.0 us,
 * 18.3 ms, 1.234 s; rounded, never cut (strbuf.c) */
void sb_ns(struct strbuf *sb, uint64_t ns_milli);
void sb_hex(struct strbuf *sb, uint64_t v, unsigned min_digits);
/* "0x" and the hex digits of v, no leading zeros: 0xfed00000, 0x0.
 * How addresses and register values appear in error messages. */
void sb_hex0x(struct strbuf *sb, uint64_t v);
/* s as text for a console line: every byte outside printable ASCII
 * (controls, CR, LF, ESC, DEL, 0x80 and up) shown as \xNN, so a string a
 * machine supplies (the CPUID brand, a setting's word, a table's name)
 * cannot end the line, forge another or drive the terminal. */
void sb_shown(struct strbuf *sb, const char *s);
/* Pads with spaces up to column width (counted from the last newline). */
void sb_pad_to(struct strbuf *sb, size_t column);
#endif
