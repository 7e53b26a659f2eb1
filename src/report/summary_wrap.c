#include "report_parts.h"

/* Where a line may break: at a space, but not inside a <...> that closes
 * on this line (a libvirt element such as <feature policy='require'
 * name='invtsc'/> is copied whole, from one line).  0 when no such space
 * fits in `room`. */
static size_t break_at(const char *text, size_t n, size_t room)
{
	size_t fallback = 0;
	for (size_t take = room; take > 0; take--) {
		if (text[take] != ' ')
			continue;
		if (!fallback)
			fallback = take;
		/* inside a tag: a '<' before with no '>' between, and its '>'
		 * still to come */
		size_t open = take;
		while (open > 0 && text[open - 1] != '<' && text[open - 1] != '>')
			open--;
		bool inside = open > 0 && text[open - 1] == '<';
		if (inside) {
			size_t close = take;
			while (close < n && text[close] != '>' && text[close] != '<')
				close++;
			inside = close < n && text[close] == '>';
		}
		if (!inside)
			return take;
	}
	return fallback;
}

/* Every summary line fits a 100-column terminal: longer text is wrapped
 * at spaces, the rest indented (a word longer than the line is cut into
 * pieces, never lost; nothing is abbreviated with "...": a fix is text a
 * user copies). */
void summary_emit_wrapped(const char *text, size_t indent, bool screen, void (*emit)(const char *, bool))
{
	char line[SUMMARY_COLUMNS + 1];
	size_t n = str_len(text), at = 0, lead = 0;

	while (at < n) {
		size_t room = SUMMARY_COLUMNS - lead, take = n - at;
		if (take > room) {
			take = break_at(text + at, n - at, room);
			if (!take)
				take = room;
		}
		for (size_t i = 0; i < lead; i++)
			line[i] = ' ';
		for (size_t i = 0; i < take; i++)
			line[lead + i] = text[at + i];
		line[lead + take] = 0;
		emit(line, screen);
		at += take;
		while (at < n && text[at] == ' ')
			at++;
		lead = indent;
	}
}

/* A duration or cost on the summary, one rule for every such figure so
 * the same quantity never shows in two units or two precisions: one
 * decimal below 10 ns, whole ns below 10 us, us with one decimal below
 * 10 ms, ms with one below 1 s, then s with three (as the watch sentence
 * gives its times); rounded, never cut (47999 ns is "48.0 us").
 * ASCII "us": the serial console and a UEFI text screen may not draw a
 * micro sign. */
void summary_sb_ns(struct strbuf *sb, uint64_t ns_milli)
{
	if (ns_milli < 9950) {
		sb_fixed(sb, (int64_t)((ns_milli + 50) / 100), 1);
		sb_str(sb, " ns");
	} else if (ns_milli < 9999500) {
		sb_u64(sb, (ns_milli + 500) / 1000);
		sb_str(sb, " ns");
	} else if (ns_milli < 9999950000ull) {
		sb_fixed(sb, (int64_t)((ns_milli + 50000) / 100000), 1);
		sb_str(sb, " us");
	} else if (ns_milli < 999950000000ull) {
		sb_fixed(sb, (int64_t)((ns_milli + 50000000) / 100000000), 1);
		sb_str(sb, " ms");
	} else {
		sb_fixed(sb, (int64_t)((ns_milli + 500000000) / 1000000000), 3);
		sb_str(sb, " s");
	}
}
