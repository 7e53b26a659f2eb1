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

